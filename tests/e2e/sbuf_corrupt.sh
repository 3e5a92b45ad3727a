#!/bin/bash
# A program that corrupts its own syscall buffer: mrr record must stop with
# one clear sentence (exit 69), and the committed trace must still read up to
# that point.
set -u
mrr=$1 prog=$2
dir=$(mktemp -d /tmp/mrr-sbuf-corrupt.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

"$mrr" record -o "$dir/t" "$prog" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 69 ] || fail "record exited $rc, expected 69"
grep -q "syscall buffer found" "$dir/out" || fail "the buffer was not found"
grep -q "still running" "$dir/out" && fail "the program ran on past the corruption"
n=$(grep -c '^mrr: ' "$dir/err")
[ "$n" -eq 2 ] || fail "expected the start line and one error line, got $n"
grep -q "^mrr: recording stopped: the syscall buffer of pid [0-9]* is corrupted" "$dir/err" ||
	fail "no clear corruption message"
"$mrr" dump "$dir/t" >"$dir/dump" 2>"$dir/dump.err" || fail "dump of the trace failed"
grep -q "pread64" "$dir/dump" || fail "the buffered preads before the corruption are missing"
echo "ok: corrupted buffer refused; trace readable ($(wc -l <"$dir/dump") events)"
