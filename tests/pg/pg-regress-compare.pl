#!/usr/bin/perl
# pg-regress-compare.pl - compare psql outputs of one regression file run in
# several modes (tests/pg/run-pg-regress.sh), result set by result set.
#
#   pg-regress-compare.pl --units U.json [--name F] [--json-line FILE]
#       [--list-allowed] --base NAME OUT  NAME OUT [NAME OUT ...]
# --list-allowed also prints each unit a rule let pass, with its class.
#   pg-regress-compare.pl --summarize FILE [--counters-before S]
#       [--counters-after S] [--seconds N] [--crashes N]
#
# The outputs are cut at the @@ossd-unit N@@ / @@ossd-aux N@@ lines that
# tests/pg/pg-regress-prep.pl put before every unit; U.json holds each
# unit's statement.  Every unit of every mode is compared with the base
# mode's.  Result sets (psql's aligned tables) are compared row by row,
# everything else (command tags, errors with their DETAIL, HINT and LINE,
# notices) line by line.  Exit status 1 when there is any difference.
#
# What counts as equal, by rule (never by naming a query):
#   plan           a statement that runs EXPLAIN (its text says "explain", or
#                  it calls a function of the same file whose definition
#                  runs EXPLAIN): its output is derived from a plan, which
#                  offload changes by design; not compared
#   unordered      no ORDER BY at the statement's top level: rows compared as
#                  multisets (SQL gives no order)
#   limit-unordered  LIMIT/OFFSET/FETCH without a top-level ORDER BY: any
#                  rows may be chosen, only their number is compared
#   ties           top-level ORDER BY: the key columns (ORDER BY n, or a
#                  name that is an output column) must come in the same
#                  sequence; rows whose keys tie are compared as multisets.
#                  Keys after one that is not an output column are unknown:
#                  ties are taken on the keys before it (all rows, if none)
#   limit-ties     ORDER BY with LIMIT: the last tie group may hold other
#                  rows of the same keys (which of the tied rows the cut keeps)
#   float          a value in float syntax with 15 or more significant
#                  digits (float8's shortest exact output of an inexact
#                  result) differs from the base only beyond the 12th
#                  significant digit: summation order of floats
#   window-ties    a statement whose select list has window results (OVER):
#                  the other columns equal as multisets.  A frame over rows
#                  that tie on the window's ORDER BY -- all rows, without
#                  one -- sees them in whatever order the scan gave.  Also
#                  SELECT * FROM f(...) of an SQL function of the same file
#                  whose body is such a select
# Anything else is a difference ("different").  Error messages are compared
# as they are: no rule hides one.
use strict;
use warnings;
use Getopt::Long;
use JSON::PP;
use FindBin;
use lib $FindBin::Bin;
use PgRegressLex qw(strip top_words);

my ($units_file, $name, $json_line, $base, $summarize, $help, $list_allowed);
my ($cb, $ca, $secs, $crashes) = ('', '', 0, 0);
GetOptions('units=s' => \$units_file, 'name=s' => \$name, 'json-line=s' => \$json_line,
	'base=s' => \$base, 'summarize=s' => \$summarize, 'counters-before=s' => \$cb,
	'counters-after=s' => \$ca, 'seconds=i' => \$secs, 'crashes=i' => \$crashes,
	'list-allowed' => \$list_allowed, 'help' => \$help) or die "bad options (see --help)\n";
if ($help) {
	open my $self, '<', $0 or die;
	while (<$self>) { last unless /^#/; next if $. == 1; s/^# ?//; print; }
	exit 0;
}
my @classes = qw(unordered limit-unordered ties limit-ties float window-ties different);

if ($summarize) { summarize(); exit 0; }

die "--units and --base NAME OUT needed (see --help)\n" unless $units_file && $base && @ARGV;
my $base_out = shift @ARGV;
my %others = @ARGV;
my $units = decode_json(do { local $/; open my $f, '<', $units_file or die "$units_file: $!\n"; <$f> });
my %unit = map { $_->{n} => $_ } @$units;

sub segments {
	my ($file) = @_;
	open my $f, '<', $file or die "$file: $!\n";
	my %seg;
	my $cur;
	while (my $l = <$f>) {
		chomp $l;
		if ($l =~ /^\@\@ossd-(?:unit|aux) (\d+)\@\@$/) { $cur = $1; $seg{$cur} = []; next; }
		push @{$seg{$cur}}, $l if defined $cur;
	}
	return \%seg;
}

# a segment as items: {kind => 'line', text} or {kind => 'table', header, rows}
sub items {
	my ($lines) = @_;
	my @it;
	my $i = 0;
	while ($i < @$lines) {
		my $l = $lines->[$i];
		if ($i + 1 < @$lines && $lines->[$i + 1] =~ /^-+(?:\+-+)*$/ && $l =~ /\S/) {
			my @rows;
			my $j = $i + 2;
			my $footer;
			while ($j < @$lines) {
				if ($lines->[$j] =~ /^\((\d+) rows?\)$/) { $footer = $1; $j++; last; }
				last if $lines->[$j] eq '';
				push @rows, $lines->[$j++];
			}
			# a value with newlines continues its row ("+" before "|" or at the end)
			my @grouped;
			my $acc;
			for my $r (@rows) {
				$acc = defined $acc ? "$acc\n$r" : $r;
				if ($r !~ /\+\s*\|/ && $r !~ /\+$/) { push @grouped, $acc; undef $acc; }
			}
			push @grouped, $acc if defined $acc;
			@grouped = @rows if defined $footer && @grouped != $footer;
			push @it, {kind => 'table', header => $l, rows => \@grouped,
				footer => defined $footer ? $footer : ''};
			$i = $j;
			next;
		}
		push @it, {kind => 'line', text => $l};
		$i++;
	}
	return \@it;
}

sub cells {
	my ($row, $n) = @_;
	return [$row] if $row =~ /\n/;
	my @c = map { s/^\s+|\s+$//gr } split /\|/, $row, -1;
	return @c == $n ? \@c : [$row];
}

# the statement's top-level ORDER BY items, LIMIT and window ORDER BY
# the text with what is inside parentheses masked (same length)
sub depth0 {
	my ($s) = @_;
	my $d = 0;
	my @chars = split //, $s;
	my @depth;
	for my $c (@chars) {
		$d-- if $c eq ')';
		push @depth, $d;
		$d++ if $c eq '(';
	}
	return join '', map { $depth[$_] == 0 ? $chars[$_] : ($chars[$_] eq '(' || $chars[$_] eq ')' ? $chars[$_] : "\0") } 0 .. $#chars;
}

# SQL functions of the file whose body's select list has window results:
# SELECT * FROM f(...) returns them in the same columns
my %fn_window;
my %fn_explain;	# functions of the file that run EXPLAIN: their output is a plan
for my $u (@$units) {
	next unless $u->{kind} eq 'stmt' &&
	  $u->{text} =~ /^\s*create\s+(?:or\s+replace\s+)?function\s+(?:\w+\.)?(\w+)/i;
	my $fn = lc $1;
	$fn_explain{$fn} = 1 if $u->{text} =~ /\bexplain\b/i;
	my $body;
	if ($u->{text} =~ /\blanguage\s+sql\b/i || $u->{text} =~ /\bbegin\s+atomic\b/i) {
		if ($u->{text} =~ /\bbegin\s+atomic\b(.*)\bend\s*;?\s*$/is) { $body = $1; }
		elsif ($u->{text} =~ /\bas\s+(\$\w*\$)(.*?)\1/is) { $body = $2; }
	}
	next unless defined $body;
	my $bs = strip($body);
	my $w = window_columns($bs, depth0($bs));
	$fn_window{$fn} = $w if $w;
}

sub shape {
	my ($text) = @_;
	my $s = strip($text);
	my $t0 = depth0($s);
	my $win = window_columns($s, $t0);
	if (!$win && $s =~ /^\s*select\s+\*\s+from\s+(?:\w+\.)?(\w+)\s*\([^()]*\)\s*;?\s*$/i) {
		$win = $fn_window{lc $1};
	}
	my %sh = (order => undef, limit => 0, window => $win);
	$sh{limit} = 1 if $t0 =~ /\b(?:limit|offset|fetch)\b/i;
	my $pos;
	while ($t0 =~ /\border\s+by\b/ig) { $pos = pos($t0); }
	return \%sh unless defined $pos;
	# the clause: from there to LIMIT/OFFSET/FETCH/FOR/; at depth 0
	my $end = length $s;
	my $rest0 = substr($t0, $pos);
	$end = $pos + $-[0] if $rest0 =~ /\b(?:limit|offset|fetch|for|returning)\b|;/i;
	my $clause = substr($s, $pos, $end - $pos);
	my $cd = substr($t0, $pos, $end - $pos);
	my @items;
	my $start = 0;
	for my $k (0 .. length($cd)) {
		if ($k == length($cd) || (substr($cd, $k, 1) eq ',')) {
			push @items, substr($clause, $start, $k - $start);
			$start = $k + 1;
		}
	}
	for (@items) {
		s/^\s+|\s+$//g;
		s/\s+(?:asc|desc|using\s+\S+)?\s*(?:nulls\s+(?:first|last))?\s*$//i;
		s/\s+collate\s+\S+$//i;
		s/\s+(?:asc|desc)$//i;
	}
	$sh{order} = \@items;
	return \%sh;
}

# {index => 1} of the select list's window results (OVER), or undef: none,
# or a select list whose columns cannot be counted (*)
sub window_columns {
	my ($s, $t0) = @_;
	return undef unless $t0 =~ /\bselect\b/ig;
	my $from = pos($t0);
	my $to = $t0 =~ /\bfrom\b/ig ? $-[0] : length $t0;
	my @items;
	my $start = $from;
	for my $k ($from .. $to) {
		if ($k == $to || substr($t0, $k, 1) eq ',') {
			push @items, substr($s, $start, $k - $start);
			$start = $k + 1;
		}
	}
	return undef if grep { /^\s*(?:[\w"]+\s*\.\s*)?\*\s*$/ } @items;
	my %w = map { $items[$_] =~ /\bover\s*(?:\(|[a-z_])/i ? ($_ => 1) : () } 0 .. $#items;
	return %w ? \%w : undef;
}

sub key_columns {
	my ($order, $header) = @_;
	my @h = map { s/^\s+|\s+$//gr } split /\|/, $header, -1;
	my @k;
	for my $item (@$order) {
		if ($item =~ /^(\d+)$/) { last if $1 < 1 || $1 > @h; push @k, $1 - 1; next; }
		my $nm;
		if ($item =~ /^(?:(?:"[^"]*"|[a-z_][\w\$]*)\s*\.\s*)*("([^"]*)"|[a-z_][\w\$]*)$/i) {
			$nm = defined $2 ? $2 : lc $1;
		}
		last unless defined $nm;
		my @m = grep { $h[$_] eq $nm } 0 .. $#h;
		last unless @m == 1;
		push @k, $m[0];
	}
	return \@k;
}

sub sig_digits {
	my ($v) = @_;
	my ($m) = $v =~ /^-?([\d.]+)/;
	return 0 unless defined $m;
	$m =~ s/\.//; $m =~ s/^0+//;
	return length $m;
}
my $float_re = qr/^-?(?:\d+\.\d*|\.\d+|\d+)(?:e[-+]?\d+)?$/i;
sub float_close {
	my ($x, $y) = @_;
	return 1 if $x eq $y;
	return 0 unless $x =~ $float_re && $y =~ $float_re && ($x =~ /[.e]/i || $y =~ /[.e]/i);
	return 0 unless sig_digits($x) >= 15 || sig_digits($y) >= 15;
	my $m = abs($x) > abs($y) ? abs($x) : abs($y);
	return abs($x - $y) <= 1e-12 * $m;
}
sub fnorm { my ($v) = @_; return $v =~ $float_re && sig_digits($v) >= 12 ? sprintf('%.11e', $v) : $v; }
sub row_key { my ($c, $fl) = @_; return join "\x01", map { $fl ? fnorm($_) : $_ } @$c; }
sub rows_equal {
	my ($ra, $rb, $fl) = @_;
	return 0 unless @$ra == @$rb;
	for my $i (0 .. $#$ra) {
		return 0 unless @{$ra->[$i]} == @{$rb->[$i]};
		for my $j (0 .. $#{$ra->[$i]}) {
			my ($x, $y) = ($ra->[$i][$j], $rb->[$i][$j]);
			next if $x eq $y;
			return 0 unless $fl && float_close($x, $y);
		}
	}
	return 1;
}
sub multiset_equal {
	my ($ra, $rb, $fl) = @_;
	my @sa = sort { row_key($a, $fl) cmp row_key($b, $fl) } @$ra;
	my @sb = sort { row_key($a, $fl) cmp row_key($b, $fl) } @$rb;
	return rows_equal(\@sa, \@sb, $fl);
}

# the class of a table pair's difference ('' when equal)
sub compare_table {
	my ($ta, $tb, $sh) = @_;
	return 'different' if $ta->{header} ne $tb->{header} || $ta->{footer} ne $tb->{footer};
	my @h = split /\|/, $ta->{header}, -1;
	my $n = @h;
	my @a = map { cells($_, $n) } @{$ta->{rows}};
	my @b = map { cells($_, $n) } @{$tb->{rows}};
	return '' if rows_equal(\@a, \@b, 0);
	return 'different' if @a != @b;
	for my $fl (0, 1) {
		my $f = $fl ? 'float' : '';
		if (!$sh->{order}) {
			return $f || 'unordered' if multiset_equal(\@a, \@b, $fl);
		} else {
			return $f if $fl && rows_equal(\@a, \@b, 1);
			my $k = key_columns($sh->{order}, $ta->{header});
			my $ka = [map { my $r = $_; [map { $r->[$_] // '' } @$k] } @a];
			my $kb = [map { my $r = $_; [map { $r->[$_] // '' } @$k] } @b];
			if (rows_equal($ka, $kb, $fl)) {
				my $ok = 1;
				my $last_differs = 0;
				my $g0 = 0;
				for my $i (0 .. $#a) {
					next if $i < $#a && row_key($ka->[$i + 1], $fl) eq row_key($ka->[$g0], $fl);
					my @ga = @a[$g0 .. $i];
					my @gb = @b[$g0 .. $i];
					if (!multiset_equal(\@ga, \@gb, $fl)) {
						if ($i == $#a && $sh->{limit}) { $last_differs = 1; } else { $ok = 0; last; }
					}
					$g0 = $i + 1;
				}
				return $f || ($last_differs ? 'limit-ties' : 'ties') if $ok;
			}
		}
	}
	return 'limit-unordered' if !$sh->{order} && $sh->{limit};
	if ($sh->{window}) {
		# the window results left out, the other columns as multisets
		my @keep = grep { !$sh->{window}{$_} } 0 .. $n - 1;
		if (@keep && @keep < $n) {
			my @ra = map { my $r = $_; [map { $r->[$_] // '' } @keep] } @a;
			my @rb = map { my $r = $_; [map { $r->[$_] // '' } @keep] } @b;
			return 'window-ties' if multiset_equal(\@ra, \@rb, 0);
		}
	}
	return 'different';
}

# the class of a unit's difference ('' when equal)
sub unit_class {
	my ($la, $lb, $ia, $ib, $meta) = @_;
	return '' if join("\n", @$la) eq join("\n", @$lb);
	return 'different' if @$ia != @$ib;
	my $class = '';
	my $sh = shape($meta->{text});
	for my $k (0 .. $#$ia) {
		my ($x, $y) = ($ia->[$k], $ib->[$k]);
		my $c;
		if ($x->{kind} ne $y->{kind}) { $c = 'different'; }
		elsif ($x->{kind} eq 'line') { $c = $x->{text} eq $y->{text} ? '' : 'different'; }
		else { $c = compare_table($x, $y, $sh); }
		# the most severe class of the unit's result sets
		if ($c ne '' && ($class eq '' || index(join(' ', @classes), $c) > index(join(' ', @classes), $class))) {
			$class = $c;
		}
	}
	return $class;
}

my $segb = segments($base_out);

my %stat = (file => $name // $base_out, statements => 0, result_sets => 0, plans => 0,
	aux => 0, differences => 0, map { ("class_$_" => 0) } @classes);
my $fail = 0;
for my $mode (sort keys %others) {
	my $sego = segments($others{$mode});
	for my $u (sort { $a <=> $b } keys %unit) {
		my $meta = $unit{$u};
		my $la = $segb->{$u} // ['<unit not reached>'];
		my $lb = $sego->{$u} // ['<unit not reached>'];
		my $is_stmt = $meta->{kind} eq 'stmt';
		$stat{$meta->{kind} eq 'stmt' ? 'statements' : $meta->{kind}}++ if $mode eq (sort keys %others)[0];
		my $plan = $is_stmt && ($meta->{text} =~ /\bexplain/i ||
			grep { $meta->{text} =~ /\b\Q$_\E\s*\(/i } keys %fn_explain);
		my $ia = items($la);
		my $ib = items($lb);
		if ($plan) { $stat{plans}++; next; }
		$stat{result_sets} += grep { $_->{kind} eq 'table' } @$ia;
		my $class = unit_class($la, $lb, $ia, $ib, $meta);
		next if $class eq '';
		$stat{"class_$class"}++;
		if ($list_allowed && $class ne 'different') {
			(my $one = $meta->{text}) =~ s/\s+/ /g;
			printf "allowed %s: %s unit %d (line %d), %s: %s\n", $class, $stat{file}, $u,
			  $meta->{first_line}, $mode, substr($one, 0, 160);
		}
		if ($class eq 'different') {
			$stat{differences}++;
			$fail = 1;
			my $st = $meta->{text};
			$st = substr($st, 0, 600) . ' ...' if length $st > 600;
			print "=== $stat{file} unit $u (line $meta->{first_line}), $mode vs $base: different\n$st\n";
			my %inb = map { $_ => 1 } @$lb;
			my %ina = map { $_ => 1 } @$la;
			my ($sa, $sb) = (0, 0);
			for (@$la) { next if $inb{$_}; print "- $_\n"; last if ++$sa >= 20; }
			for (@$lb) { next if $ina{$_}; print "+ $_\n"; last if ++$sb >= 20; }
		}
	}
}
my $modes = keys %others;
$stat{modes} = $modes + 1;
if ($json_line) {
	open my $j, '>>', $json_line or die "$json_line: $!\n";
	print $j JSON::PP->new->canonical->encode(\%stat), "\n";
}
my @allowed = map { "$_ $stat{\"class_$_\"}" } grep { $_ ne 'different' && $stat{"class_$_"} } @classes;
printf "%d statements, %d result sets compared (%d modes vs %s), %d plans skipped, %d differences%s\n",
	$stat{statements}, $stat{result_sets}, $modes, $base, $stat{plans}, $stat{differences},
	@allowed ? ' (allowed: ' . join(', ', @allowed) . ')' : '';
exit $fail;

sub summarize {
	open my $f, '<', $summarize or die "$summarize: $!\n";
	my %t = (files => 0);
	while (my $l = <$f>) {
		my $s = decode_json($l);
		$t{files}++;
		for my $k (keys %$s) { next if $k eq 'file' || $k eq 'modes'; $t{$k} += $s->{$k}; }
	}
	my %c0 = $cb =~ /(\w+)=(\d+)/g;
	my %c1 = $ca =~ /(\w+)=(\d+)/g;
	$t{drive_blocks_scanned} = ($c1{scan_blocks} // 0) - ($c0{scan_blocks} // 0);
	$t{drive_scans} = ($c1{scans} // 0) - ($c0{scans} // 0);
	$t{seconds} = $secs;
	$t{crashes} = $crashes;
	$t{$_} //= 0 for qw(statements result_sets plans differences), map { "class_$_" } @classes;
	open my $o, '>', "$summarize.total" or die;
	print $o JSON::PP->new->canonical->encode(\%t), "\n";
	my @cl = map { "$_ " . $t{"class_$_"} } @classes;
	printf "pg-regress: %d files, %d statements, %d result sets compared, %d plans skipped, "
	  . "drive: %d scans, %d blocks scanned; %d differences; allowed by rule: %s; %d crashes; %d s\n",
	  $t{files}, $t{statements}, $t{result_sets}, $t{plans}, $t{drive_scans}, $t{drive_blocks_scanned},
	  $t{differences}, join(', ', grep { !/^different / } @cl), $crashes, $secs;
}
