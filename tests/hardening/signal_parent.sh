#!/bin/bash
# signal_parent.sh: a recorded program that signals mrr (its parent at
# record) or its own process group must not stop or interrupt the
# recording.
#
#   signal_parent.sh --mrr PATH [--nobuf] -- PROG [ARGS...]
#
# Records PROG in a session of its own (setsid), so that a signal to the
# process group reaches only mrr and PROG. Checks that mrr record exits 0
# in time with PROG's PASS, and that the replay exits 0 with the same
# stdout. Exits 0 or 1 (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

mrr=""
nobuf=()
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--nobuf) nobuf=(-n); shift ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr PATH [--nobuf] -- PROG [ARGS...]" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || exit 2
command -v setsid >/dev/null || skip "no setsid"

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-sigparent.XXXXXX") || exit 1
HARD_TIMEOUT=30
run rec "${MARK[@]}" setsid -w "$mrr" record "${nobuf[@]}" -o "$T/trace" \
	-- "$@"
if [ $rc = 124 ]; then
	fail "mrr record did not finish in ${HARD_TIMEOUT}s (stopped?)"
	kill_leftovers
elif [ $rc != 0 ]; then
	fail "mrr record exited $rc, expected 0:"
	show rec
elif [ "$(tail -n 1 "$T/rec.out")" != PASS ]; then
	fail "the recorded program did not print PASS:"
	show rec
else
	run replay "${MARK[@]}" "$mrr" replay "$T/trace"
	[ $rc = 0 ] || { fail "mrr replay exited $rc:"; show replay; }
	cmp -s "$T/rec.out" "$T/replay.out" ||
		fail "the replay's stdout differs from the recording's"
fi
if ! left=$(wait_no_leftovers); then
	fail "processes left behind:" $left
	kill_leftovers
fi
if [ $hard_failed = 0 ]; then
	echo "ok: $(basename "$1")${nobuf:+ (-n)}: mrr took no signal from it"
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
