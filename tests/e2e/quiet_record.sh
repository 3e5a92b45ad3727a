#!/bin/bash
# quiet_record.sh --mrr MRR
#
# A recording never waits in silence (issue 10). `sh -c 'sleep 3; echo x'`
# has every task blocked (the shell in wait4, sleep in clock_nanosleep) and
# no stop for 3 s: with MRR_RECORD_QUIET=1, mrr record must say once what
# each task waits for, at which event, then go on to the end (exit 0) and
# the trace must replay. And SIGTERM must end a recording whose tasks all
# wait, keeping a trace that replays.
set -u
mrr=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	*) echo "usage: $0 --mrr MRR" >&2; exit 2 ;;
	esac
done
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-quiet.XXXXXX") || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

MRR_RECORD_QUIET=1 timeout 60 "$mrr" record -o "$T/t" -- sh -c 'sleep 3; echo x' \
	>"$T/out" 2>"$T/err" </dev/null
rc=$?
[ $rc = 0 ] || fail "record exited $rc: $(cat "$T/err")"
[ "$(cat "$T/out")" = x ] || fail "record's output: $(cat "$T/out")"
[ "$(grep -c '^mrr: no recorded task has stopped for 1 s, at event [0-9]*, and none runs:$' "$T/err")" = 1 ] ||
	fail "no single quiet report: $(cat "$T/err")"
grep -q '^mrr:   pid [0-9]* is in wait4' "$T/err" ||
	fail "the report does not show the shell in wait4: $(cat "$T/err")"
grep -q '^mrr:   pid [0-9]* is in clock_nanosleep' "$T/err" ||
	fail "the report does not show sleep in clock_nanosleep: $(cat "$T/err")"
timeout 60 "$mrr" replay -q "$T/t" >/dev/null 2>"$T/rep.err" ||
	fail "the trace did not replay: $(cat "$T/rep.err")"

timeout -k 10 -s TERM 2 "$mrr" record -o "$T/term" -- sh -c 'sleep 60' \
	>/dev/null 2>"$T/term.err" </dev/null
rc=$?
[ $rc != 137 ] || fail "SIGTERM did not end the recording (killed)"
grep -q "^mrr: recording interrupted by Terminated" "$T/term.err" ||
	fail "no interruption message: $(cat "$T/term.err")"
timeout 60 "$mrr" replay -q "$T/term" >/dev/null 2>"$T/rep2.err" ||
	fail "the interrupted trace did not replay: $(cat "$T/rep2.err")"

[ $failed = 0 ] && echo "ok: quiet recording reported, SIGTERM ended a waiting one" &&
	rm -rf "$T" && exit 0
echo "--- kept $T"
exit 1
