#!/bin/bash
# dump_golden.sh: `mrr dump --stable` output of a fixed program, compared with
# a golden file.
#
#   dump_golden.sh --mrr PATH --golden FILE --dump "ARGS" [--dump "ARGS"]...
#                  -- PROG [ARGS...]
#
# Records PROG without the syscall buffer (-n), in an empty environment,
# with stdin from /dev/null and its output to a file, so that the recording
# does not depend on who runs the test. It runs in a fresh directory that
# holds golden.dat, 8192 bytes of text ("golden line 000\n" to "golden line
# 511\n"), for the program to read and map. The rdtsc mode is forced to
# rewrite (MRR_TSC_MODE), the one mode every machine can record in: in the
# probed mode the exec event's writes (rewritten sites) would depend on
# whether rdtsc traps here. Then runs `mrr dump ARGS TRACE` for
# each --dump (ARGS split on spaces), and concatenates the outputs, each
# after a line "$ mrr dump ARGS". That text must equal FILE; on a difference
# the test prints the diff and fails.
#
# To regenerate a golden file after a deliberate change, run the test with
# MRR_UPDATE_GOLDEN=1 (e.g. `MRR_UPDATE_GOLDEN=1 ctest -R dump/golden`),
# review `git diff tests/golden`, and commit it.
#
# Exits 0 on a match (or an update), 1 on a difference or a failed command.

set -u

usage() {
	echo "usage: $0 --mrr PATH --golden FILE --dump ARGS... -- PROG" \
		"[ARGS...]" >&2
	exit 2
}

mrr=""
golden=""
dumps=()
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--golden) [ $# -ge 2 ] || usage; golden=$2; shift 2 ;;
	--dump) [ $# -ge 2 ] || usage; dumps+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
if [ -z "$mrr" ] || [ -z "$golden" ] || [ ${#dumps[@]} = 0 ] ||
	[ $# = 0 ]; then
	usage
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-dump-golden.XXXXXX") || exit 1

fail() {
	echo "FAIL: $*"
	echo "--- kept $T"
	exit 1
}

# Descriptors the test runner left open would shift the program's fds.
for fdpath in "/proc/$$/fd"/*; do
	fd=${fdpath##*/}
	if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
done
mkdir "$T/run" || fail "cannot make $T/run"
for i in $(seq 0 511); do printf 'golden line %03d\n' "$i"; done \
	>"$T/run/golden.dat"
(cd "$T/run" && env -i PATH=/usr/bin:/bin MRR_TSC_MODE=rewrite \
	timeout -k 5 40 "$mrr" record -n -o "$T/trace" -- "$@" \
	</dev/null >"$T/prog.out" 2>"$T/record.err")
rc=$?
[ $rc = 0 ] || fail "mrr record exited $rc: $(tail -n 3 "$T/record.err")"
[ "$(tail -n 1 "$T/prog.out")" = PASS ] ||
	fail "the program did not pass: $(tail -n 3 "$T/record.err")"

: >"$T/actual"
for args in "${dumps[@]}"; do
	echo "\$ mrr dump $args" >>"$T/actual"
	# shellcheck disable=SC2086 # ARGS are split on purpose
	timeout -k 5 30 "$mrr" dump $args "$T/trace" >>"$T/actual" \
		2>"$T/dump.err"
	rc=$?
	[ $rc = 0 ] || fail "mrr dump $args exited $rc: $(cat "$T/dump.err")"
done

if [ "${MRR_UPDATE_GOLDEN:-}" = 1 ]; then
	mkdir -p "$(dirname "$golden")"
	cp "$T/actual" "$golden" || fail "cannot write $golden"
	echo "updated $golden ($(wc -l <"$golden") lines)"
	rm -rf "$T"
	exit 0
fi
[ -f "$golden" ] || fail "no golden file $golden (run with MRR_UPDATE_GOLDEN=1 to create it)"
if ! diff -u "$golden" "$T/actual" >"$T/diff"; then
	head -n 80 "$T/diff"
	fail "dump output differs from $golden (MRR_UPDATE_GOLDEN=1 regenerates it)"
fi
echo "ok: $(wc -l <"$T/actual") lines match $golden"
rm -rf "$T"
exit 0
