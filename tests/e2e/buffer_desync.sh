#!/bin/bash
# buffer_desync.sh --mrr MRR --edit TRACE_EDIT -- PROG
#
# When a buffered call at replay is not the one the trace's syscall buffer
# record holds, the divergence report names both: the call the program made
# and the recorded call with its arguments and result (issue 10: it said
# only "did not match the recorded record at offset N"). Records PROG with
# the syscall buffer, changes an argument in its first buffer flush, and
# checks the report.
. "$(dirname "$0")/edited_trace_lib.sh" desync "$@"

timeout 60 "$mrr" record -o "$dir/t" -- "${prog[@]}" >/dev/null 2>&1 ||
	fail "recording failed"
seq=$("$mrr" dump "$dir/t" | awk '$3 == "buffer" { print $1; exit }')
[ -n "$seq" ] || { echo "SKIP: no buffered calls recorded"; rm -rf "$dir"; exit 77; }
"$edit" --buffer-arg "$seq" "$dir/t" "$dir/edited" >/dev/null ||
	fail "trace_edit --buffer-arg $seq failed"
timeout 60 "$mrr" replay -q "$dir/edited" 2>"$dir/err"
rc=$?
[ $rc -eq 70 ] || fail "replay exited $rc, expected 70: $(cat "$dir/err")"
grep -Eq "^mrr: replay diverged at event [0-9]+ .*: the program made a buffered [a-z_0-9]+ where the recording has [a-z_0-9]+\(0x[0-9a-f]+, 0x[0-9a-f]+, 0x[0-9a-f]+\) = -?[0-9]+ with [0-9]+ bytes of results" \
	"$dir/err" || fail "the report does not name both calls: $(head -1 "$dir/err")"
echo "ok: $(head -1 "$dir/err" | cut -c1-160)"
rm -rf "$dir"
