#!/bin/bash
# tracedcalls.sh: the cost of hot calls that signal06-like programs make
# (issue 10): mprotect toggles and tkill-handler-sigreturn rounds.
#
#   bench/tracedcalls.sh [BUILD_DIR [OTHER_MRR]]     (default: build)
#
# Times each workload natively and under `mrr record` (with the buffer and
# with -n), RUNS times in turn, and prints a markdown table of medians with
# their ratio to the native median. With OTHER_MRR (another build's
# bin/mrr, e.g. of main before a change) it times that one too, in the same
# runs, so that before and after meet the same load. Not a test: the
# numbers depend on the machine and its load. Builds nothing.
#
# Workloads: bench_mprotect_loop, bench_tkill_loop (LTP signal06's two
# loops), bench_sigframe_loop (the two together, as signal06 runs them: SIGHUP
# on an alternate stack another thread makes read-only, SIGSEGV when its
# frame cannot go there) and bench_threads_bufcalls (two threads of buffered
# calls: what the scheduler's switches between threads that never stop
# cost).
#
# Environment: RUNS (default 3), MPROTECTS (rounds of 2 calls, 50000),
# WORKS (a subset of the workloads, by name), TKILLS (20000), SIGFRAMES
# (30000), BUFCALLS (calls a thread, 1000000), LTP (an LTP checkout:
# adds signal06 when it is built).

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
other=${2:-}
runs=${RUNS:-3}
declare -A mrrs=([new]=$build/bin/mrr)
modes="native new new-n"
if [ -n "$other" ]; then
	mrrs[old]=$other
	modes="native old new old-n new-n"
fi
for f in "$build/bin/mrr" "$build/bench/bench_mprotect_loop" \
	"$build/bench/bench_tkill_loop" "$build/bench/bench_sigframe_loop" \
	"$build/bench/bench_threads_bufcalls"; do
	if [ ! -x "$f" ]; then
		echo "tracedcalls.sh: $f is missing; build first" >&2
		exit 1
	fi
done
tmp=$(mktemp -d /tmp/mrr-tracedcalls.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

declare -A cmd
cmd[mprotect]="$build/bench/bench_mprotect_loop ${MPROTECTS:-50000}"
cmd[tkill]="$build/bench/bench_tkill_loop ${TKILLS:-20000}"
cmd[sigframe]="$build/bench/bench_sigframe_loop ${SIGFRAMES:-30000}"
cmd[bufthreads]="$build/bench/bench_threads_bufcalls ${BUFCALLS:-1000000}"
works=${WORKS:-mprotect tkill sigframe bufthreads}
s6=${LTP:+$LTP/testcases/kernel/syscalls/signal/signal06}
if [ -n "$s6" ] && [ -x "$s6" ]; then
	cmd[signal06]=$s6
	works="$works signal06"
fi

run() { # WORK MODE -> seconds on stdout
	local w=$1 m=$2 t0 t1 opt=()
	case $m in *-n) opt=(-n) ;; esac
	t0=$(date +%s.%N)
	case $m in
	native) ${cmd[$w]} >/dev/null 2>&1 ;;
	*)
		rm -rf "$tmp/t"
		timeout 300 "${mrrs[${m%-n}]}" record "${opt[@]}" -o "$tmp/t" \
			${cmd[$w]} >/dev/null 2>&1 ||
			echo "tracedcalls.sh: $w under $m failed" >&2
		;;
	esac
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

declare -A times
for ((r = 0; r < runs; r++)); do
	for w in $works; do
		for m in $modes; do
			times[$w.$m]="${times[$w.$m]:-} $(run "$w" "$m")"
		done
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf '| workload |'
for m in $modes; do printf ' %s |' "$m"; done
echo
printf '|---|'
for m in $modes; do printf -- '---|'; done
echo
for w in $works; do
	nat=$(echo "${times[$w.native]}" | median)
	printf '| %s |' "$w"
	for m in $modes; do
		v=$(echo "${times[$w.$m]}" | median)
		if [ "$m" = native ]; then
			printf ' %.2fs |' "$v"
		else
			printf ' %.2fs (%.1fx) |' "$v" "$(echo "$v / $nat" | bc -l)"
		fi
	done
	echo
done
