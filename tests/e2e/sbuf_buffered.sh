#!/bin/bash
# sbuf_buffered.sh MRR SBUF_OPEN SBUF_PIPE SBUF_REALPATH: the calls
# tests/programs/sbuf_open makes 2000 times each must show in `mrr dump -s`
# as buffered (at least 2000 of them), not traced, and so must the 500
# reads and 500 readvs tests/programs/sbuf_pipe makes of a pipe that holds
# data, and the readlinks inside the 1200 realpath calls of
# tests/programs/sbuf_realpath (at least 3600 of them); the replays of all
# three recordings must pass.
set -u
mrr=$1 prog=$2 pipe_prog=$3 realpath_prog=$4
dir=$(mktemp -d /tmp/mrr-sbuf-buffered.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

timeout 120 "$mrr" record -o "$dir/t" "$prog" >"$dir/out" 2>"$dir/err" ||
	fail "record failed"
grep -qx PASS "$dir/out" || fail "the program did not pass"
timeout 60 "$mrr" dump -s "$dir/t" >"$dir/stats" 2>"$dir/err" ||
	fail "dump -s failed"
# expect STATS CALL MIN: at least MIN of CALL buffered
expect() {
	local n
	n=$(awk -v c="$2" '$1 == c && $4 == "buffered)" {
		sub(/^\(/, "", $3); print $3 }' "$1")
	[ -n "$n" ] && [ "$n" -ge "$3" ] ||
		fail "$2: ${n:-no} buffered calls, expected at least $3:
$(grep -w "$2" "$1")"
}
for call in openat access readlink readlinkat getuid getgid geteuid getegid; do
	expect "$dir/stats" "$call" 2000
done
timeout 120 "$mrr" replay -q "$dir/t" >"$dir/rout" 2>"$dir/err" ||
	fail "replay failed"

timeout 120 "$mrr" record -o "$dir/p" "$pipe_prog" >"$dir/out" 2>"$dir/err" ||
	fail "record of the pipe reader failed"
grep -qx PASS "$dir/out" || fail "the pipe reader did not pass"
timeout 60 "$mrr" dump -s "$dir/p" >"$dir/pstats" 2>"$dir/err" ||
	fail "dump -s failed"
expect "$dir/pstats" read 500
expect "$dir/pstats" readv 500
timeout 120 "$mrr" replay -q "$dir/p" >"$dir/rout" 2>"$dir/err" ||
	fail "replay of the pipe reader failed"
timeout 120 "$mrr" record -o "$dir/r" "$realpath_prog" >"$dir/out" \
	2>"$dir/err" || fail "record of the realpath program failed"
grep -qx PASS "$dir/out" || fail "the realpath program did not pass"
timeout 60 "$mrr" dump -s "$dir/r" >"$dir/rstats" 2>"$dir/err" ||
	fail "dump -s failed"
expect "$dir/rstats" readlink 3600
timeout 120 "$mrr" replay -q "$dir/r" >"$dir/rout" 2>"$dir/err" ||
	fail "replay of the realpath program failed"
echo "ok: open, access, readlink, the id calls, pipe reads and realpath's" \
	"readlinks were buffered"
