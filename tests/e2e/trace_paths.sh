#!/bin/bash
# trace_paths.sh --mrr PATH -- PROG [ARGS...]: where traces go and how they
# are named on the command line.
#
#   1. mrr record -o REL (a relative path) writes the trace under the cwd;
#   2. mrr replay and mrr dump accept that relative path from another cwd,
#      and the replay echoes the recorded stdout;
#   3. mrr record without -o writes into $MRR_TRACE_DIR and says where on
#      stderr; mrr replay without a trace replays that latest trace.
# Exits 0 if all hold, 1 otherwise (keeping its scratch directory).

set -u

[ $# -ge 3 ] && [ "$1" = --mrr ] && [ "$3" = -- ] || {
	echo "usage: $0 --mrr PATH -- PROG [ARGS...]" >&2
	exit 2
}
# The commands run in other directories: make the paths absolute.
mrr=$(realpath "$2")
shift 3
prog=$1
shift
case $prog in */*) prog=$(realpath "$prog") ;; esac
set -- "$prog" "$@"

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-paths.XXXXXX") || exit 1
# Recorded in $T/a/x and replayed from $T/b as ../a/x/rel-trace: a path
# that means nothing from the recorded cwd, should mrr resolve it there.
mkdir -p "$T/a/x" "$T/b" "$T/home" "$T/traces"
export HOME=$T/home MRR_TRACE_DIR=$T/traces
unset XDG_DATA_HOME

fail() {
	echo "FAIL: $*"
	for f in "$T"/*.err; do
		[ -s "$f" ] && { echo "--- $(basename "$f"):"; tail -n 20 "$f"; }
	done
	echo "--- kept $T"
	exit 1
}

# run NAME DIR CMD...: runs CMD in DIR; output in $T/NAME.{out,err}.
run() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && exec "$@") >"$T/$name.out" 2>"$T/$name.err" </dev/null
	rc=$?
}

run rec_rel "$T/a/x" "$mrr" record -o rel-trace -- "$@"
[ $rc = 0 ] || fail "mrr record -o rel-trace exited $rc"
[ -d "$T/a/x/rel-trace" ] ||
	fail "mrr record -o rel-trace made no $T/a/x/rel-trace"
run rep_rel "$T/b" "$mrr" replay ../a/x/rel-trace
[ $rc = 0 ] || fail "mrr replay ../a/x/rel-trace exited $rc"
cmp -s "$T/rec_rel.out" "$T/rep_rel.out" ||
	fail "replay by a relative path printed other bytes than the recording"
run dump_rel "$T/b" "$mrr" dump ../a/x/rel-trace
[ $rc = 0 ] && [ -s "$T/dump_rel.out" ] ||
	fail "mrr dump ../a/x/rel-trace exited $rc or printed nothing"
echo "ok: record -o, replay and dump with relative paths"

run rec_default "$T/a/x" "$mrr" record -- "$@"
[ $rc = 0 ] || fail "mrr record without -o exited $rc"
made=$(find "$T/traces" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -n "$made" ] || fail "mrr record without -o wrote nothing into \$MRR_TRACE_DIR"
grep -qF "$made" "$T/rec_default.err" ||
	fail "mrr record did not say on stderr that it wrote $made"
run rep_latest "$T/b" "$mrr" replay
[ $rc = 0 ] || fail "mrr replay of the latest trace exited $rc"
cmp -s "$T/rec_default.out" "$T/rep_latest.out" ||
	fail "replay of the latest trace printed other bytes than the recording"
echo "ok: record without -o wrote $(basename "$made") into \$MRR_TRACE_DIR;" \
	"replay without a trace replayed it"
rm -rf "$T"
exit 0
