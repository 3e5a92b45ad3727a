#!/bin/bash
# preempt_sigint.sh MRR PROG [-n]: a signal from a process outside the
# recording (this script) reaches a program that computes in user code.
# PROG catches SIGINT and computes until it comes; the script records it,
# sends SIGINT to the program (not to mrr) once it printed "ready", then
# replays the trace, which must print what the recording printed.
set -u
mrr=$1
prog=$2
shift 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
timeout -k 5 60 "$mrr" record "$@" -o "$T/trace" -- "$prog" >"$T/rec.out" \
	2>"$T/rec.err" &
mrr_pid=$!
for _ in $(seq 1 200); do
	grep -q ready "$T/rec.out" 2>/dev/null && break
	sleep 0.05
done
# timeout's child is mrr, mrr's child is the program
pid=$(pgrep -P "$(pgrep -P $mrr_pid | head -1)" | head -1)
[ -n "$pid" ] || { echo "FAIL: the recorded program was not found"; exit 1; }
kill -INT "$pid"
wait $mrr_pid
rc=$?
grep -q "^SIGINT after" "$T/rec.out" || {
	echo "FAIL: the recorded program did not see SIGINT (mrr exit $rc)"
	cat "$T/rec.out" "$T/rec.err"
	exit 1
}
timeout -k 5 120 "$mrr" replay "$T/trace" >"$T/rep.out" 2>"$T/rep.err"
rrc=$?
if [ $rrc != 0 ] || ! cmp -s "$T/rec.out" "$T/rep.out"; then
	echo "FAIL: replay exit $rrc; recorded vs replayed:"
	diff "$T/rec.out" "$T/rep.out"
	tail -20 "$T/rep.err"
	"$mrr" dump "$T/trace" | grep -E "preempt|signal" | tail -5
	exit 1
fi
echo "ok: $(cat "$T/rec.out" | tail -1) ($*)"
"$mrr" dump "$T/trace" | grep -E "preempt|signal" | tail -3
