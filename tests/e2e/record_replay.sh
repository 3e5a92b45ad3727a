#!/bin/bash
# record_replay.sh: the end-to-end check behind every prog/* and real/* test.
#
#   record_replay.sh --mrr PATH [--no-syscallbuf] [--as-nobody]
#                    [--expect-signal SIG] [--no-pass-line] [--real]
#                    [--timeout SECONDS] [--keep] -- PROG [ARGS...]
#
# Runs PROG natively once, records it with `mrr record`, replays the trace
# with `mrr replay`, and checks that
#   - the recorded run exited like the native one (128+SIG with
#     --expect-signal, where the native run must have died of SIG too);
#   - the recorded stdout ends with the line PASS (unless --no-pass-line,
#     --expect-signal or --real; --no-pass-line alone requires status 0);
#   - the replay exits 0 and echoes the recorded stdout byte for byte, and the
#     recorded stderr once mrr's own lines (those starting "mrr:") are dropped.
# Every run happens in a fresh private directory, as user nobody with
# --as-nobody. On failure it prints what differed and the last 40 events of
# the trace, keeps the directory, and exits 1. Exit 77 means this variant
# cannot run here (ctest reports it as skipped); 2 is a usage error.

set -u

usage() {
	echo "usage: $0 --mrr PATH [--no-syscallbuf] [--as-nobody]" \
		"[--expect-signal SIG] [--no-pass-line] [--real]" \
		"[--timeout SECONDS] [--keep] -- PROG [ARGS...]" >&2
	exit 2
}

mrr=""
nobuf=0
nobody=0
signame=""
nopass=0
real=0
step_timeout=0
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--no-syscallbuf) nobuf=1; shift ;;
	--as-nobody) nobody=1; shift ;;
	--expect-signal) [ $# -ge 2 ] || usage; signame=$2; shift 2 ;;
	--no-pass-line) nopass=1; shift ;;
	--real) real=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage; step_timeout=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || usage

skip() {
	echo "SKIP: $*"
	exit 77
}

want_signal=0
if [ -n "$signame" ]; then
	want_signal=$(kill -l "${signame#SIG}" 2>/dev/null) ||
		{ echo "record_replay.sh: unknown signal $signame" >&2; exit 2; }
fi

# A crashing program must not spend its time writing a core file.
ulimit -c 0

# How each run is started: under a time limit, and maybe as nobody.
wrap=()
if [ "$step_timeout" -gt 0 ] && command -v timeout >/dev/null; then
	wrap+=(timeout -k 10 "$step_timeout")
fi
if [ $nobody = 1 ]; then
	[ "$(id -u)" = 0 ] || skip "--as-nobody needs root"
	id nobody >/dev/null 2>&1 || skip "there is no user nobody"
	nobody_group=$(id -gn nobody)
	if command -v setpriv >/dev/null; then
		wrap+=(setpriv --reuid=nobody --regid="$nobody_group"
			--clear-groups --reset-env env "PATH=$PATH")
	elif command -v runuser >/dev/null; then
		wrap+=(runuser -u nobody -- env "PATH=$PATH")
	else
		skip "neither setpriv nor runuser is installed"
	fi
	# nobody must reach mrr and the program (a build tree under a private
	# home directory is out of its reach).
	for f in "$mrr" "$1"; do
		case $f in
		*/*) "${wrap[@]}" test -x "$f" ||
			skip "user nobody cannot execute $f" ;;
		esac
	done
fi

# A world-writable parent (/tmp) for nobody, who must own the directory.
if [ $nobody = 1 ]; then
	T=$(mktemp -d /tmp/mrr-e2e.XXXXXX) || exit 1
	chown "nobody:$nobody_group" "$T" || exit 1
else
	T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-e2e.XXXXXX") || exit 1
fi

prog_name=$(basename "$1")
variant=""
[ $nobuf = 1 ] && variant="$variant nobuf"
[ $nobody = 1 ] && variant="$variant nobody"
label="$prog_name${variant:+ (${variant# })}"

# run NAME CMD...: runs CMD in $T with no stdin, its output in $T/NAME.out
# and $T/NAME.err; sets rc. Fails the test if CMD ran out of time.
run() {
	local name=$1
	shift
	# The outer braces swallow bash's own "Segmentation fault" report.
	{ (cd "$T" && exec "${wrap[@]}" "$@") >"$T/$name.out" \
		2>"$T/$name.err" </dev/null; } 2>/dev/null
	rc=$?
	if [ ${#wrap[@]} -gt 0 ] && [ "${wrap[0]}" = timeout ] &&
		[ $rc = 124 ]; then
		show_file "$name.out"
		fail "the $name run did not finish within ${step_timeout}s"
	fi
}

describe_status() {
	local s=$1
	if [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then
		echo "$s (killed by SIG$(kill -l $((s - 128))))"
	else
		echo "$s"
	fi
}

show_file() {
	echo "--- $1 (last 30 lines):"
	tail -n 30 "$T/$1"
}

fail() {
	echo "FAIL: $label: $*"
	for f in record.err replay.err; do
		[ -s "$T/$f" ] && show_file "$f"
	done
	if [ -d "$T/trace" ]; then
		echo "--- mrr dump (last 40 events):"
		"$mrr" dump "$T/trace" >"$T/dump.out" 2>"$T/dump.err"
		tail -n 40 "$T/dump.out"
		cat "$T/dump.err"
	fi
	echo "--- kept $T"
	exit 1
}

# 1. Natively.
run native "$@"
native_rc=$rc
if [ "$want_signal" != 0 ] && [ $native_rc != $((128 + want_signal)) ]; then
	show_file native.err
	fail "the native run exited $(describe_status $native_rc), expected" \
		"death by SIG${signame#SIG}"
fi

# 2. Recorded.
rec_args=(record -o "$T/trace")
[ $nobuf = 1 ] && rec_args+=(-n)
run record "$mrr" "${rec_args[@]}" -- "$@"
rec_rc=$rc
if [ $rec_rc != $native_rc ]; then
	fail "mrr record exited $(describe_status $rec_rc), the native run" \
		"$(describe_status $native_rc)"
fi
if [ $real = 0 ] && [ "$want_signal" = 0 ]; then
	if [ $nopass = 1 ]; then
		[ $rec_rc = 0 ] || fail "the program exited $rec_rc, not 0"
	else
		last=$(tail -n 1 "$T/record.out")
		[ "$last" = PASS ] || {
			show_file record.out
			fail "the recorded stdout does not end with PASS"
		}
	fi
fi
[ -d "$T/trace" ] || fail "mrr record left no trace directory $T/trace"

# 3. Replayed.
run replay "$mrr" replay "$T/trace"
rep_rc=$rc
[ $rep_rc = 0 ] || fail "mrr replay exited $(describe_status $rep_rc), not 0"
if ! cmp -s "$T/record.out" "$T/replay.out"; then
	echo "--- stdout, recorded vs replayed:"
	diff -u "$T/record.out" "$T/replay.out" | head -n 60
	fail "the replay's stdout differs from the recording's"
fi
grep -v '^mrr:' "$T/record.err" >"$T/record.err.prog"
grep -v '^mrr:' "$T/replay.err" >"$T/replay.err.prog"
if ! cmp -s "$T/record.err.prog" "$T/replay.err.prog"; then
	echo "--- stderr without mrr: lines, recorded vs replayed:"
	diff -u "$T/record.err.prog" "$T/replay.err.prog" | head -n 60
	fail "the replay's stderr differs from the recording's"
fi

echo "ok: $label: status $(describe_status $rec_rc) natively and at" \
	"record; replay identical ($(wc -c <"$T/record.out") bytes of stdout," \
	"$(wc -c <"$T/record.err.prog") of stderr; trace" \
	"$(du -sh "$T/trace" | cut -f1))"
if [ $keep = 1 ]; then
	echo "kept $T"
else
	rm -rf "$T"
fi
exit 0
