#!/bin/bash
# syscallbuf.sh: what the syscall buffer buys (issue 5's benchmark).
#
#   bench/syscallbuf.sh [BUILD_DIR]        (default: build)
#
# Times four workloads natively, under `mrr record`, `mrr replay` of that
# recording, `mrr record -n` (every syscall through ptrace) and
# `strace -f -o /dev/null`, RUNS times each, and prints a markdown table of
# medians with their ratio to the native median. The modes take turns
# within each run, so a burst of load on the machine spreads over all of
# them. Builds nothing: run `cmake --build build` first. Not a test: the
# numbers depend on the machine and its load.
#
# Environment: RUNS (default 5), PREADS (200000), MADV_ROUNDS (20000),
# CPU_STEPS (1500000000), MODES (default "native record replay nobuf
# strace").

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
progs=$build/tests/programs
runs=${RUNS:-5}
modes=${MODES:-native record replay nobuf strace}

for f in "$mrr" "$progs/pread_loop" "$progs/cpu_loop" \
	"$build/bench/bench_madv_loop"; do
	if [ ! -x "$f" ]; then
		echo "syscallbuf.sh: $f is missing; build first:" \
			"cmake --build $build" >&2
		exit 1
	fi
done
case " $modes " in
*" strace "*)
	if ! command -v strace >/dev/null; then
		echo "syscallbuf.sh: strace not found (apt-get install strace)," \
			"or leave it out of MODES" >&2
		exit 1
	fi ;;
esac
# The interpreter itself, not a version manager's shell-script shim.
python=$(python3 -c 'import sys; print(sys.executable)')

tmp=$(mktemp -d /tmp/mrr-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

py_script='import hashlib, json, re
d = {str(i): [i, i * i] for i in range(20000)}
s = json.dumps(d)
print(len(s), hashlib.sha256(s.encode()).hexdigest()[:16],
      len(re.findall(r"[0-9]+", s)))'

names=(preads madvise cpu python)
labels=("${PREADS:-200000} preads of 64 bytes"
	"${MADV_ROUNDS:-20000} rounds of 64-page MADV_DONTNEED"
	"CPU loop, ${CPU_STEPS:-1500000000} steps"
	"python3 -c (json, re, hashlib)")
cmds=("$progs/pread_loop ${PREADS:-200000}"
	"$build/bench/bench_madv_loop ${MADV_ROUNDS:-20000}"
	"$progs/cpu_loop ${CPU_STEPS:-1500000000}"
	"$python -c PYSCRIPT")

# Runs a command, appending its wall time in seconds to the file $1.
timed() {
	local out=$1 start end
	shift
	start=$EPOCHREALTIME
	if ! "$@" >"$tmp/stdout" 2>"$tmp/stderr"; then
		echo "syscallbuf.sh: failed: $*" >&2
		tail -n 20 "$tmp/stderr" >&2
		exit 1
	fi
	end=$EPOCHREALTIME
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }' \
		>>"$out"
}

median() {
	sort -g "$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for w in "${!names[@]}"; do
	read -r -a cmd <<<"${cmds[$w]}"
	[ "${cmd[-1]}" = PYSCRIPT ] && cmd[-1]=$py_script
	echo "syscallbuf.sh: ${labels[$w]}: $runs runs of: $modes" >&2
	for ((r = 0; r < runs; r++)); do
		trace=$tmp/trace-${names[$w]}
		for m in $modes; do
			f=$tmp/${names[$w]}.$m
			case $m in
			native) timed "$f" "${cmd[@]}" ;;
			record)
				rm -rf "$trace"
				timed "$f" "$mrr" record -o "$trace" -- "${cmd[@]}"
				;;
			replay)
				if [ ! -d "$trace" ]; then
					rm -rf "$trace"
					"$mrr" record -o "$trace" -- "${cmd[@]}" \
						>/dev/null 2>&1
				fi
				timed "$f" "$mrr" replay "$trace"
				;;
			nobuf)
				rm -rf "$tmp/trace-n"
				timed "$f" "$mrr" record -n -o "$tmp/trace-n" -- \
					"${cmd[@]}"
				rm -rf "$tmp/trace-n"
				;;
			strace) timed "$f" strace -f -o /dev/null "${cmd[@]}" ;;
			*)
				echo "syscallbuf.sh: unknown mode $m" >&2
				exit 2
				;;
			esac
		done
		rm -rf "$trace"
	done
done

declare -A title=([native]=native [record]="mrr record" [replay]="mrr replay"
	[nobuf]="mrr record -n" [strace]="strace -f")
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
echo "$line"
echo "$rule"
for w in "${!names[@]}"; do
	line="| ${labels[$w]} |"
	base=$(median "$tmp/${names[$w]}.native" 2>/dev/null || true)
	for m in $modes; do
		med=$(median "$tmp/${names[$w]}.$m")
		if [ "$m" = native ] || [ -z "$base" ]; then
			line+=" $(printf '%.3f' "$med") |"
		else
			line+=" $(awk -v m="$med" -v b="$base" \
				'BEGIN { printf "%.3f (%.2fx)", m, m / b }') |"
		fi
	done
	echo "$line"
done
