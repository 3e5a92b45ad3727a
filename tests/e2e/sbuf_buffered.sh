#!/bin/bash
# sbuf_buffered.sh MRR PROG: the calls tests/programs/sbuf_open makes 2000
# times each must show in `mrr dump -s` as buffered (at least 2000 of
# them), not traced; and the replay of that recording must pass.
set -u
mrr=$1 prog=$2
dir=$(mktemp -d /tmp/mrr-sbuf-buffered.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

timeout 120 "$mrr" record -o "$dir/t" "$prog" >"$dir/out" 2>"$dir/err" ||
	fail "record failed"
grep -qx PASS "$dir/out" || fail "the program did not pass"
timeout 60 "$mrr" dump -s "$dir/t" >"$dir/stats" 2>"$dir/err" ||
	fail "dump -s failed"
for call in openat access readlink readlinkat getuid getgid geteuid getegid; do
	n=$(awk -v c="$call" '$1 == c && $4 == "buffered)" {
		sub(/^\(/, "", $3); print $3 }' "$dir/stats")
	[ -n "$n" ] && [ "$n" -ge 2000 ] ||
		fail "$call: ${n:-no} buffered calls, expected at least 2000:
$(grep -w "$call" "$dir/stats")"
done
timeout 120 "$mrr" replay -q "$dir/t" >"$dir/rout" 2>"$dir/err" ||
	fail "replay failed"
echo "ok: open, access, readlink and the id calls were buffered"
