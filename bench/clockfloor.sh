#!/bin/bash
# clockfloor.sh: why the clock loop of bench/fastcalls.sh cannot reach
# its record goal on a machine where rdtsc traps (issue 14).
#
#   bench/clockfloor.sh [BUILD_DIR]        (default: build)
#
# Runs bench/clock_floor.c natively and under `mrr record`, and prints
# nanoseconds per call of: clock_gettime through libc (the vDSO natively,
# the preload library's buffered syscall under mrr), clock_gettime as a
# raw syscall (natively: the kernel's price; under mrr: a traced call),
# getpid (a syscall natively, buffered under mrr), and rdtsc natively.
# From these: the least a recorded clock_gettime + getpid round can cost
# while clock_gettime stays a syscall, against the native round. Not a
# test: the numbers depend on the machine and its load. Environment: N
# (calls per run, default 200000).

set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
prog=$build/bench/bench_clock_floor
n=${N:-200000}
for f in "$mrr" "$prog"; do
	[ -x "$f" ] || {
		echo "clockfloor.sh: $f is missing; build first" >&2
		exit 1
	}
done
tmp=$(mktemp -d /tmp/mrr-clockfloor.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$prog" "$n" "vdso syscall getpid rdtsc" >"$tmp/native"
timeout 600 "$mrr" record -o "$tmp/t" -- "$prog" "$n" \
	"vdso syscall getpid" >"$tmp/record" 2>/dev/null
get() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
echo "ns per call ($(nproc) CPUs, clocksource" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?'))," \
	"load $(cut -d' ' -f1 /proc/loadavg):"
echo
echo "| call | native | mrr record |"
echo "|---|---:|---:|"
echo "| clock_gettime via libc | $(get "$tmp/native" vdso) (vDSO) | $(get "$tmp/record" vdso) (buffered syscall) |"
echo "| clock_gettime, raw syscall | $(get "$tmp/native" syscall) | $(get "$tmp/record" syscall) (traced) |"
echo "| getpid | $(get "$tmp/native" getpid) | $(get "$tmp/record" getpid) (buffered) |"
echo "| rdtsc | $(get "$tmp/native" rdtsc) | traps (an event each) |"
echo
awk -v v="$(get "$tmp/native" vdso)" -v s="$(get "$tmp/native" syscall)" \
	-v p="$(get "$tmp/native" getpid)" -v bv="$(get "$tmp/record" vdso)" \
	-v bp="$(get "$tmp/record" getpid)" 'BEGIN {
	printf "native round (vDSO + getpid): %.0f ns; with both as plain " \
		"syscalls: %.0f ns = %.2fx, the floor for any recording that " \
		"keeps clock_gettime a syscall; recorded round: %.0f ns = %.2fx\n",
		v + p, s + p, (s + p) / (v + p), bv + bp, (bv + bp) / (v + p) }'
