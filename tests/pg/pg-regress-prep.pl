#!/usr/bin/perl
# pg-regress-prep.pl - prepare one of PostgreSQL's regression SQL files for
# tests/pg/run-pg-regress.sh: split it into top-level units the way psql
# does, mark each unit in the output so the comparator can cut psql's output
# result set by result set, and freeze what a unit wrote so that the next
# units scan it on the drive.  The same file is run in every mode, so the
# modes stay comparable.
#
#   pg-regress-prep.pl [--units FILE.json] < in.sql > out.sql
#
# Units: an SQL statement (ended by ';' outside quotes, comments and
# parentheses, or by a \g-style meta-command), or a psql meta-command line.
# Before each unit: \echo @@ossd-unit N@@.  After a data-changing statement
# (INSERT, UPDATE, DELETE, MERGE, COPY FROM, CREATE TABLE AS, CREATE/REFRESH
# MATERIALIZED VIEW, WITH ... of those) outside a transaction block -- or at
# the end of the block it ran in -- a quiet VACUUM (FREEZE) of the table it
# wrote and of that table's inheritance children (marked @@ossd-aux N@@).
# --units writes [{n, kind, text, first_line}] for the comparator.
use strict;
use warnings;
use Getopt::Long;
use JSON::PP;
use FindBin;
use lib $FindBin::Bin;
use PgRegressLex qw(strip top_words);

my ($units_file, $help);
GetOptions('units=s' => \$units_file, 'help' => \$help) or die "bad options (see --help)\n";
if ($help) {
	open my $self, '<', $0 or die;
	while (<$self>) { last unless /^#/; next if $. == 1; s/^# ?//; print; }
	exit 0;
}

my @lines = <STDIN>;
my @units;           # {n, kind, text, first_line}
my $out = '';
my $n = 0;
my $in_tx = 0;
my %pending;         # tables written inside the open transaction block

my $ident = qr/(?:"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_\$]*)/;
my $qname = qr/$ident(?:\s*\.\s*$ident)*/;

# the table a data-changing statement writes, or undef
sub written_table {
	my ($t) = @_;
	my $w = top_words($t);
	$w =~ s/^\s+//;
	# WITH cte AS (...) [, ...] verb: the parenthesised bodies are gone
	if ($w =~ /^with\b/i) {
		$w =~ s/^with\s+(recursive\s+)?//i;
		while ($w =~ s/^$ident\s*(?:\(\s*\)\s*)?as\s+(?:(?:not\s+)?materialized\s+)?\(\s*\)\s*(?:search\s.*?set\s+$ident\s*)?(?:cycle\s.*?using\s+$ident\s*)?,?\s*//is) { }
	}
	return $1 if $w =~ /^insert\s+into\s+($qname)/i;
	return $1 if $w =~ /^update\s+(?:only\s+)?($qname)/i;
	return $1 if $w =~ /^delete\s+from\s+(?:only\s+)?($qname)/i;
	return $1 if $w =~ /^merge\s+into\s+(?:only\s+)?($qname)/i;
	return $1 if $w =~ /^copy\s+($qname)\s*(?:\(\s*\)\s*)?from\b/i;
	return $1 if $w =~ /^create\s+(?:(?:global\s+|local\s+)?(?:temp|temporary)\s+|unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?($qname)\s*(?:\(\s*\)\s*)?(?:using\s+$ident\s*)?(?:with\s*\(\s*\)\s*)?as\b/i;
	return $1 if $w =~ /^create\s+materialized\s+view\s+(?:if\s+not\s+exists\s+)?($qname)/i;
	return $1 if $w =~ /^refresh\s+materialized\s+view\s+(?:concurrently\s+)?($qname)/i;
	return undef;
}

sub tx_effect {
	my ($t) = @_;
	my $w = strip($t);
	$w =~ s/^\s+//;
	return 1 if $w =~ /^(begin|start\s+transaction)\b/i;
	return -1 if $w =~ /^(commit|end|abort|prepare\s+transaction)\b/i && $w !~ /^commit\s+and\s+chain/i;
	return -1 if $w =~ /^rollback\b/i && $w !~ /^rollback\s+(and\s+chain|to\b)/i;
	return 0;
}

sub freeze {
	my (@tables) = @_;
	return unless @tables;
	$n++;
	my $lits = join(', ', map { my $x = $_; $x =~ s/'/''/g; "'$x'" } @tables);
	$out .= "\\echo '\@\@ossd-aux $n\@\@'\n\\set QUIET on\n"
	  . "WITH RECURSIVE t(c) AS (SELECT pg_catalog.to_regclass(x)::oid FROM pg_catalog.unnest(ARRAY[$lits]) x"
	  . " UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN t ON i.inhparent = t.c)"
	  . " SELECT pg_catalog.format('VACUUM (FREEZE) %s', c::regclass) FROM t JOIN pg_catalog.pg_class r ON r.oid = t.c"
	  . " WHERE r.relkind IN ('r', 'm') \\gexec\n\\set QUIET off\n";
	push @units, {n => $n, kind => 'aux', text => join(' ', @tables), first_line => 0};
}

sub emit_unit {
	my ($kind, $text, $first_line, $data) = @_;
	$n++;
	$out .= "\\echo '\@\@ossd-unit $n\@\@'\n$text\n" . ($data // '');
	push @units, {n => $n, kind => $kind, text => $text, first_line => $first_line};
	return if $kind ne 'stmt';
	my $tx = tx_effect($text);
	my $tab = written_table($text);
	if ($in_tx) {
		$pending{$tab} = 1 if defined $tab;
		if ($tx < 0) { $in_tx = 0; freeze(sort keys %pending); %pending = (); }
	} elsif ($tx > 0) {
		$in_tx = 1;
	} elsif (defined $tab) {
		freeze($tab);
	}
}

# psql's lexer, as far as unit boundaries go
my $buf = '';        # the statement being read
my $buf_line = 0;
my ($paren, $begin_depth) = (0, 0);
my $quote = '';      # '' or "'" or 'E' (E'') or '"' or a dollar tag or '/*'
my $comment_depth = 0;
my $pending_copy_data = 0;
my $li = 0;
while ($li < @lines) {
	my $line = $lines[$li++];
	chomp $line;
	if ($buf !~ /\S/ && $quote eq '' && $line =~ /^\s*\\/) {
		$out .= $buf; $buf = '';
		emit_unit('meta', $line, $li);
		next;
	}
	if ($buf !~ /\S/ && $quote eq '' && ($line =~ /^\s*$/ || $line =~ /^\s*--/)) {
		$out .= "$line\n";
		next;
	}
	$buf_line = $li if $buf !~ /\S/;
	my $i = 0;
	my $len = length $line;
	my $start = 0;           # where the unread part of $line begins
	while ($i < $len) {
		my $c = substr($line, $i, 1);
		my $c2 = substr($line, $i, 2);
		if ($quote eq '/*') {
			if ($c2 eq '/*') { $comment_depth++; $i += 2; next; }
			if ($c2 eq '*/') { $comment_depth--; $quote = '' if !$comment_depth; $i += 2; next; }
			$i++; next;
		}
		if ($quote eq "'" || $quote eq 'E') {
			if ($quote eq 'E' && $c eq '\\') { $i += 2; next; }
			if ($c eq "'") {
				if (substr($line, $i + 1, 1) eq "'") { $i += 2; next; }
				$quote = '';
			}
			$i++; next;
		}
		if ($quote eq '"') { $quote = '' if $c eq '"'; $i++; next; }
		if ($quote ne '') {   # dollar tag
			if (substr($line, $i, length $quote) eq $quote) { $i += length $quote; $quote = ''; next; }
			$i++; next;
		}
		if ($c2 eq '--') { $i = $len; last; }
		if ($c2 eq '/*') { $quote = '/*'; $comment_depth = 1; $i += 2; next; }
		if ($c eq "'") { $quote = ($i > 0 && substr($line, $i - 1, 1) =~ /[eE]/) ? 'E' : "'"; $i++; next; }
		if ($c eq '"') { $quote = '"'; $i++; next; }
		if ($c eq '$' && substr($line, $i) =~ /^(\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)/ &&
			($i == 0 || substr($line, $i - 1, 1) !~ /[A-Za-z0-9_]/)) {
			$quote = $1; $i += length $1; next;
		}
		if ($c eq '(') { $paren++; $i++; next; }
		if ($c eq ')') { $paren-- if $paren > 0; $i++; next; }
		if ($c =~ /[A-Za-z_]/) {
			my ($word) = substr($line, $i) =~ /^([A-Za-z_][A-Za-z0-9_\$]*)/;
			my $so_far = strip($buf . substr($line, $start, $i - $start));
			if ($so_far =~ /^\s*create\s+(or\s+replace\s+)?(function|procedure)\b/i) {
				my $lw = lc $word;
				if ($lw eq 'begin') { $begin_depth++; }
				elsif ($lw eq 'case' && $begin_depth) { $begin_depth++; }
				elsif ($lw eq 'end' && $begin_depth) { $begin_depth--; }
			}
			$i += length $word;
			next;
		}
		if ($c eq '\\') {
			if ($c2 eq '\\\\') { $i += 2; next; }
			# a meta-command ends the statement (\g, \gset, \gexec, ...)
			my $text = $buf . substr($line, $start);
			$buf = ''; ($paren, $begin_depth) = (0, 0);
			emit_unit('stmt', $text, $buf_line);
			$start = $i = $len;
			last;
		}
		if ($c eq ';' && $paren == 0 && $begin_depth == 0) {
			my $text = $buf . substr($line, $start, $i + 1 - $start);
			$buf = '';
			$i++;
			my $data;
			if (strip($text) =~ /^\s*copy\b.*\bfrom\s+stdin\b/is) {
				$data = '';
				# the rest of the line is not SQL, then data lines up to \.
				while ($li < @lines) {
					my $d = $lines[$li++];
					$data .= $d;
					last if $d =~ /^\\\.\r?$/;
				}
				$i = $len;
			}
			emit_unit('stmt', $text, $buf_line, $data);
			$start = $i;
			# what follows on the line starts a new unit
			my $rest = substr($line, $start);
			if ($rest =~ /^\s*$/ || $rest =~ /^\s*--/) { $out .= "$rest\n" if $rest =~ /\S/; $start = $i = $len; last; }
			$buf_line = $li;
			next;
		}
		$i++;
	}
	$buf .= substr($line, $start) . "\n" if $start < $len || $buf =~ /\S/;
}
# a statement without its ';' at the end of the file: psql runs nothing
$out .= $buf;
print $out;
if ($units_file) {
	open my $f, '>', $units_file or die "$units_file: $!\n";
	print $f JSON::PP->new->canonical->encode(\@units);
	close $f;
}
