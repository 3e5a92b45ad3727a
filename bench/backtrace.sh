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
# median wall and CPU seconds (user + system, of mrr and the program) and
# the CPU ratios: to native, and of --backtrace to the recording without
# it (CPU, because wall times swing with the load of a shared machine). MRR_BEFORE=/path/to/an/older/mrr adds a column for
# that mrr's --backtrace (a build from before the change), in the same
# invocation. When libjemalloc.so.2 is installed (Debian: libjemalloc2), a
# second table does the same for bench_bt_jemalloc under jemalloc with
# decay 0 (JROUNDS rounds, default 3000), recorded with -n: with the
# syscall buffer on, jemalloc's MADV_DONTNEED calls are buffered and stop
# nothing, so --backtrace stores no stack for them.
# Not a test: the numbers depend on the machine and its load.

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

args=("$prog" "$calls" "$every" "$vmas")
rec_opts=()
run_mode() { # MODE: prints wall and CPU seconds (user + system, children too)
	local cmd=()
	rm -rf "$T/trace"
	case $1 in
	native) cmd=("${args[@]}") ;;
	record) cmd=(timeout 600 "$mrr" record "${rec_opts[@]}" -o "$T/trace"
		-- "${args[@]}") ;;
	backtrace) cmd=(timeout 600 "$mrr" record "${rec_opts[@]}" --backtrace
		-o "$T/trace" -- "${args[@]}") ;;
	before) cmd=(timeout 900 "$before" record "${rec_opts[@]}" --backtrace
		-o "$T/trace" -- "${args[@]}") ;;
	esac
	/usr/bin/time -f "%e %U %S" -o "$T/time" "${cmd[@]}" >/dev/null 2>&1
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$T/time"
}

ratio() { [ "$(echo "$2 > 0" | bc -l)" = 1 ] && echo "scale=2; $1 / $2" | bc -l | sed "s/^\./0./" || echo "-"; }
table() {
modes="native record backtrace${before:+ before}"
declare -A wall cpu
for mode in $modes; do
	for ((i = 0; i < runs; i++)); do
		run_mode "$mode"
	done >"$T/runs"
	wall[$mode]=$(awk '{print $1}' "$T/runs" | median)
	cpu[$mode]=$(awk '{print $2}' "$T/runs" | median)
done
echo "| | wall s | CPU s | CPU to native | CPU to record |"
echo "|---|---:|---:|---:|---:|"
row() { # LABEL MODE
	printf '| %s | %.3f | %.3f | %sx | %s |\n' "$1" "${wall[$2]}" \
		"${cpu[$2]}" "$(ratio "${cpu[$2]}" "${cpu[native]}")" \
		"$([ "$2" = native ] || echo "$(ratio "${cpu[$2]}" "${cpu[record]}")x")"
}
row native native
row "mrr record" record
row "mrr record --backtrace" backtrace
if [ -n "$before" ]; then
	row "--backtrace, before" before
fi
}

echo "bt_alloc: $calls traced madvise calls, $vmas VMAs, a new extent every $every calls; median of $runs runs"
echo
table
jemalloc=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
if [ -f "$jemalloc" ] && [ -x "$build/bench/bench_bt_jemalloc" ]; then
	export LD_PRELOAD=$jemalloc MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0
	args=("$build/bench/bench_bt_jemalloc" "${JROUNDS:-3000}")
	rec_opts=(-n)
	echo
	echo "bt_jemalloc under jemalloc, decay 0: ${JROUNDS:-3000} rounds, recorded with -n; median of $runs runs"
	echo
	table
	unset LD_PRELOAD MALLOC_CONF
else
	echo
	echo "(no $jemalloc: the jemalloc table is left out; Debian: apt-get install libjemalloc2)"
fi
