#!/bin/bash
# kill_recorder.sh: SIGKILL the whole `mrr record` process at random moments.
#
#   kill_recorder.sh --mrr PATH [--kills N] [--seed S] [--min-ms A]
#                    [--max-ms B] [--alternate-nobuf] -- PROG [ARGS...]
#
# N times (default 50): starts `mrr record -o TRACE PROG ARGS`, sleeps a
# random A..B ms (default 5..300), and kills mrr with SIGKILL. With
# --alternate-nobuf every second recording uses -n. After each kill:
#   - no recorded process is left running or stopped (they carry a marker
#     in their environment; mrr's PTRACE_O_EXITKILL must have killed them);
#   - a trace that got its header is refused by `mrr replay TRACE` with
#     exit 65 and one line saying it is incomplete; `mrr dump -f TRACE`
#     exits 0; `mrr replay -f TRACE` exits 0 (the salvaged prefix replayed
#     to its end; 70 would be a divergence) and what it echoes on stdout is
#     a prefix of what the recording printed; nothing is left running
#     after the replay either;
#   - a kill before the trace directory existed leaves nothing, and
#     `mrr replay TRACE` says it does not exist (66); one before the header
#     was written leaves a directory that replay refuses with 65.
# Prints one line per kill and the counts at the end; exits 0 when every
# check held, 1 otherwise (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH [--kills N] [--seed S] [--min-ms A]" \
		"[--max-ms B] [--alternate-nobuf] -- PROG [ARGS...]" >&2
	exit 2
}

mrr=""
kills=50
seed=$$
min_ms=5
max_ms=300
alternate=0
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--kills) [ $# -ge 2 ] || usage; kills=$2; shift 2 ;;
	--seed) [ $# -ge 2 ] || usage; seed=$2; shift 2 ;;
	--min-ms) [ $# -ge 2 ] || usage; min_ms=$2; shift 2 ;;
	--max-ms) [ $# -ge 2 ] || usage; max_ms=$2; shift 2 ;;
	--alternate-nobuf) alternate=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || usage

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-kill.XXXXXX") || exit 1
ulimit -c 0
RANDOM=$seed
echo "seed $seed: $kills kills of mrr record $*, after $min_ms..$max_ms ms"

n_kills=0
n_early=0      # killed before the trace directory existed
n_noheader=0   # killed before the header was written
n_refused=0    # replay refused the trace as incomplete (65)
n_salvaged=0   # replay -f replayed the salvaged prefix (0)
n_events=0     # events salvaged, summed

for i in $(seq 1 "$kills"); do
	ms=$((min_ms + RANDOM % (max_ms - min_ms + 1)))
	tr=$T/trace-$i
	nobuf=()
	[ $alternate = 1 ] && [ $((i % 2)) = 0 ] && nobuf=(-n)
	what="kill $i after $ms ms${nobuf:+ (-n)}"
	failed_before=$hard_failed

	"${MARK[@]}" "$mrr" record "${nobuf[@]}" -o "$tr" -- "$@" \
		>"$T/rec.out" 2>"$T/rec.err" </dev/null &
	pid=$!
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	status=$?
	n_kills=$((n_kills + 1))
	if [ $status != 137 ]; then
		# Finished before the kill: the test program runs too short.
		fail "$what: mrr record exited $status before it was killed" \
			"(make the program run longer); it said:"
		head -n 5 "$T/rec.err"
		continue
	fi

	if ! left=$(wait_no_leftovers); then
		# A process still called mrr was forked but had not exec'd.
		fail "$what: recorded processes survive the recorder:" $left
		kill_leftovers
	fi

	if [ ! -e "$tr" ]; then
		n_early=$((n_early + 1))
		run replay "$mrr" replay "$tr"
		[ $rc = 66 ] && grep -q 'does not exist' "$T/replay.err" ||
			{ fail "$what: no trace; replay exited $rc:"; show replay; }
		echo "ok: $what: before the trace existed"
		continue
	fi
	if [ ! -e "$tr/header" ]; then
		n_noheader=$((n_noheader + 1))
		run replay "$mrr" replay "$tr"
		[ $rc = 65 ] && one_line replay ||
			{ fail "$what: headerless trace; replay exited $rc:"
			  show replay; }
		echo "ok: $what: before the header was written," \
			"$(cat "$T/replay.err")"
		continue
	fi

	run replay "$mrr" replay "$tr"
	if [ $rc = 65 ] && one_line replay &&
		grep -q incomplete "$T/replay.err"; then
		n_refused=$((n_refused + 1))
	else
		fail "$what: replay without -f exited $rc, expected 65 and one" \
			"line saying incomplete:"
		show replay
	fi

	run dump "$mrr" dump -f "$tr"
	if [ $rc != 0 ]; then
		fail "$what: dump -f exited $rc:"
		show dump
	fi
	events=$(grep -c '^[0-9]' "$T/dump.out")

	run salvage "${MARK[@]}" "$mrr" replay -f "$tr"
	if [ $rc = 0 ] && head -c "$(wc -c <"$T/salvage.out")" "$T/rec.out" |
		cmp -s - "$T/salvage.out"; then
		n_salvaged=$((n_salvaged + 1))
		n_events=$((n_events + events))
		echo "ok: $what: refused, $events events salvaged and replayed"
	elif [ $rc = 0 ]; then
		fail "$what: replay -f printed what the recording did not:"
		diff <(head -c "$(wc -c <"$T/salvage.out")" "$T/rec.out") \
			"$T/salvage.out" | head -n 10
	else
		fail "$what: replay -f of $events salvaged events exited $rc:"
		show salvage
	fi
	if ! left=$(wait_no_leftovers); then
		fail "$what: the salvaged replay left processes behind:" $left
		kill_leftovers
	fi
	[ $hard_failed = "$failed_before" ] && rm -rf "$tr"
done

echo "kills: $n_kills; before the trace existed: $n_early; before its" \
	"header: $n_noheader; refused as incomplete: $n_refused; salvaged" \
	"replays ok: $n_salvaged ($n_events events); failures: $hard_failed"
if [ $hard_failed = 0 ]; then
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T (seed $seed)"
exit 1
