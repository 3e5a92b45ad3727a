#!/bin/bash
# term_busy.sh: SIGINT or SIGTERM to `mrr record` while mrr itself is busy
# (storing a huge mapped file, say) must end the recording within a bound.
#
#   term_busy.sh --mrr PATH [--signal SIG] [--bound S] -- PROG [ARGS...]
#
# Starts `mrr record -o TRACE PROG ARGS`, waits until the program runs and
# then one second more, and sends SIG (default TERM) to mrr alone. Checks:
#   - mrr exits within S seconds (default 20, generous on purpose: the
#     promise is "within a second", this only catches a recorder that does
#     not listen), with status 128+N;
#   - no recorded process is left;
#   - the trace is committed as interrupted (`mrr dump -s`), and
#     `mrr replay TRACE` exits 0.
# Exits 0 when all held, 1 otherwise (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH [--signal SIG] [--bound S] -- PROG" \
		"[ARGS...]" >&2
	exit 2
}

mrr=""
sig=TERM
bound=20
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--signal) [ $# -ge 2 ] || usage; sig=$2; shift 2 ;;
	--bound) [ $# -ge 2 ] || usage; bound=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || usage
num=$(kill -l "$sig") || usage

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-term-busy.XXXXXX") || exit 1
ulimit -c 0
tr=$T/trace
what="SIG$sig to a busy mrr record of $(basename "$1")"

"${MARK[@]}" "$mrr" record -o "$tr" -- "$@" >"$T/rec.out" 2>"$T/rec.err" \
	</dev/null &
pid=$!
for _ in $(seq 1 250); do
	[ -n "$(leftovers | grep -v " $(basename "$mrr")\$")" ] && break
	sleep 0.02
done
sleep 1
kill -"$sig" "$pid"
ended=0
for _ in $(seq 1 $((bound * 10))); do
	if ! kill -0 "$pid" 2>/dev/null; then
		ended=1
		break
	fi
	sleep 0.1
done
if [ $ended = 0 ]; then
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	kill_leftovers
	die "$what: mrr record still runs $bound s after the signal"
fi
wait "$pid"
status=$?
if ! left=$(wait_no_leftovers); then
	fail "$what: recorded processes survive:" $left
	kill_leftovers
fi
[ $status = $((128 + num)) ] ||
	{ fail "$what: mrr record exited $status, expected $((128 + num))"; show rec; }

run dump "$mrr" dump -s "$tr"
state=$(sed -n 's/^status: //p' "$T/dump.out")
[ $rc = 0 ] && [ "$state" = interrupted ] ||
	{ fail "$what: mrr dump -s exited $rc, status '$state'"; show dump; }
run replay "${MARK[@]}" "$mrr" replay "$tr"
[ $rc = 0 ] || { fail "$what: mrr replay exited $rc:"; show replay; }
if ! left=$(wait_no_leftovers); then
	fail "$what: the replay left processes behind:" $left
	kill_leftovers
fi

if [ $hard_failed = 0 ]; then
	echo "ok: $what: exit $status, $state"
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
