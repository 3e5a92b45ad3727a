#!/bin/bash
# madv_vmas.sh: the cost of one traced madvise against the number of VMAs
# in the process (issue 10's "madvise over thousands of small VMAs").
#
#   bench/madv_vmas.sh [BUILD_DIR]        (default: build)
#
# For each VMA count in COUNTS (default "100 1000 10000"), times
# bench_madv_vmas natively and under `mrr record` with the VMAs of each
# call read by PROCMAP_QUERY ("query") and by parsing /proc/PID/maps
# (MRR_NO_PROCMAP_QUERY=1, "parse"), with CALLS madvise calls (default
# 1000; natively 100 and with PROCMAP_QUERY 10 times as many, or the
# difference drowns in the noise of start-up) and with none, RUNS times each
# (default 3). Prints the median
# microseconds per madvise (the difference of the two, divided by CALLS)
# and its ratio to native.
# MODES (default "native query parse") picks the columns; the others print 0.
# Not a test: the numbers depend on the machine and its load.

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
prog=$build/bench/bench_madv_vmas
runs=${RUNS:-3}
counts=${COUNTS:-100 1000 10000}
calls=${CALLS:-1000}

for f in "$mrr" "$prog"; do
	[ -x "$f" ] || { echo "madv_vmas.sh: $f is missing; build first" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-bench-vmas.XXXXXX")
trap 'rm -rf "$T"' EXIT

now() { date +%s.%N; }
# median of the numbers on stdin
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

run_mode() { # MODE VMAS CALLS: prints seconds
	local mode=$1 n=$2 calls=$3 t0 t1
	rm -rf "$T/trace"
	t0=$(now)
	case $mode in
	native) "$prog" "$n" "$calls" >/dev/null ;;
	query) "$mrr" record -o "$T/trace" -- "$prog" "$n" "$calls" \
		>/dev/null 2>&1 ;;
	parse) MRR_NO_PROCMAP_QUERY=1 "$mrr" record -o "$T/trace" -- \
		"$prog" "$n" "$calls" >/dev/null 2>&1 ;;
	esac
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

echo "| VMAs | native us/call | record, PROCMAP_QUERY | record, parse maps |"
echo "|---:|---:|---:|---:|"
modes=${MODES:-native query parse}
for n in $counts; do
	declare -A med=([native]=0 [query]=0 [parse]=0)
	for mode in $modes; do
		: >"$T/$mode"
	done
	for _ in $(seq 1 "$runs"); do
		for mode in $modes; do
			# natively a call takes microseconds: many more of
			# them, or the difference drowns in process start-up
			k=1
			[ $mode = native ] && k=100
			[ $mode = query ] && k=10
			a=$(run_mode $mode "$n" $((calls * k)))
			b=$(run_mode $mode "$n" 0)
			echo "($a - $b) / $k" | bc -l >>"$T/$mode"
		done
	done
	for mode in $modes; do
		med[$mode]=$(median <"$T/$mode")
	done
	us() { echo "${med[$1]} * 1000000 / $calls" | bc -l; }
	printf '| %s | %.1f | %.1f (%.1fx) | %.1f (%.1fx) |\n' "$n" "$(us native)" \
		"$(us query)" "$(echo "${med[query]} / ${med[native]}" | bc -l)" \
		"$(us parse)" "$(echo "${med[parse]} / ${med[native]}" | bc -l)"
	unset med
done
