#!/bin/bash
# threads.sh: what recording threads costs (issue 12's benchmark).
#
#   bench/threads.sh [BUILD_DIR]        (default: build)
#
# Times three threaded workloads natively, under `mrr record` and under
# `mrr replay` of that recording, RUNS times each (the modes take turns
# within a run, so a burst of load spreads over all of them), and prints a
# markdown table of medians with their ratio to the native median, and the
# replay's ratio to the recording. Every record and replay runs under
# `timeout` (TIMEOUT seconds); a run that fails or times out shows as
# "failed" and the table is still printed. Builds nothing: run
# `cmake --build build` first. Not a test: the numbers depend on the
# machine and its load.
#
# The goals of issue 12: futex handoff record <= 3x and replay <= 1.5x
# native; spin-wait replay <= 2x its recording.
#
# Environment: RUNS (default 3), HANDOFFS (100000), CPU_STEPS (100000000),
# SPIN_ROUNDS (200), TIMEOUT (300), MRR (default BUILD_DIR/bin/mrr), MODES
# (default "native record replay"; "nobuf" adds mrr record -n).

set -u
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=${MRR:-$build/bin/mrr}
runs=${RUNS:-3}
limit=${TIMEOUT:-300}
modes=${MODES:-native record replay}

names=(futex cpu spin)
labels=("futex token ring, 4 threads, ${HANDOFFS:-100000} handoffs"
	"CPU-bound, 4 threads x ${CPU_STEPS:-100000000} steps"
	"spin-wait handoff, 2 threads, ${SPIN_ROUNDS:-200} rounds")
cmds=("$build/bench/bench_threads_futex ${HANDOFFS:-100000}"
	"$build/bench/bench_threads_cpu ${CPU_STEPS:-100000000}"
	"$build/bench/bench_threads_spin ${SPIN_ROUNDS:-200}")

for f in "$mrr" "$build"/bench/bench_threads_{futex,cpu,spin}; do
	if [ ! -x "$f" ]; then
		echo "threads.sh: $f is missing; build first:" \
			"cmake --build $build" >&2
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/mrr-bench-threads.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# timed FILE CMD...: runs CMD, appends its wall time in seconds to FILE, or
# "failed" when it fails or runs out of time (its stderr goes to FILE.err).
timed() {
	local out=$1 start end
	shift
	start=$EPOCHREALTIME
	if ! timeout -k 5 "$limit" "$@" >"$tmp/stdout" 2>"$out.err"; then
		echo "threads.sh: failed: $*" >&2
		tail -n 5 "$out.err" >&2
		echo failed >>"$out"
		return 1
	fi
	end=$EPOCHREALTIME
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }' \
		>>"$out"
}

# median FILE: the median of its numbers, or "failed" when any run failed.
median() {
	if grep -q failed "$1" 2>/dev/null || [ ! -s "$1" ]; then
		echo failed
		return
	fi
	sort -g "$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for w in "${!names[@]}"; do
	read -r -a cmd <<<"${cmds[$w]}"
	echo "threads.sh: ${labels[$w]}: $runs runs of: $modes" >&2
	for ((r = 0; r < runs; r++)); do
		trace=$tmp/trace-${names[$w]}
		for m in $modes; do
			f=$tmp/${names[$w]}.$m
			case $m in
			native) timed "$f" "${cmd[@]}" ;;
			record)
				rm -rf "$trace"
				timed "$f" "$mrr" record -o "$trace" -- "${cmd[@]}" ||
					rm -rf "$trace"
				;;
			replay)
				if [ ! -d "$trace" ]; then
					timeout -k 5 "$limit" "$mrr" record \
						-o "$trace" -- "${cmd[@]}" \
						>/dev/null 2>&1 || rm -rf "$trace"
				fi
				if [ -d "$trace" ]; then
					timed "$f" "$mrr" replay "$trace"
				else
					echo failed >>"$f"
				fi
				;;
			nobuf)
				rm -rf "$tmp/trace-n"
				timed "$f" "$mrr" record -n -o "$tmp/trace-n" -- \
					"${cmd[@]}"
				rm -rf "$tmp/trace-n"
				;;
			*)
				echo "threads.sh: unknown mode $m" >&2
				exit 2
				;;
			esac
		done
		rm -rf "$trace"
	done
done

declare -A title=([native]=native [record]="mrr record" [replay]="mrr replay"
	[nobuf]="mrr record -n")
echo "Medians of $runs runs, seconds (ratio to native);" \
	"$(nproc) CPUs, Linux $(uname -r), load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
line="| workload |"
rule="|---|"
for m in $modes; do
	line+=" ${title[$m]} |"
	rule+="---:|"
done
line+=" replay / record |"
rule+="---:|"
echo "$line"
echo "$rule"
for w in "${!names[@]}"; do
	line="| ${labels[$w]} |"
	base=$(median "$tmp/${names[$w]}.native")
	for m in $modes; do
		med=$(median "$tmp/${names[$w]}.$m")
		if [ "$med" = failed ]; then
			line+=" failed |"
		elif [ "$m" = native ] || [ "$base" = failed ]; then
			line+=" $(printf '%.3f' "$med") |"
		else
			line+=" $(awk -v m="$med" -v b="$base" \
				'BEGIN { printf "%.3f (%.2fx)", m, m / b }') |"
		fi
	done
	rec=$(median "$tmp/${names[$w]}.record")
	rep=$(median "$tmp/${names[$w]}.replay")
	if [ "$rec" = failed ] || [ "$rep" = failed ]; then
		line+=" - |"
	else
		line+=" $(awk -v a="$rep" -v b="$rec" \
			'BEGIN { printf "%.2fx", a / b }') |"
	fi
	echo "$line"
done
