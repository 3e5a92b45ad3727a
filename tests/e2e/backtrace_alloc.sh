#!/bin/bash
# backtrace_alloc.sh --mrr MRR -- BT_ALLOC
#
# `mrr record --backtrace` on an allocator-like program (bench/bt_alloc.c:
# madvise(MADV_FREE) from static functions, while extents are mapped and
# unmapped). Checks, with the syscall buffer on:
#   - every madvise(MADV_FREE) has a stored backtrace, which goes from the
#     preload library's stub through to the program: purge, arena_loop,
#     main (static functions named from .symtab);
#   - the same frames when /proc/PID/maps is parsed instead of queried
#     (MRR_NO_PROCMAP_QUERY=1, kernels before 6.11);
#   - a stripped copy of the program gets the same addresses, each named
#     by its file and offset (no symbol covers them), never by another
#     function's name;
#   - the recordings replay.
set -u
mrr=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR -- BT_ALLOC" >&2; exit 2 ;;
	esac
done
prog=$1
command -v strip >/dev/null || { echo "SKIP: no strip (binutils)"; exit 77; }
dir=$(mktemp -d /tmp/mrr-btalloc.XXXXXX)
fail() { echo "FAIL: $*"; echo "--- kept $dir"; exit 1; }
calls=60

rec() { # NAME PROG [ENV...]: record and replay, frames into NAME.frames
	local name=$1 p=$2
	shift 2
	env "$@" timeout 120 "$mrr" record --backtrace -o "$dir/$name" -- \
		"$p" "$calls" 4 200 >/dev/null 2>"$dir/$name.err" ||
		fail "record --backtrace ($name) failed: $(cat "$dir/$name.err")"
	timeout 120 "$mrr" replay -q "$dir/$name" 2>"$dir/$name.rerr" ||
		fail "replay ($name) failed: $(cat "$dir/$name.rerr")"
	"$mrr" dump "$dir/$name" >"$dir/$name.dump" || fail "dump ($name) failed"
	# one paragraph per MADV_FREE call: its frames, joined by spaces
	awk '/^[0-9]+ / { if (cur != "") print cur; cur = "" ;
			  want = /MADV_FREE/ ; next }
	     want && /^      0x/ { cur = cur " " $2 }
	     END { if (cur != "") print cur }' "$dir/$name.dump" \
		>"$dir/$name.frames"
	awk '/^      0x/ { print $1 }' "$dir/$name.dump" >"$dir/$name.addrs"
	[ "$(grep -c 'MADV_FREE' "$dir/$name.dump")" -eq "$calls" ] ||
		fail "$name: expected $calls MADV_FREE calls"
	[ "$(wc -l <"$dir/$name.frames")" -eq "$calls" ] ||
		fail "$name: not every MADV_FREE call has a backtrace"
}

rec query "$prog"
while read -r frames; do
	case $frames in
	sb_traced_syscall+0x*" purge+0x"*" arena_loop+0x"*" main+0x"*) ;;
	*) fail "a backtrace does not reach the program's static functions" \
		"through the preload library: $frames" ;;
	esac
done <"$dir/query.frames"

rec parse "$prog" MRR_NO_PROCMAP_QUERY=1
cmp -s "$dir/query.frames" "$dir/parse.frames" ||
	fail "frames differ when /proc/PID/maps is parsed:" \
		"$(diff "$dir/query.frames" "$dir/parse.frames" | head -5)"

cp "$prog" "$dir/bt_stripped" && strip "$dir/bt_stripped" || fail "strip failed"
rec stripped "$dir/bt_stripped"
cmp -s "$dir/query.addrs" "$dir/stripped.addrs" ||
	fail "the stripped copy's frames are at other addresses"
grep -o ' [^ ]*+0x[0-9a-f]* (/[^)]*bt_stripped)' "$dir/stripped.dump" |
	sort -u >"$dir/stripped.names"
[ -s "$dir/stripped.names" ] || fail "no frame in the stripped program"
if grep -v '^ bt_stripped+0x' "$dir/stripped.names" | grep -q .; then
	fail "a frame of the stripped program is named by a symbol:" \
		"$(grep -v '^ bt_stripped+0x' "$dir/stripped.names" | head -3)"
fi
echo "ok: $calls backtraces each reach main through the preload library;" \
	"maps parsed gives the same; stripped frames are file+offset"
rm -rf "$dir"
