#!/bin/bash
# backtrace.sh: the cost of `mrr record --backtrace` on an allocator that
# purges eagerly (issue 10: jemalloc with decay 0 did not finish in 150 s
# under --backtrace, against 15.9 s without it).
#
#   bench/backtrace.sh [BUILD_DIR]        (default: build)
#
# Times bench_bt_alloc (CALLS traced madvise calls from a few frames deep,
# default 1000, over VMAS VMAs, default 2000, mapping a new extent every
# EVERY-th call, default 8) natively, under `mrr record` and under
# `mrr record --backtrace`, RUNS times each (default 3), and prints the
# median seconds and the ratios: to native, and of --backtrace to the
# recording without it. MRR_BEFORE=/path/to/an/older/mrr adds a column for
# that mrr's --backtrace (a build from before the change), in the same
# invocation. Not a test: the numbers depend on the machine and its load.

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
prog=$build/bench/bench_bt_alloc
runs=${RUNS:-3}
calls=${CALLS:-1000}
vmas=${VMAS:-2000}
every=${EVERY:-8}
before=${MRR_BEFORE:-}

for f in "$mrr" "$prog" ${before:+"$before"}; do
	[ -x "$f" ] || { echo "backtrace.sh: $f is missing; build first" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-bench-bt.XXXXXX")
trap 'rm -rf "$T"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

run_mode() { # MODE: prints seconds
	local t0 t1 args=("$prog" "$calls" "$every" "$vmas")
	rm -rf "$T/trace"
	t0=$(now)
	case $1 in
	native) "${args[@]}" >/dev/null ;;
	record) timeout 600 "$mrr" record -o "$T/trace" -- "${args[@]}" \
		>/dev/null 2>&1 ;;
	backtrace) timeout 600 "$mrr" record --backtrace -o "$T/trace" -- \
		"${args[@]}" >/dev/null 2>&1 ;;
	before) timeout 600 "$before" record --backtrace -o "$T/trace" -- \
		"${args[@]}" >/dev/null 2>&1 ;;
	esac
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

modes="native record backtrace${before:+ before}"
declare -A med
for mode in $modes; do
	for ((i = 0; i < runs; i++)); do
		run_mode "$mode"
	done | median >"$T/med"
	med[$mode]=$(cat "$T/med")
done
ratio() { echo "scale=2; $1 / $2" | bc -l; }
echo "bt_alloc: $calls traced madvise calls, $vmas VMAs, a new extent every $every calls; median of $runs runs"
echo
echo "| | seconds | to native | to record |"
echo "|---|---:|---:|---:|"
printf '| native | %.3f | 1 | |\n' "${med[native]}"
printf '| mrr record | %.3f | %sx | 1 |\n' "${med[record]}" \
	"$(ratio "${med[record]}" "${med[native]}")"
printf '| mrr record --backtrace | %.3f | %sx | %sx |\n' "${med[backtrace]}" \
	"$(ratio "${med[backtrace]}" "${med[native]}")" \
	"$(ratio "${med[backtrace]}" "${med[record]}")"
if [ -n "$before" ]; then
	printf '| --backtrace, before | %.3f | %sx | %sx |\n' "${med[before]}" \
		"$(ratio "${med[before]}" "${med[native]}")" \
		"$(ratio "${med[before]}" "${med[record]}")"
fi
