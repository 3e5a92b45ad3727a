# Sourced by the e2e tests that record a program, change its trace with
# trace_edit, and check what replay says about it (buffer_desync.sh,
# divergence_shared.sh, stuck_replay.sh):
#   . edited_trace_lib.sh NAME "$@"
# parses "--mrr MRR --edit TRACE_EDIT -- PROG [ARGS...]" into $mrr, $edit
# and the array prog (PROG ARGS...), makes the scratch directory $dir
# (/tmp/mrr-NAME.XXXXXX), and defines fail MESSAGE, which prints it, keeps
# $dir and exits 1.
set -u
edited_trace_name=$1
shift
mrr="" edit=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--edit) edit=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR --edit TRACE_EDIT -- PROG" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ -n "$edit" ] && [ $# -ge 1 ] ||
	{ echo "usage: $0 --mrr MRR --edit TRACE_EDIT -- PROG" >&2; exit 2; }
prog=("$@")
dir=$(mktemp -d "/tmp/mrr-$edited_trace_name.XXXXXX") || exit 1
fail() {
	echo "FAIL: $*"
	echo "--- kept $dir"
	exit 1
}
