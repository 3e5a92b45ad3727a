#!/bin/bash
# sigaction_untraced.sh MRR PROG: tests/programs/sigaction_untraced makes
# 1,650 sigaction calls, 150 of them for SIGALRM, and posix_spawn children
# make many more inside libc. Only timer-signal ones (the program's 150, and
# the spawn children's queries) may be events in the recording (rt_sigaction of other signals runs untraced: see
# src/core/seccomp_filter.h), with the syscall buffer and with -n, and both
# recordings must replay.
set -u
mrr=$1 prog=$2
dir=$(mktemp -d /tmp/mrr-sigaction-untraced.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

for opt in "" -n; do
	rm -rf "$dir/t"
	timeout 120 "$mrr" record $opt -o "$dir/t" "$prog" >"$dir/out" \
		2>"$dir/err" || fail "record $opt failed"
	grep -qx PASS "$dir/out" || fail "the program did not pass ($opt)"
	timeout 60 "$mrr" dump "$dir/t" >"$dir/events" 2>"$dir/err" ||
		fail "dump failed"
	timer=$(grep -cE 'rt_sigaction\((SIGALRM|SIGVTALRM|SIGPROF),' \
		"$dir/events")
	other=$(grep 'rt_sigaction(' "$dir/events" |
		grep -vE 'rt_sigaction\((SIGALRM|SIGVTALRM|SIGPROF),')
	[ "$timer" -ge 150 ] ||
		fail "record $opt: $timer SIGALRM events, expected 150 or more"
	[ -z "$other" ] ||
		fail "record $opt: events for other signals: $(head -3 <<<"$other")"
	timeout 120 "$mrr" replay -q "$dir/t" >"$dir/rout" 2>"$dir/err" ||
		fail "replay $opt failed"
done
echo "ok: only the timer signals' sigactions were events, with and without -n"
