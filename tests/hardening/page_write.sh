#!/bin/bash
# page_write.sh: a trace whose recorded memory writes reach mrr's page must
# be refused as corrupt (exit 65) by mrr replay, in time, with one sentence.
#
#   page_write.sh --mrr PATH --forge TRACE_PAGEWRITE -- PROG [ARGS...]
#
# Records PROG, forges a copy of the trace with trace_pagewrite, and
# replays the copy. Exits 0 or 1 (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

mrr=""
forge=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--forge) forge=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr PATH --forge PATH -- PROG [ARGS...]" >&2
	   exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ -n "$forge" ] && [ $# -ge 1 ] || exit 2

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-pagewrite.XXXXXX") || exit 1
HARD_TIMEOUT=30
run rec "${MARK[@]}" "$mrr" record -o "$T/good" -- "$@"
[ $rc = 0 ] || die "mrr record exited $rc"
"$forge" "$T/good" "$T/bad" || die "trace_pagewrite failed"
run replay "${MARK[@]}" "$mrr" replay "$T/bad"
if [ $rc != 65 ]; then
	fail "mrr replay of a trace that writes over mrr's page exited $rc," \
		"expected 65:"
	show replay
elif ! grep -q "mrr's page" "$T/replay.err"; then
	fail "the replay does not say why it refused the trace:"
	show replay
fi
if ! left=$(wait_no_leftovers); then
	fail "processes left behind:" $left
	kill_leftovers
fi
if [ $hard_failed = 0 ]; then
	echo "ok: $(grep "mrr's page" "$T/replay.err")"
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
