#!/usr/bin/perl
# regress-drop-drive-lines.pl - remove from a pg_regress result the lines
# EXPLAIN ANALYZE adds for a relation striped over an array of drives
# (pg_ossd/ossd_array.c, ossd_array_explain), so that the result of a suite
# run with its tablespace on an array can be compared with the one expected
# output written on one drive (tests/pg/run-regress.sh, OSSD_ARRAY_DRIVES).
#
#   regress-drop-drive-lines.pl < results/F.out > F.filtered
#
# Exactly these lines go, nothing else, in psql's aligned text as pg_regress
# writes it (leading space and plan indentation, no trailing text):
#   Drives: N
#   Drive D: blocks=B, rows=R, bytes=Y
# and the "(N rows)" footer of the result they were in counts that many rows
# fewer, as it would have on one drive (a result without a footer changes
# no other result's).  A line of any other shape (another
# EXPLAIN format, a line a test printed itself) stays, so it still differs.
use strict;
use warnings;

my $dropped = 0;
while (my $line = <STDIN>) {
	if ($line =~ /^ *Drives: [0-9]+\s*$/
		|| $line =~ /^ *Drive [0-9]+: blocks=[0-9]+, rows=[0-9]+, bytes=[0-9]+\s*$/) {
		$dropped++;
		next;
	}
	# a result's header rule: what was dropped before belongs to no footer
	$dropped = 0 if $line =~ /^-[-+]*\s*$/;
	if ($dropped && $line =~ /^\(([0-9]+) rows?\)\s*$/) {
		my $n = $1 - $dropped;
		$line = $n == 1 ? "(1 row)\n" : "($n rows)\n";
		$dropped = 0;
	}
	print $line;
}
