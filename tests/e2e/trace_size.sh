#!/bin/bash
# trace_size.sh --mrr MRR [--bound MIB] -- PROG [ARGS...]: a trace grows
# with the data a program really wrote or mapped, never with the sizes it
# declared (sparse files, memfds and SysV segments of GiBs, ftruncate and
# mremap lengths, MAP_NORESERVE regions). PROG (sparse_declared.c) declares
# tens of GiB and writes about 1 MiB. Recorded with and without the syscall
# buffer (and as nobody, when run as root), each trace must stay under
# MIB (default 64) on disk (du) and in its event stream uncompressed (dump
# -s), and replay with the recorded output. The trace directory is on a
# tmpfs of twice the bound when the script runs as root, so that a trace
# that grows without bound fails fast instead of filling a disk.
set -u
mrr="" bound=64
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--bound) bound=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR [--bound MIB] -- PROG [ARGS...]" >&2
	   exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || exit 2
mrr=$(realpath "$mrr") || exit 2
prog=$(realpath "$1") || exit 2
shift
set -- "$prog" "$@"
if [ "$(id -u)" = 0 ] && [ "${TRACE_SIZE_INNER:-}" != 1 ] &&
	command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	TRACE_SIZE_INNER=1 exec unshare -m --propagation private \
		bash "$0" --mrr "$mrr" --bound "$bound" -- "$@"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-trace-size.XXXXXX") || exit 1
chmod 755 "$T"
if [ "${TRACE_SIZE_INNER:-}" = 1 ]; then
	mount -t tmpfs -o size=$((2 * bound))m,mode=0777 mrr-trace-size "$T" ||
		exit 1
fi
failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}

run_variant() { # NAME [sudo prefix...] -- record options
	local name=$1 dir=$T/$1
	shift
	local -a as=()
	while [ "$1" != -- ]; do as+=("$1"); shift; done
	shift
	mkdir -m 0777 "$dir"
	(cd "$dir" && timeout -k 5 120 "${as[@]}" "$mrr" record "$@" -o "$dir/trace" \
		-- "$prog" "${args[@]}" >"$dir/rec.out" 2>"$dir/rec.err")
	local rc=$?
	if [ $rc != 0 ]; then
		fail "$name: mrr record exited $rc"
		sed 's/^/    /' "$dir/rec.err" | tail -n 5
		return
	fi
	local kib raw
	kib=$(du -sk "$dir/trace" | cut -f1)
	raw=$(timeout 60 "${as[@]}" "$mrr" dump -s "$dir/trace" |
		sed -n 's/^stream: [0-9]* chunks, \([0-9]*\) bytes raw.*/\1/p')
	if [ -z "$raw" ]; then
		fail "$name: dump -s shows no stream size"
	elif [ "$kib" -gt $((bound * 1024)) ] ||
		[ "$raw" -gt $((bound * 1024 * 1024)) ]; then
		fail "$name: the trace takes $kib KiB on disk, its stream" \
			"$raw bytes raw; the bound is $bound MiB"
	fi
	(cd "$dir" && timeout -k 5 120 "${as[@]}" "$mrr" replay "$dir/trace" \
		>"$dir/rep.out" 2>"$dir/rep.err")
	rc=$?
	if [ $rc != 0 ] || ! cmp -s "$dir/rec.out" "$dir/rep.out"; then
		fail "$name: replay exited $rc (expected 0 and the recorded output)"
		sed 's/^/    /' "$dir/rep.err" | tail -n 5
	else
		echo "ok: $name: trace $kib KiB on disk, stream $raw bytes raw" \
			"(bound $bound MiB), replayed"
	fi
}

prog=$1
shift
args=("$@")
run_variant buf --
run_variant nobuf -- -n
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null; then
	run_variant nobody setpriv --reuid=nobody --regid=nogroup \
		--clear-groups env HOME=/nonexistent --
fi
[ "${TRACE_SIZE_INNER:-}" = 1 ] && umount "$T"
rm -rf "$T"
exit $failed
