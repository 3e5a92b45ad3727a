#!/bin/bash
# fastcalls.sh: the per-call cost of recording and replaying (issue 14).
#
#   bench/fastcalls.sh [BUILD_DIR]        (default: build)
#
# Times each workload natively, under `mrr record` and under `mrr replay`
# of that recording, RUNS times in turn (so a burst of load spreads over
# all modes), and prints a markdown table of medians with their ratios to
# the native median, plus the trace's bytes per buffered call (the events
# file's size over the buffered calls `mrr dump -s` counts). With
# SYNC=1 it also times `mrr record --sync`. Not a test: the numbers depend
# on the machine and its load. Builds nothing.
#
# Environment: RUNS (default 5), PREADS (200000), CLOCKS (500000),
# WORKLOADS (default "preads clock python gcc make": also python3 -c pass,
# gcc -O2 -c of a 200-line C file and make -j1 of a 10-file C project).
# Needs gcc and make for those two.

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
runs=${RUNS:-5}
modes="native record replay"
[ "${SYNC:-0}" = 1 ] && modes="native record sync replay"

for f in "$mrr" "$build/tests/programs/pread_loop" "$build/bench/bench_clock_loop"; do
	if [ ! -x "$f" ]; then
		echo "fastcalls.sh: $f is missing; build first:" \
			"cmake --build $build" >&2
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/mrr-fastcalls.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

declare -A label cmdline
label[preads]="${PREADS:-200000} preads of 64 bytes"
cmdline[preads]="$build/tests/programs/pread_loop ${PREADS:-200000}"
label[clock]="${CLOCKS:-500000} x (clock_gettime + getpid)"
cmdline[clock]="$build/bench/bench_clock_loop ${CLOCKS:-500000}"
# A 200-line C file, and a 10-file C project with a Makefile.
gen_c() { # NAME FUNCS
	local i
	echo "#include <stdio.h>"
	echo "#include <string.h>"
	for ((i = 0; i < $2; i++)); do
		echo "static int ${1}_f$i(const char *s, int x)"
		echo "{"
		echo "	int acc = (int)strlen(s);"
		echo "	for (int k = 0; k < x; k++)"
		echo "		acc = acc * 31 + (s[k % 4] ^ $i);"
		echo "	return acc;"
		echo "}"
	done
	echo "int ${1}_main(void)"
	echo "{"
	echo "	int t = 0;"
	for ((i = 0; i < $2; i++)); do
		echo "	t += ${1}_f$i(\"abcd\", $i);"
	done
	echo "	return t;"
	echo "}"
}
mkdir -p "$tmp/cc" "$tmp/proj"
gen_c one 25 >"$tmp/cc/hello.c"
echo 'int one_main(void); int main(void) { return one_main() & 1; }' >>"$tmp/cc/hello.c"
for ((n = 0; n < 10; n++)); do
	gen_c "m$n" 8 >"$tmp/proj/m$n.c"
done
{
	echo "int main(void) { return 0; }" >"$tmp/proj/main.c"
	echo "OBJS = main.o $(for ((n = 0; n < 10; n++)); do printf 'm%d.o ' $n; done)"
	echo "prog: \$(OBJS)"
	printf '\t$(CC) -o $@ $(OBJS)\n'
	echo "%.o: %.c"
	printf '\t$(CC) -O2 -c $< -o $@\n'
	echo "clean:"
	printf '\trm -f prog *.o\n'
} >"$tmp/proj/Makefile"
python=$(python3 -c 'import sys; print(sys.executable)')
label[python]="python3 -c pass"
cmdline[python]="$python -c pass"
label[gcc]="gcc -O2 -c of a $(wc -l <"$tmp/cc/hello.c")-line C file"
cmdline[gcc]="gcc -O2 -c $tmp/cc/hello.c -o $tmp/cc/hello.o"
label[make]="make -j1 of a 10-file C project"
cmdline[make]="make -s -j1 -B -C $tmp/proj"
workloads=${WORKLOADS:-preads clock python gcc make}

# Runs a command under a time limit, appending its wall time in seconds
# to the file $1 and its CPU time (user + system, of it and every process
# it waited for: mrr's tracees and its writer thread) to $1.cpu.
timed() {
	local out=$1 t
	shift
	if ! t=$( { TIMEFORMAT='%R %U %S'
		time timeout 600 "$@" >"$tmp/stdout" 2>"$tmp/stderr"; } 2>&1); then
		echo "fastcalls.sh: failed: $*" >&2
		tail -n 20 "$tmp/stderr" >&2
		exit 1
	fi
	read -r wall user sys <<<"$t"
	echo "$wall" >>"$out"
	awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f\n", u + s }' \
		>>"$out.cpu"
}

median() {
	sort -g "$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A perbuf
for w in $workloads; do
	read -r -a cmd <<<"${cmdline[$w]}"
	echo "fastcalls.sh: ${label[$w]}: $runs runs of: $modes" >&2
	for ((r = 0; r < runs; r++)); do
		trace=$tmp/trace-$w
		for m in $modes; do
			f=$tmp/$w.$m
			case $m in
			native) timed "$f" "${cmd[@]}" ;;
			record)
				rm -rf "$trace"
				timed "$f" "$mrr" record -o "$trace" -- "${cmd[@]}"
				;;
			sync)
				rm -rf "$tmp/trace-s"
				timed "$f" "$mrr" record --sync -o "$tmp/trace-s" \
					-- "${cmd[@]}"
				rm -rf "$tmp/trace-s"
				;;
			replay) timed "$f" "$mrr" replay "$trace" ;;
			esac
		done
		if [ $r = 0 ]; then
			nbuf=$(timeout 120 "$mrr" dump -s "$trace" |
				awk '/^buffered calls:/ { print $3 }')
			bytes=$(stat -c %s "$trace/events")
			perbuf[$w]=$(awk -v b="$bytes" -v n="${nbuf:-0}" \
				'BEGIN { if (n > 0) printf "%.1f", b / n; else print "-" }')
		fi
		rm -rf "$trace"
	done
done

declare -A title=([native]=native [record]="mrr record"
	[sync]="mrr record --sync" [replay]="mrr replay")
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
echo "$line trace bytes per buffered call |"
echo "$rule---:|"
# table SUFFIX: one row per workload, medians of the files ending in SUFFIX
table() {
	local w m med base line
	for w in $workloads; do
		line="| ${label[$w]} |"
		base=$(median "$tmp/$w.native$1")
		for m in $modes; do
			med=$(median "$tmp/$w.$m$1")
			if [ "$m" = native ]; then
				line+=" $(printf '%.3f' "$med") |"
			else
				line+=" $(awk -v m="$med" -v b="$base" \
					'BEGIN { printf "%.3f (%.2fx)", m, m / b }') |"
			fi
		done
		echo "$line ${perbuf[$w]} |"
	done
}
table ""
echo
echo "CPU seconds (user + system of mrr, its threads and the program):"
echo
echo "$line trace bytes per buffered call |" | sed 's/^| workload |/| workload (CPU) |/'
echo "$rule---:|"
table .cpu
