#!/bin/bash
# divergence_shared.sh --mrr MRR --edit TRACE_EDIT -- SHARED_ANON_CHILD
#
# A divergence in a process that shares writable memory with other live
# processes must say so, since a race on that memory is the likeliest cause
# mrr cannot prevent (issue 10). Records shared_anon_child without the
# syscall buffer, changes the result of the child's write to stdout, and
# checks that the replay exits 70 with a note naming the shared mapping.
. "$(dirname "$0")/edited_trace_lib.sh" divshared "$@"

timeout 60 "$mrr" record -n -o "$dir/t" -- "${prog[@]}" >/dev/null 2>&1 ||
	fail "recording failed"
parent=$("$mrr" dump "$dir/t" | awk '$3 == "exec" { print $2; exit }')
# the position, among all write events, of the child's first write
nth=$("$mrr" dump "$dir/t" | awk -v p="$parent" '
	$3 == "syscall" && $4 ~ /^write\(/ { n++; if ($2 != p) { print n; exit } }')
[ -n "$nth" ] || fail "no write by the child in the trace"
"$edit" --nr 1 --nth "$nth" --result 3 "$dir/t" "$dir/edited" >/dev/null ||
	fail "trace_edit failed"
timeout 60 "$mrr" replay -q "$dir/edited" 2>"$dir/err"
rc=$?
[ $rc -eq 70 ] || fail "replay exited $rc, expected 70: $(cat "$dir/err")"
grep -q "^mrr:   note: pid [0-9]* shares writable memory with other processes" \
	"$dir/err" || fail "no shared-memory note: $(cat "$dir/err")"
grep -q "^mrr:     0x[0-9a-f]*-0x[0-9a-f]* " "$dir/err" ||
	fail "the note names no mapping: $(cat "$dir/err")"
echo "ok: the divergence names the shared mapping"
rm -rf "$dir"
