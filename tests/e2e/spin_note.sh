#!/bin/bash
# spin_note.sh --mrr MRR --trace-edit TRACE_EDIT -- SPIN_ON_RESULT
#
# A replay that went astray into a loop of the program's own code never
# reaches its next event, and the task it waits for keeps running, so the
# stall report (a blocked task) does not fire. Records spin_on_result
# without the syscall buffer, changes its getppid result to 1 with
# trace_edit (the program then loops for ever), and replays that with
# --stall-timeout 1: within 30 s mrr must print its note naming the event
# it waits for, and go on (the note does not end the replay); SIGTERM then
# ends it, with no process of the replay left.
set -u
mrr="" edit=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--trace-edit) edit=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR --trace-edit T -- PROG" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ -n "$edit" ] && [ $# -eq 1 ] ||
	{ echo "usage: $0 --mrr MRR --trace-edit T -- PROG" >&2; exit 2; }
prog=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-spin.XXXXXX") || exit 1
fail() {
	echo "FAIL: $*"
	[ -n "${pid:-}" ] && kill -KILL "$pid" 2>/dev/null
	pkill -KILL -f "^$prog" 2>/dev/null
	echo "--- kept $T"
	exit 1
}

timeout 60 "$mrr" record -n -o "$T/t" -- "$prog" >"$T/rec.out" 2>"$T/rec.err" ||
	fail "recording failed: $(tail -2 "$T/rec.err")"
grep -q "not spinning" "$T/rec.out" || fail "the recording spun"
"$edit" --nr 110 --result 1 "$T/t" "$T/e" >"$T/edit.out" 2>&1 ||
	fail "trace_edit failed: $(cat "$T/edit.out")"
event=$(sed -n 's/^event \([0-9]*\):.*/\1/p' "$T/edit.out")
[ -n "$event" ] || fail "trace_edit named no event"
"$mrr" replay --stall-timeout 1 "$T/e" >"$T/rep.out" 2>"$T/rep.err" &
pid=$!
for _ in $(seq 60); do
	grep -q "keeps running its own code" "$T/rep.err" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
grep -q "keeps running its own code" "$T/rep.err" ||
	fail "no note in 30 s: $(tail -3 "$T/rep.err")"
kill -0 "$pid" 2>/dev/null || fail "the note ended the replay"
note=$(grep "keeps running" "$T/rep.err")
n=$(echo "$note" | sed -n 's/^mrr: note: at event \([0-9]*\),.*/\1/p')
[ -n "$n" ] && [ "$n" -gt "$event" ] ||
	fail "the note names event '$n', not one after the changed $event: $note"
kill -TERM "$pid"
for _ in $(seq 20); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.25
done
kill -0 "$pid" 2>/dev/null && fail "SIGTERM did not end the replay in 5 s"
wait "$pid"
sleep 0.2
pgrep -f "^$prog" >/dev/null && fail "a replayed process was left behind"
echo "ok: $note"
rm -rf "$T"
