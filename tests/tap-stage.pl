#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# tap-stage.pl LOG: count the TAP results of one make check stage.
#
# A stage's log holds its TAP document among other output (build logs):
# the lines that start, after their indentation, with "ok", "not ok", a
# plan "1..N", "TAP version" or "#". An indented block of such lines is a
# nested document (KTAP subtest: a guest's suite under its host-side
# wrapper, a kselftest under the suite), and each document is parsed on its
# own with TAP::Parser. A document with tests and no plan, a plan after
# its tests (the plan comes first, so that a block that never ran shows as
# missing tests), a plan that does not match the tests run, or tests out of
# sequence is one failure more (per document).
#
# Every stage prints a TAP document of its own, not indented, with its
# plan: a log without one is a failure too (a stage that never got to its
# tests).
#
# A test counts as passed only when it is "ok" with no directive, as
# skipped when it is "ok # SKIP"; "not ok" (with or without a directive)
# and any "# TODO" count as failed. A document that plans no test
# ("1..0") fails unless the plan says why ("1..0 # SKIP reason").
#
# Prints the failed and skipped tests (indented by two), a "not ok" line
# for each document with errors (the first one named), and last "PASSED
# FAILED SKIPPED" over all documents.
use strict;
use warnings;
use TAP::Parser;

my $log = shift or die "usage: tap-stage.pl LOG\n";
open(my $fh, '<', $log) or die "tap-stage.pl: $log: $!\n";

# Documents: indentation, first line number, TAP text. A stack holds the
# open ones: a TAP line indented deeper than the innermost opens a nested
# one; a line indented less closes the deeper ones.
my (@docs, @stack);
while (my $line = <$fh>) {
	chomp $line;
	$line =~ s/\r$//;
	next unless $line =~ /^( *)((?:not )?ok\b|\d+\.\.\d+|TAP version |#)/;
	my $indent = length $1;
	pop @stack while @stack && $stack[-1]{indent} > $indent;
	if (!@stack || $stack[-1]{indent} < $indent) {
		my $doc = { indent => $indent, line => $., tap => '' };
		push @docs, $doc;
		push @stack, $doc;
	}
	$stack[-1]{tap} .= substr($line, $indent) . "\n";
}
close $fh;

my ($pass, $fail, $skip, $top_plan) = (0, 0, 0, 0);
for my $doc (@docs) {
	my $parser = TAP::Parser->new({ tap => $doc->{tap} });
	my ($tests, $late_plan) = (0, 0);
	while (my $r = $parser->next) {
		$late_plan = 1 if $r->is_plan && $tests;
		next unless $r->is_test;
		$tests++;
		# The test's own ok/not ok first: "not ok # SKIP" is a failure,
		# and a TODO directive (which TAP::Parser counts as ok either
		# way) is one too, since no test here may be excused as TODO.
		if (!$r->is_actual_ok || $r->has_todo) {
			$fail++;
			print '  ', $r->as_string, "\n";
		} elsif ($r->has_skip) {
			$skip++;
			print '  ', $r->as_string, "\n";
		} else {
			$pass++;
		}
	}
	# comments only (a "# running ..." line, build messages): no document
	next if !$tests && !$parser->plan;
	$top_plan = 1 if !$doc->{indent} && $parser->plan;
	my @errors = $parser->parse_errors;
	unshift @errors, 'the plan comes after the tests' if $late_plan;
	# "1..0" plans no test: only with "# SKIP reason" (nothing could
	# run here, and it says why); a bare one is a filter that matched
	# nothing or a producer that found nothing to do, a failure.
	unshift @errors, 'a plan of no tests (1..0) without "# SKIP reason"'
	    if defined $parser->tests_planned && $parser->tests_planned == 0 &&
	    ($parser->skip_all // '') =~ /^(\(no reason given\))?$/;
	next unless @errors;
	$fail++;
	print "  not ok - the TAP at line $doc->{line} of $log",
	    ($doc->{indent} ? " (nested, indented $doc->{indent})" : ''), ": $errors[0]",
	    (@errors > 1 ? ' (and ' . (@errors - 1) . ' more errors)' : ''), "\n";
}
if (!$top_plan) {
	$fail++;
	print "  not ok - $log has no TAP plan of its own (a line 1..N, not indented)\n";
}
print "$pass $fail $skip\n";
