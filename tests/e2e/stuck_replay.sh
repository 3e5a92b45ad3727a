#!/bin/bash
# stuck_replay.sh --mrr MRR --edit TRACE_EDIT -- VFORK_SPAWN
#
# A replay that cannot go on must say so, not hang (issue 10). Records
# vfork_spawn, then moves the parent's wait4 before the exit of its
# vfork+_exit child, as a recorder that wrote the two in the wrong order
# would. Replaying that waits on a parent the kernel blocks in vfork: the
# watchdog must report it within --stall-timeout, naming the event, the
# task and what it is blocked in, and mrr must exit 70. A correct trace of
# the same program must replay with exit 0 under the same watchdog.
. "$(dirname "$0")/edited_trace_lib.sh" stuck "$@"
timeout 60 "$mrr" record -o "$dir/t" -- "${prog[@]}" >/dev/null 2>&1 ||
	fail "recording vfork_spawn failed"
timeout 60 "$mrr" replay --stall-timeout 2 -q "$dir/t" 2>"$dir/ok.err" ||
	fail "the unedited trace did not replay: $(cat "$dir/ok.err")"

# the child's exit event that follows the vfork whose child _exits 42
seq=$("$mrr" dump "$dir/t" | awk '$3 == "exit" && $5 == "42" { print $1; exit }')
[ -n "$seq" ] || fail "no vfork child exiting with 42 in the trace"
"$edit" --swap "$seq" "$dir/t" "$dir/swapped" >/dev/null ||
	fail "trace_edit --swap $seq failed"

start=$(date +%s)
timeout 60 "$mrr" replay --stall-timeout 2 -q "$dir/swapped" 2>"$dir/stuck.err"
rc=$?
[ $rc -ne 124 ] || fail "the replay hung (killed by timeout after 60 s)"
[ $rc -eq 70 ] || fail "replay exited $rc, expected 70: $(cat "$dir/stuck.err")"
grep -q "^mrr: replay is stuck at event $seq: .* blocked in the kernel in vfork" \
	"$dir/stuck.err" || fail "the report does not name event $seq and the blocked vfork: $(cat "$dir/stuck.err")"
grep -q "^mrr:   the event: event $seq pid [0-9]*: wait4" "$dir/stuck.err" ||
	fail "the report does not describe the awaited event: $(cat "$dir/stuck.err")"
grep -q "^mrr:   pid [0-9]* (live pid [0-9]*) is " "$dir/stuck.err" ||
	fail "the report does not list the other task: $(cat "$dir/stuck.err")"
[ "$(grep -c . "$dir/stuck.err")" -le 8 ] ||
	fail "the report is longer than expected: $(cat "$dir/stuck.err")"
pgrep -f "$dir/" >/dev/null && fail "processes of the replay are left behind"
echo "ok: stuck replay reported after $(($(date +%s) - start)) s with exit 70"
rm -rf "$dir"
