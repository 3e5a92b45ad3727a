#!/bin/bash
# user_preload.sh: `LD_PRELOAD=LIB mrr record PROG` keeps the user's
# library (mrr adds its own after it) and the replay runs with the recorded
# environment, the user's library included.
#
#   user_preload.sh --mrr PATH --lib LIB -- PROG
#
# PROG is tests/programs/user_preload, LIB tests/e2e/user_preload_lib.c's
# library. Records with and without the syscall buffer, replays each with
# no LD_PRELOAD in mrr's own environment, and checks that both runs print
# the program's PASS line. Exits 1 on the first failure.

set -u
mrr="" lib=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--lib) lib=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr PATH --lib LIB -- PROG" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ -n "$lib" ] && [ $# -ge 1 ] || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-user-preload.XXXXXX") || exit 1
fail() {
	echo "FAIL: $*"
	for f in "$T"/*.out "$T"/*.err; do
		[ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
	done
	exit 1
}
for mode in buffer nobuf; do
	opt=()
	[ $mode = nobuf ] && opt=(-n)
	LD_PRELOAD=$lib MRR_TEST_WANT_USER_PRELOAD=1 timeout -k 5 60 \
		"$mrr" record "${opt[@]}" -o "$T/trace-$mode" -- "$@" \
		>"$T/rec-$mode.out" 2>"$T/rec-$mode.err" ||
		fail "$mode: mrr record exited $?"
	grep -qx 'user preload: loaded, its getpid wrapper runs' \
		"$T/rec-$mode.out" && grep -qx PASS "$T/rec-$mode.out" ||
		fail "$mode: the recorded program did not see the user's library"
	timeout -k 5 60 "$mrr" replay "$T/trace-$mode" \
		>"$T/rep-$mode.out" 2>"$T/rep-$mode.err" ||
		fail "$mode: mrr replay exited $?"
	cmp -s "$T/rec-$mode.out" "$T/rep-$mode.out" ||
		fail "$mode: the replay printed other output than the recording"
	echo "ok: $mode: the user's LD_PRELOAD library was kept at record and replay"
done
rm -rf "$T"
exit 0
