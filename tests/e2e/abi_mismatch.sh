#!/bin/bash
# abi_mismatch.sh --mrr MRR --trace-edit TRACE_EDIT -- PROG [ARGS...]
#
# A trace whose header names another syscall buffer protocol than this
# mrr's (an older or newer mrr recorded it) must be refused by `mrr replay`
# with exit 65 and one line naming both versions, before the program runs;
# `mrr dump` still reads it (exit 0). The unchanged trace replays (exit 0).
set -u
mrr="" edit=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--trace-edit) edit=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR --trace-edit TOOL -- PROG" >&2; exit 2 ;;
	esac
done
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-abi.XXXXXX") || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

timeout 60 "$mrr" record -o "$T/trace" -- "$@" >"$T/rec.out" 2>"$T/rec.err" </dev/null ||
	fail "record exited $?: $(cat "$T/rec.err")"
timeout 60 "$mrr" replay "$T/trace" >/dev/null 2>"$T/rep.err" </dev/null ||
	fail "the unchanged trace's replay exited $?: $(cat "$T/rep.err")"
for abi in 1 99; do
	"$edit" --abi $abi "$T/trace" "$T/abi$abi" >/dev/null 2>"$T/edit.err" ||
		{ fail "trace_edit --abi $abi: $(cat "$T/edit.err")"; continue; }
	timeout 60 "$mrr" replay "$T/abi$abi" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ $rc != 65 ] || [ "$(grep -c . "$T/err")" != 1 ] ||
		! grep -q "recorded with syscall buffer protocol $abi, and this mrr replays protocol [0-9]*: replay it with the mrr that recorded it" "$T/err" ||
		[ -s "$T/out" ]; then
		fail "protocol $abi: replay exited $rc (expected 65, one line, no output):"
		sed 's/^/    /' "$T/err"
	else
		echo "ok: protocol $abi: $(cat "$T/err")"
	fi
	timeout 60 "$mrr" dump "$T/abi$abi" >/dev/null 2>"$T/err" ||
		fail "protocol $abi: dump exited $?: $(cat "$T/err")"
done
[ $failed = 0 ] && rm -rf "$T" && exit 0
echo "--- kept $T"
exit 1
