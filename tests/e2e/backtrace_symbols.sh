#!/bin/bash
# backtrace_symbols.sh --mrr MRR -- PROG
#
# `mrr record --backtrace` names a frame by a symbol only when that symbol
# is the function holding the address (issue 10: stripped libraries gave
# names such as malloc_usable_size+0x63734). Records PROG, which makes
# madvise calls from main, and checks every stored frame:
#   - a frame "SYM+0xOFF (FILE)" whose SYM is in FILE's dynamic symbol
#     table must have OFF below that symbol's size;
#   - a frame named after its file ("libc.so.6+0xOFF") must be in that file;
#   - main appears, and the trace replays.
# The checks read the libraries' own symbol tables, so they hold whatever
# the C library's layout.
set -u
mrr="" 
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR -- PROG" >&2; exit 2 ;;
	esac
done
command -v readelf >/dev/null || { echo "SKIP: no readelf"; exit 77; }
dir=$(mktemp -d /tmp/mrr-btsym.XXXXXX)
fail() { echo "FAIL: $*"; echo "--- kept $dir"; exit 1; }

timeout 60 "$mrr" record -n --backtrace -o "$dir/t" -- "$@" >/dev/null 2>&1 ||
	fail "record --backtrace failed"
timeout 60 "$mrr" replay -q "$dir/t" 2>/dev/null || fail "replay failed"
"$mrr" dump "$dir/t" | sed -n 's/^      0x[0-9a-f]* //p' >"$dir/frames"
[ -s "$dir/frames" ] || fail "no backtrace frames stored"
grep -q '^main+0x' "$dir/frames" || fail "no frame names main"

checked=0
while read -r what file; do
	file=${file#(}
	file=${file%)}
	name=${what%+0x*}
	off=$((16#${what##*+0x}))
	[ -f "$file" ] || continue
	if [ "$name" = "$(basename "$file")" ]; then
		size=$(stat -c %s "$file")
		[ "$off" -lt "$size" ] || fail "frame $what is past the end of $file"
		checked=$((checked + 1))
		continue
	fi
	# the symbol's size in the file's dynamic or full symbol table
	sym_size=$(readelf -sW --dyn-syms "$file" 2>/dev/null |
		awk -v n="$name" '$8 == n || $8 ~ ("^" n "@") { print $3; exit }')
	[ -n "$sym_size" ] || continue # named from debug info we do not read
	case $sym_size in 0x*) sym_size=$((sym_size)) ;; esac
	[ "$sym_size" -eq 0 ] || [ "$off" -lt "$sym_size" ] ||
		fail "frame $what in $file: $name is only $sym_size bytes long"
	checked=$((checked + 1))
done <"$dir/frames"
[ "$checked" -gt 0 ] || fail "no frame could be checked"
echo "ok: $checked frames checked, each named by the function holding it or by its file"
rm -rf "$dir"
