#!/bin/bash
# preempt_exit_alternate.sh MRR PROG [-n]: PROG
# (tests/programs/preempt_exit_alternate.c) runs two long loops in turn
# until a timer signal. Points at the exit of each loop must be counted
# (the exit keeps counting while the task runs the other loop), not
# searched with a memory digest each: at most one searched point in ten.
# The replay must print what the recording printed.
set -u
mrr=$1
prog=$2
shift 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MRR_PREEMPT_STATS=1 timeout -k 5 100 "$mrr" record "$@" -o "$T/trace" -- \
	"$prog" >"$T/rec.out" 2>"$T/rec.err"
rc=$?
if [ $rc != 0 ] || ! grep -q '^PASS$' "$T/rec.out"; then
	echo "FAIL: record exit $rc"
	tail -5 "$T/rec.out" "$T/rec.err"
	exit 1
fi
line=$(grep 'record preemption points:' "$T/rec.err")
re='points: ([0-9]+) \(([0-9]+) counted, ([0-9]+) searched\)'
if ! [[ $line =~ $re ]]; then
	echo "FAIL: no preemption statistics in the record's output"
	cat "$T/rec.err"
	exit 1
fi
points=${BASH_REMATCH[1]} searched=${BASH_REMATCH[3]}
if [ "$points" -lt 30 ] || [ $((searched * 10)) -gt "$points" ]; then
	echo "FAIL: $points points, $searched of them searched (want >= 30" \
		"points, at most one in ten searched)"
	echo "$line"
	exit 1
fi
timeout -k 5 100 "$mrr" replay "$T/trace" >"$T/rep.out" 2>"$T/rep.err"
rrc=$?
if [ $rrc != 0 ] || ! cmp -s "$T/rec.out" "$T/rep.out"; then
	echo "FAIL: replay exit $rrc; recorded vs replayed:"
	diff "$T/rec.out" "$T/rep.out"
	tail -5 "$T/rep.err"
	exit 1
fi
echo "ok: $points points, $searched searched ($*)"
