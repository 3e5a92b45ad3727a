#!/bin/bash
# disk_full.sh: the trace's file system fills up while mrr records.
#
#   disk_full.sh --mrr PATH [--size SIZE] [--inner] -- PROG [ARGS...]
#
# As root, in a private mount namespace (unshare -m), mounts a tmpfs of
# SIZE (default 8m) and records PROG onto it; PROG must write more trace
# than fits (tests/programs/hostile_urandom reads incompressible bytes).
# Then:
#   - mrr record exits 73 and, besides its "recording" line, prints exactly
#     one line, which says the disk is full ("No space left on device");
#   - no recorded process is left running or stopped;
#   - `mrr replay TRACE` refuses the trace with 65, one line saying it is
#     incomplete;
#   - `mrr dump -f TRACE` salvages a prefix (exit 0, at least the exec
#     event) and `mrr replay -f TRACE` replays it (exit 0).
# With a SIZE below what the program's executable and libraries take up,
# the disk fills while mrr stores them rather than while it writes events.
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
size=8m
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

small_tmpfs $inner mrr-diskfull "$size" "${orig_args[@]}"
tr=$T/small/trace
ulimit -c 0
what="recording $(basename "$1") onto a $size tmpfs"

HARD_TIMEOUT=120
run rec "${MARK[@]}" "$mrr" record -o "$tr" -- "$@"
status=$rc
if ! left=$(wait_no_leftovers); then
	fail "$what: recorded processes survive:" $left
	kill_leftovers
fi
msg=$(mrr_lines rec)
if [ $status != 73 ]; then
	fail "$what: mrr record exited $status, expected 73"
	show rec
elif [ "$(echo "$msg" | wc -l)" != 1 ] ||
	! echo "$msg" | grep -q 'No space left on device'; then
	fail "$what: mrr record did not print one line about the full disk:"
	show rec
fi
grep -v '^mrr:' "$T/rec.err" | grep -q . &&
	echo "note: the program's own stderr: $(grep -v '^mrr:' "$T/rec.err")"

run replay "$mrr" replay "$tr"
if [ $rc != 65 ] || ! one_line replay || ! grep -q incomplete "$T/replay.err"
then
	fail "$what: replay of the trace exited $rc, expected 65 and one line" \
		"saying incomplete:"
	show replay
fi
run dump "$mrr" dump -f "$tr"
events=$(grep -c '^[0-9]' "$T/dump.out")
# A disk that fills while mrr stores the executable, before the first event
# is written, leaves an empty prefix: still a readable one.
if [ $rc != 0 ]; then
	fail "$what: dump -f exited $rc with $events events:"
	show dump
fi
run salvage "${MARK[@]}" "$mrr" replay -f "$tr"
if [ $rc != 0 ]; then
	fail "$what: replay -f of the salvaged $events events exited $rc:"
	show salvage
fi
if ! left=$(wait_no_leftovers); then
	fail "$what: the salvaged replay left processes behind:" $left
	kill_leftovers
fi

if [ $hard_failed = 0 ]; then
	echo "ok: $what: exit 73, '$msg'; refused as incomplete; $events" \
		"events salvaged and replayed"
	umount "$T/small"
	rm -rf "$T"
	exit 0
fi
cp -a "$tr" "$T/trace" 2>/dev/null
umount "$T/small"
echo "--- kept $T (the trace copied to $T/trace)"
exit 1
