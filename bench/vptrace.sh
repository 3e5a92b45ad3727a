#!/bin/bash
# vptrace.sh: the cost of a program that traces another (strace) under mrr,
# whose ptrace calls mrr emulates (src/record/vptrace.c).
#
#   bench/vptrace.sh [BUILD_DIR]        (default: build)
#
# Times `strace -f -o /dev/null /bin/true` natively, under `mrr record` and
# under `mrr replay`, RUNS times each (default 11), the modes taking turns
# within each run, and prints the medians (milliseconds) with their ratio to
# the native median. Then counts, for one recording, the ptrace stops mrr
# made (its wait4 calls, counted by strace -c on mrr alone) against the
# tracee stops the tracer was told of (its emulated waits in the trace).
# Not a test: the numbers depend on the machine and its load.

set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
runs=${RUNS:-11}
command -v strace >/dev/null || { echo "strace is not installed" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-vptrace.XXXXXX")
trap 'rm -rf "$T"' EXIT
prog=(strace -f -o /dev/null /bin/true)

ms() { # the command's wall time in milliseconds
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
for i in $(seq 1 "$runs"); do
	ms "${prog[@]}" >>"$T/native"
	rm -rf "$T/trace"
	ms "$mrr" record -o "$T/trace" -- "${prog[@]}" >>"$T/record"
	ms "$mrr" replay "$T/trace" >>"$T/replay"
done
median() { sort -n "$1" | sed -n "$(((runs + 1) / 2))p"; }
n=$(median "$T/native")
[ "$n" -gt 0 ] || n=1
echo "| ${prog[*]} | native ms | record ms | replay ms |"
echo "|---|---:|---:|---:|"
printf '| medians of %d | %d | %d (%.1fx) | %d (%.1fx) |\n' "$runs" "$n" \
	"$(median "$T/record")" "$(echo "$(median "$T/record") / $n" | bc -l)" \
	"$(median "$T/replay")" "$(echo "$(median "$T/replay") / $n" | bc -l)"
rm -rf "$T/trace"
strace -c -e trace=wait4 -o "$T/count" "$mrr" record -o "$T/trace" -- \
	"${prog[@]}" >/dev/null 2>&1
stops=$(awk '$NF == "wait4" { print $4 }' "$T/count")
told=$("$mrr" dump "$T/trace" 2>/dev/null | grep -c 'wait4.*skipped' || true)
echo "mrr's ptrace stops: $stops; tracee stops reported to the tracer: $told"
