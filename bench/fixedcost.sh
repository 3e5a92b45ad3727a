#!/bin/bash
# fixedcost.sh: the fixed cost of recording and replaying short programs
# (issue 14's benchmark).
#
#   bench/fixedcost.sh [BUILD_DIR]        (default: build)
#
# Times three short workloads natively, under `mrr record` (with a warm file
# cache: one untimed recording fills it first), under `mrr record` with the
# cache off (MRR_NO_CACHE=1: every file hashed, scanned and copied, as
# before the cache) and under `mrr replay`, RUNS times each, the modes
# taking turns within each run so that a burst of load spreads over all of
# them. Prints a markdown table of medians (seconds) with their ratio to the
# native median, then the peak RSS of `mrr record` itself (getrusage of mrr,
# from MRR_REPORT_RSS) against the program's own (GNU time's %M of the
# native run). Builds nothing: run `cmake --build build` first. Not a test:
# the numbers depend on the machine and its load.
#
# Workloads:
#   python  /usr/bin/python3 -c pass
#   gcc     gcc -O2 -c of a generated 200-line C file
#   make    make -j1 of a generated 10-file C project (compile and link)
#
# Environment: RUNS (default 5), MODES (default "native record nocache
# replay"), WORKLOADS (default "python gcc make").

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
runs=${RUNS:-5}
modes=${MODES:-native record nocache replay}
workloads=${WORKLOADS:-python gcc make}

if [ ! -x "$mrr" ]; then
	echo "fixedcost.sh: $mrr is missing; build first: cmake --build $build" >&2
	exit 1
fi
for p in /usr/bin/python3 gcc make; do
	if ! command -v "$p" >/dev/null; then
		echo "fixedcost.sh: $p not found (apt-get install python3 gcc make)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/mrr-fixedcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The bench's own file cache, on the traces' file system (hard links).
export XDG_CACHE_HOME=$tmp/cache
mkdir -p "$XDG_CACHE_HOME"

# A C file of about 200 lines: structs, loops, switch, recursion, so that
# -O2 has work to do. $1 names its functions apart.
gen_c() {
	local p=$1 i
	echo "#include <stdio.h>"
	echo "#include <string.h>"
	echo "struct ${p}_pt { int x, y; double w; };"
	for ((i = 0; i < 13; i++)); do
		cat <<EOF
static int ${p}_f$i(const struct ${p}_pt *v, int n, int k)
{
	int acc = $i;
	for (int j = 0; j < n; j++) {
		switch ((v[j].x + k) % 4) {
		case 0: acc += v[j].y * $((i + 1)); break;
		case 1: acc ^= (int)(v[j].w * $((i + 2))); break;
		case 2: acc -= v[j].x << ($i % 5); break;
		default: acc += j;
		}
	}
	return n > 1 && acc % 3 ? acc + ${p}_f$((i > 0 ? i - 1 : 0))(v + 1, n - 1, k) : acc;
}
EOF
	done
	cat <<EOF
int ${p}_main(void)
{
	struct ${p}_pt v[32];
	int s = 0;
	memset(v, 0, sizeof(v));
	for (int i = 0; i < 32; i++) {
		v[i].x = i * 7;
		v[i].y = i ^ 5;
		v[i].w = i / 3.0;
	}
EOF
	for ((i = 0; i < 13; i++)); do
		echo "	s += ${p}_f$i(v, 32, $i);"
	done
	echo "	printf(\"%d\\n\", s);"
	echo "	return s;"
	echo "}"
}

mkdir -p "$tmp/gcc" "$tmp/make"
gen_c one >"$tmp/gcc/one.c"
for ((i = 0; i < 10; i++)); do
	gen_c "m$i" >"$tmp/make/m$i.c"
done
{
	echo "int main(void) { int s = 0;"
	for ((i = 0; i < 10; i++)); do
		echo "int m${i}_main(void); s += m${i}_main();"
	done
	echo "return s != 12345 ? 0 : 1; }"
} >"$tmp/make/main.c"
{
	printf 'OBJS ='
	for ((i = 0; i < 10; i++)); do printf ' m%d.o' "$i"; done
	printf ' main.o\n'
	printf 'prog: $(OBJS)\n\tgcc -o $@ $(OBJS)\n'
	printf '%%.o: %%.c\n\tgcc -O2 -c $<\n'
	printf 'clean:\n\trm -f prog *.o\n'
} >"$tmp/make/Makefile"

names=(python gcc make)
labels=("/usr/bin/python3 -c pass"
	"gcc -O2 -c of a $(wc -l <"$tmp/gcc/one.c")-line C file"
	"make -j1 of a 10-file C project")
cmds=("/usr/bin/python3 -c pass"
	"gcc -O2 -c one.c"
	"make -j1 -s")
dirs=("$tmp" "$tmp/gcc" "$tmp/make")

# Runs a command in $dir, appending its wall time in seconds to the file
# $1 and its CPU time (user + system, of it and all its children) to $1.cpu.
timed() {
	local out=$1
	shift
	[ "${names[$w]}" = make ] && make -s -C "$tmp/make" clean >/dev/null
	if ! (cd "${dirs[$w]}" && /usr/bin/python3 -c "$timer" "$tmp/time" \
		"$@") >"$tmp/stdout" 2>"$tmp/stderr"; then
		echo "fixedcost.sh: failed: $*" >&2
		tail -n 20 "$tmp/stderr" >&2
		exit 1
	fi
	awk '{ print $1 }' "$tmp/time" >>"$out"
	awk '{ print $2 }' "$tmp/time" >>"$out.cpu"
}
# The timer: wall time and the CPU time of all descendants, to the
# microsecond (GNU time rounds to 10 ms). Writes "WALL CPU" to argv[1].
timer='import os, resource, subprocess, sys, time
t0 = time.perf_counter()
rc = subprocess.call(sys.argv[2:])
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.4f %.4f\n" % (wall, ru.ru_utime + ru.ru_stime))
sys.exit(rc)'

median() {
	sort -g "$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A rss_native rss_mrr
for w in "${!names[@]}"; do
	case " $workloads " in *" ${names[$w]} "*) ;; *) continue ;; esac
	read -r -a cmd <<<"${cmds[$w]}"
	trace=$tmp/trace-${names[$w]}
	echo "fixedcost.sh: ${labels[$w]}: $runs runs of: $modes" >&2
	# Warm the page cache and mrr's file cache; measure peak RSS.
	[ "$w" = 2 ] && make -s -C "$tmp/make" clean >/dev/null
	rss_native[$w]=$(cd "${dirs[$w]}" &&
		command time -f %M "${cmd[@]}" 2>&1 >/dev/null | tail -n 1)
	[ "$w" = 2 ] && make -s -C "$tmp/make" clean >/dev/null
	rss_mrr[$w]=$(cd "${dirs[$w]}" && MRR_REPORT_RSS=1 timeout 300 \
		"$mrr" record -o "$trace" -- "${cmd[@]}" 2>&1 >/dev/null |
		sed -n 's/^mrr: peak RSS \([0-9]*\) KiB.*/\1/p')
	rm -rf "$trace"
	for ((r = 0; r < runs; r++)); do
		for m in $modes; do
			f=$tmp/${names[$w]}.$m
			case $m in
			native) timed "$f" "${cmd[@]}" ;;
			record)
				rm -rf "$trace"
				timed "$f" timeout 300 "$mrr" record -o "$trace" \
					-- "${cmd[@]}"
				;;
			nocache)
				rm -rf "$trace-n"
				MRR_NO_CACHE=1 timed "$f" timeout 300 "$mrr" \
					record -o "$trace-n" -- "${cmd[@]}"
				rm -rf "$trace-n"
				;;
			replay)
				if [ ! -d "$trace" ]; then
					(cd "${dirs[$w]}" && timeout 300 "$mrr" \
						record -o "$trace" -- "${cmd[@]}" \
						>/dev/null 2>&1)
				fi
				timed "$f" timeout 300 "$mrr" replay "$trace"
				;;
			*)
				echo "fixedcost.sh: unknown mode $m" >&2
				exit 2
				;;
			esac
		done
		rm -rf "$trace"
	done
done

declare -A title=([native]=native [record]="mrr record"
	[nocache]="record, no cache" [replay]="mrr replay")
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
table() {
	local suffix=$1 w m med base line
	echo "$header"
	echo "$rule"
	for w in "${!names[@]}"; do
		case " $workloads " in *" ${names[$w]} "*) ;; *) continue ;; esac
		line="| ${labels[$w]} |"
		base=$(median "$tmp/${names[$w]}.native$suffix" 2>/dev/null ||
			true)
		for m in $modes; do
			med=$(median "$tmp/${names[$w]}.$m$suffix")
			if [ "$m" = native ] || [ -z "$base" ] ||
				[ "$base" = 0.00 ]; then
				line+=" $(printf '%.3f' "$med") |"
			else
				line+=" $(awk -v m="$med" -v b="$base" \
					'BEGIN { printf "%.3f (%.2fx)", m, m / b }') |"
			fi
		done
		echo "$line"
	done
}
header=$line
echo "Wall time:"
echo
table ""
echo
echo "CPU time (user + system, every process), less sensitive to load:"
echo
table .cpu
echo
echo "| workload | program's peak RSS (KiB) | mrr record's own (KiB) |"
echo "|---|---:|---:|"
for w in "${!names[@]}"; do
	case " $workloads " in *" ${names[$w]} "*) ;; *) continue ;; esac
	echo "| ${labels[$w]} | ${rss_native[$w]:-?} | ${rss_mrr[$w]:-?} |"
done
