# PgRegressLex.pm - the bits of SQL lexing that tests/pg/pg-regress-prep.pl
# and tests/pg/pg-regress-compare.pl share: comments and literals out of a
# statement's text, and its words outside parentheses.
package PgRegressLex;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(strip top_words);

# the words of a statement's text outside comments, quotes and parentheses
sub top_words {
	my ($t) = @_;
	my $s = strip($t);
	my $d = 0;
	my $top = '';
	for my $c (split //, $s) {
		if ($c eq '(') { $d++; $top .= ' ( ' if $d == 1; next; }
		if ($c eq ')') { $d--; $top .= ' ) ' if $d == 0; next; }
		$top .= $c if $d == 0;
	}
	return $top;
}

# comments removed, string and dollar-quoted literals replaced by ''
sub strip {
	my ($t) = @_;
	my $r = '';
	my $i = 0;
	my $len = length $t;
	while ($i < $len) {
		my $c = substr($t, $i, 1);
		my $c2 = substr($t, $i, 2);
		if ($c2 eq '--') { my $e = index($t, "\n", $i); $i = $e < 0 ? $len : $e; next; }
		if ($c2 eq '/*') {
			my $depth = 1; $i += 2;
			while ($i < $len && $depth) {
				if (substr($t, $i, 2) eq '/*') { $depth++; $i += 2; }
				elsif (substr($t, $i, 2) eq '*/') { $depth--; $i += 2; }
				else { $i++; }
			}
			$r .= ' ';
			next;
		}
		if ($c eq "'") {
			my $esc = $i > 0 && substr($t, $i - 1, 1) =~ /[eE]/;
			$i++;
			while ($i < $len) {
				my $d = substr($t, $i, 1);
				if ($esc && $d eq '\\') { $i += 2; next; }
				if ($d eq "'") { if (substr($t, $i + 1, 1) eq "'") { $i += 2; next; } last; }
				$i++;
			}
			$i++;
			$r .= "''";
			next;
		}
		if ($c eq '"') {
			my $e = $i + 1;
			while ($e < $len) {
				if (substr($t, $e, 1) eq '"') { if (substr($t, $e + 1, 1) eq '"') { $e += 2; next; } last; }
				$e++;
			}
			$r .= substr($t, $i, $e - $i + 1);
			$i = $e + 1;
			next;
		}
		if ($c eq '$' && substr($t, $i) =~ /^(\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)/ &&
			($i == 0 || substr($t, $i - 1, 1) !~ /[A-Za-z0-9_]/)) {
			my $tag = $1;
			my $e = index($t, $tag, $i + length $tag);
			$i = $e < 0 ? $len : $e + length $tag;
			$r .= "''";
			next;
		}
		$r .= $c;
		$i++;
	}
	return $r;
}

1;
