#!/bin/bash
# preempt.sh: the cost of signals inside user code (preemption points).
#
#   bench/preempt.sh [BUILD_DIR]        (default: build)
#
# Times, natively, under `mrr record` and under `mrr replay` of that
# recording, in the same invocation:
#   - openssl speed -seconds 1 sha256 (alarm(1) ends each of its six loops;
#     the run lasts six seconds whatever the speed: the ratio is about 1,
#     the work done in that time is what shrinks);
#   - bench_prof_loop: a CPU loop of PROF_N iterations (default 2,000,000)
#     sampled by SIGPROF at 100 Hz.
# and prints the ratios to native, the number of preemption points (counted
# and searched) and the ptrace stops they cost at record and at replay
# (MRR_PREEMPT_STATS=1), and the longest replay search. Not a test: the
# numbers depend on the machine and its load.
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
prof=$build/bench/bench_prof_loop
n=${PROF_N:-2000000}
for f in "$mrr" "$prof"; do
	[ -x "$f" ] || { echo "preempt.sh: $f is missing; build first" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

secs() { # CMD...: runs it, prints its wall time in seconds
	local t0=$EPOCHREALTIME
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null || {
		echo "preempt.sh: $* failed:" >&2
		tail -5 "$tmp/err" >&2
		exit 1
	}
	echo "$EPOCHREALTIME - $t0" | bc
}

row() { # NAME CMD...
	local name=$1 native rec rep
	shift
	native=$(secs "$@")
	rm -rf "$tmp/trace"
	rec=$(MRR_PREEMPT_STATS=1 secs timeout 900 "$mrr" record -o "$tmp/trace" -- "$@")
	local rstats=$(grep 'record preemption' "$tmp/err" | sed 's/^mrr: //')
	rep=$(MRR_PREEMPT_STATS=1 secs timeout 900 "$mrr" replay "$tmp/trace")
	local pstats=$(grep 'replay preemption' "$tmp/err" | sed 's/^mrr: //')
	printf '| %s | %.2f | %.2f (%.1fx) | %.2f (%.1fx) |\n' "$name" "$native" \
		"$rec" "$(echo "$rec / $native" | bc -l)" \
		"$rep" "$(echo "$rep / $native" | bc -l)"
	echo "    $rstats"
	echo "    $pstats"
}

echo "| workload | native s | mrr record s | mrr replay s |"
echo "|---|---:|---:|---:|"
if command -v openssl >/dev/null; then
	row "openssl speed -seconds 1 sha256" openssl speed -seconds 1 sha256
else
	echo "(openssl not installed: skipped)"
fi
row "CPU loop, $n iterations, SIGPROF 100 Hz" "$prof" "$n"
