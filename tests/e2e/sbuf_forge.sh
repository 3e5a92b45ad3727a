#!/bin/bash
# A program that forges a buffered mprotect record (it claims read-write,
# the map says read-only): mrr record must not believe it, and stop with
# one clear sentence (exit 69).
set -u
mrr=$1 prog=$2
dir=$(mktemp -d /tmp/mrr-sbuf-forge.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

timeout 60 "$mrr" record -o "$dir/t" "$prog" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 69 ] || fail "record exited $rc, expected 69"
grep -q "no buffered mprotect" "$dir/out" && fail "no buffered mprotect"
grep -q "still running" "$dir/out" && fail "the program ran on past the forgery"
grep -q "^mrr: recording stopped: the syscall buffer of pid [0-9]* is corrupted (mprotect(0x[0-9a-f]*, 0x1000, 0x3) = 0 is not what the memory map shows)" "$dir/err" ||
	fail "no clear message"
echo "ok: forged mprotect record refused"
