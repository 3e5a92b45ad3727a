#!/bin/bash
# echo_full.sh: the replay cannot echo the program's output.
#
#   echo_full.sh --mrr PATH -- PROG [ARGS...]
#
# Records PROG (which must print to stdout), then replays it with stdout
# on /dev/full: the replay must exit 74 with one line on stderr naming the
# event and saying the device is full, rather than exit 0 with the output
# lost. A replay with stdout on a file must still exit 0 and echo the
# recorded stdout byte for byte. Exits 0 when all held, 1 otherwise.

set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

mrr=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr PATH -- PROG [ARGS...]" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || { echo "usage: $0 --mrr PATH -- PROG" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-echo.XXXXXX") || exit 1

run record "$mrr" record -o "$T/trace" -- "$@"
[ $rc = 0 ] || die "mrr record exited $rc: $(cat "$T/record.err")"
[ -s "$T/record.out" ] || die "the program printed nothing to stdout"

timeout -k 5 60 "$mrr" replay "$T/trace" >/dev/full 2>"$T/full.err" </dev/null
rc=$?
lines=$(grep -c . "$T/full.err")
if [ $rc != 74 ]; then
	fail "replay to /dev/full exited $rc, expected 74:"
	sed 's/^/    /' "$T/full.err"
elif [ "$lines" != 1 ] ||
	! grep -q '^mrr: event [0-9]* pid [0-9]*: cannot echo what the program wrote to stdout: No space left on device$' "$T/full.err"; then
	fail "replay to /dev/full: expected one line naming the event, got:"
	sed 's/^/    /' "$T/full.err"
else
	echo "ok: replay to /dev/full: $(cat "$T/full.err")"
fi

run replay "$mrr" replay "$T/trace"
if [ $rc != 0 ] || ! cmp -s "$T/record.out" "$T/replay.out"; then
	fail "replay to a file exited $rc or echoed other bytes"
else
	echo "ok: replay to a file echoes the recorded stdout"
fi

if [ $hard_failed = 0 ]; then
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
