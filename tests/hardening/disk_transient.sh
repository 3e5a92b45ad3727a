#!/bin/bash
# disk_transient.sh: the recorded program fills the trace's file system for
# a while and frees it again (stress-ng resources does that to /tmp).
#
#   disk_transient.sh --mrr PATH [--size SIZE] [--inner] -- PROG [ARGS...]
#
# As root, in a private mount namespace (unshare -m), mounts a tmpfs of
# SIZE (default 48m), and runs PROG ARGS DIR, DIR a directory on it, first
# natively, then recorded onto the same tmpfs (tests/hardening/fill_fs.c
# fills DIR, maps new files and writes events while it is full). Then:
#   - mrr record exits as the native run did (0), with the same output,
#     and no mrr line besides its "recording" line;
#   - `mrr replay TRACE` exits 0 with that output.
# Exits 77 when not root or unshare is missing, 0 when all held, 1
# otherwise. --inner is how the script calls itself inside the namespace.

set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH [--size SIZE] -- PROG [ARGS...]" >&2
	exit 2
}

mrr=""
size=48m
inner=0
orig_args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--size) [ $# -ge 2 ] || usage; size=$2; shift 2 ;;
	--inner) inner=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || usage

small_tmpfs $inner mrr-disktrans "$size" "${orig_args[@]}"
mkdir "$T/small/run"
tr=$T/small/trace
ulimit -c 0
what="$(basename "$1") filling the trace's $size tmpfs"

HARD_TIMEOUT=120
run native "$@" "$T/small/run"
nrc=$rc
[ $nrc = 0 ] || die "$what: the native run exited $nrc: $(cat "$T/native.out")"
run rec "${MARK[@]}" "$mrr" record -o "$tr" -- "$@" "$T/small/run"
if [ $rc != 0 ]; then
	fail "$what: mrr record exited $rc, natively 0"
	show rec
elif [ -n "$(mrr_lines rec)" ]; then
	fail "$what: mrr record printed:"
	show rec
fi
if ! left=$(wait_no_leftovers); then
	fail "$what: recorded processes survive:" $left
	kill_leftovers
fi
# the memfd lines name the pid, which differs from the native run's
if [ "$(grep -c . "$T/rec.out")" != "$(grep -c . "$T/native.out")" ] ||
	! grep -q '^PASS$' "$T/rec.out"; then
	fail "$what: the recorded run printed something else than natively:"
	sed 's/^/    /' "$T/rec.out"
fi
run replay "$mrr" replay "$tr"
if [ $rc != 0 ] || ! cmp -s "$T/rec.out" "$T/replay.out"; then
	fail "$what: replay exited $rc (expected 0 and the recorded output)"
	show replay
fi
if [ $hard_failed = 0 ]; then
	echo "ok: $what: recorded (exit 0, $(du -sh "$tr" | cut -f1)" \
		"trace) and replayed"
	umount "$T/small"
	rm -rf "$T"
	exit 0
fi
cp -a "$tr" "$T/trace" 2>/dev/null
umount "$T/small"
echo "--- kept $T (the trace copied to $T/trace)"
exit 1
