#!/bin/bash
# tsc_modes.sh: both rdtsc modes, on any machine.
#
#   tsc_modes.sh --mrr PATH --checksum PROG [--sigsegv PROG] [--rdtsc PROG]...
#
# mrr probes at record start whether rdtsc traps under PR_SET_TSC. Where it
# does, it records in mode "trap" and leaves the program's code alone; where
# it does not, in mode "rewrite" (rdtsc sites rewritten to ud2). The
# environment variable MRR_TSC_MODE=trap|rewrite|auto forces a mode, and
# MRR_TSC_NO_TRAP=1 makes the probe answer "does not trap", so both paths
# run here whatever this machine does. Checks:
#   - each --rdtsc PROG and the --checksum PROG (tests/programs/
#     code_checksum) record and replay in each mode this machine can run,
#     with and without the syscall buffer: the replay exits 0 and echoes the
#     recording's stdout byte for byte;
#   - the trace header's flag 0x10 says trap exactly for trap recordings;
#   - code_checksum prints at record in mode trap exactly what it prints
#     natively (no code rewritten), and in mode rewrite reports rewritten
#     sites in its own executable (the rewrite shows, record and replay
#     alike);
#   - auto picks trap where the probe says rdtsc traps, rewrite otherwise;
#   - MRR_TSC_MODE=bogus exits 64, and MRR_TSC_MODE=trap where rdtsc does
#     not trap exits 71, each with one line and no trace left behind;
#   - a trap trace replayed where rdtsc does not trap exits 71 with one line;
#   - the --sigsegv PROG (tests/programs/tsc_sigsegv), which sets
#     PR_TSC_SIGSEGV itself, gets SIGSEGV for its rdtsc in each mode exactly
#     where it does natively (its first line says which), and with
#     MRR_TSC_NO_TRAP=1 (a machine that ignores PR_SET_TSC) its rdtsc runs.
# Where rdtsc does not trap here, the trap-mode recordings are skipped (the
# refusals are still checked). Exits 0 when all checks pass, 1 otherwise.

set -u

usage() {
	echo "usage: $0 --mrr PATH --checksum PROG [--sigsegv PROG]" \
		"[--rdtsc PROG]..." >&2
	exit 2
}

mrr=""
checksum=""
sigsegv=""
progs=()
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--checksum) [ $# -ge 2 ] || usage; checksum=$2; shift 2 ;;
	--rdtsc) [ $# -ge 2 ] || usage; progs+=("$2"); shift 2 ;;
	--sigsegv) [ $# -ge 2 ] || usage; sigsegv=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ -z "$mrr" ] || [ -z "$checksum" ]; then usage; fi

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-tsc-modes.XXXXXX") || exit 1
failed=0
n=0

ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	failed=1
}

# run OUT ERR -- CMD...: runs CMD with a timeout (a hang is a failure);
# sets rc.
run() {
	local out=$1 err=$2
	shift 3
	timeout -k 5 60 "$@" </dev/null >"$out" 2>"$err"
	rc=$?
}

# header_flags TRACE: the header's flags word.
header_flags() {
	od -An -t u4 -j 16 -N 4 "$1/header" | tr -d ' '
}

# one MODE BUFOPT PROG: records PROG in MODE (BUFOPT "" or -n), replays it,
# compares; leaves the trace in $T/t$n and the recording's stdout in
# $T/t$n.rec.
one() {
	local mode=$1 buf=$2 prog=$3 name want flags
	n=$((n + 1))
	name="$(basename "$prog") mode=$mode${buf:+ $buf}"
	# shellcheck disable=SC2086 # buf is empty or -n
	run "$T/t$n.rec" "$T/t$n.rec.err" -- env MRR_TSC_MODE="$mode" \
		"$mrr" record $buf -o "$T/t$n" -- "$prog"
	if [ $rc != 0 ]; then
		bad "$name: mrr record exited $rc: $(tail -n 3 "$T/t$n.rec.err")"
		return 1
	fi
	run "$T/t$n.rep" "$T/t$n.rep.err" -- "$mrr" replay "$T/t$n"
	if [ $rc != 0 ]; then
		bad "$name: mrr replay exited $rc: $(tail -n 3 "$T/t$n.rep.err")"
		return 1
	fi
	if ! cmp -s "$T/t$n.rec" "$T/t$n.rep"; then
		bad "$name: the replay's stdout differs from the recording's"
		diff -u "$T/t$n.rec" "$T/t$n.rep" | head -n 20
		return 1
	fi
	flags=$(header_flags "$T/t$n")
	want=0
	[ "$mode" = trap ] && want=16
	if [ $((flags & 16)) != $want ]; then
		bad "$name: header flags $flags, want bit 0x10 $([ $want = 16 ] && echo set || echo clear)"
		return 1
	fi
	ok "$name: recorded and replayed, same output"
}

# Does rdtsc trap here? Ask mrr itself: a forced trap recording is refused
# where it does not.
run "$T/probe.out" "$T/probe.err" -- env MRR_TSC_MODE=trap \
	"$mrr" record -n -o "$T/probe" -- "$checksum"
case $rc in
0) traps=1 ;;
71) traps=0 ;;
*) bad "MRR_TSC_MODE=trap record exited $rc: $(cat "$T/probe.err")"; traps=0 ;;
esac
echo "rdtsc traps under PR_SET_TSC here: $([ $traps = 1 ] && echo yes || echo no)"

modes=(rewrite)
[ $traps = 1 ] && modes=(trap rewrite)
for mode in "${modes[@]}"; do
	for buf in "" -n; do
		for prog in "${progs[@]}" "$checksum"; do
			one "$mode" "$buf" "$prog"
		done
	done
done

# code_checksum: natively, and in each mode.
run "$T/native.out" "$T/native.err" -- "$checksum"
[ $rc = 0 ] || bad "code_checksum natively exited $rc: $(cat "$T/native.err")"
if [ $traps = 1 ]; then
	for buf in "" -n; do
		if one trap "$buf" "$checksum"; then
			if cmp -s "$T/native.out" "$T/t$n.rec"; then
				ok "code_checksum mode=trap${buf:+ $buf}: prints what it prints natively"
			else
				bad "code_checksum mode=trap${buf:+ $buf}: output differs from the native run's"
				diff -u "$T/native.out" "$T/t$n.rec" | head -n 20
			fi
		fi
	done
fi
if one rewrite -n "$checksum"; then
	if grep -q '^exe: .*rewritten rdtsc sites: [1-9]' "$T/t$n.rec"; then
		ok "code_checksum mode=rewrite: the rewritten site in its executable shows, at record and replay alike"
	else
		bad "code_checksum mode=rewrite: no rewritten site reported: $(head -n 1 "$T/t$n.rec")"
	fi
fi

# The program's own PR_TSC_SIGSEGV: SIGSEGV exactly where it faults natively.
if [ -n "$sigsegv" ]; then
	run "$T/segv.native" "$T/segv.native.err" -- "$sigsegv"
	[ $rc = 0 ] || bad "$(basename "$sigsegv") natively exited $rc"
	native_line=$(head -n 1 "$T/segv.native")
	for mode in "${modes[@]}"; do
		for buf in "" -n; do
			one "$mode" "$buf" "$sigsegv" || continue
			if [ "$(head -n 1 "$T/t$n.rec")" = "$native_line" ]; then
				ok "PR_TSC_SIGSEGV mode=$mode${buf:+ $buf}: $native_line, as natively"
			else
				bad "PR_TSC_SIGSEGV mode=$mode${buf:+ $buf}: '$(head -n 1 "$T/t$n.rec")', natively '$native_line'"
			fi
		done
	done
	run "$T/segv.notrap" "$T/segv.notrap.err" -- env MRR_TSC_NO_TRAP=1 \
		MRR_TSC_MODE=rewrite "$mrr" record -n -o "$T/segv_notrap" -- \
		"$sigsegv"
	if [ $rc = 0 ] && grep -q '^rdtsc with PR_TSC_SIGSEGV: runs' "$T/segv.notrap"; then
		ok "PR_TSC_SIGSEGV where rdtsc does not trap: rdtsc runs, as it would natively there"
	else
		bad "PR_TSC_SIGSEGV where rdtsc does not trap: exit $rc, $(head -n 1 "$T/segv.notrap")"
	fi
fi

# auto: the probe decides; MRR_TSC_NO_TRAP=1 stands for a machine where
# rdtsc does not trap.
run "$T/auto.out" "$T/auto.err" -- env -u MRR_TSC_MODE \
	"$mrr" record -n -o "$T/auto" -- "$checksum"
if [ $rc != 0 ]; then
	bad "auto: mrr record exited $rc: $(cat "$T/auto.err")"
elif [ $(($(header_flags "$T/auto") & 16)) != $((traps * 16)) ]; then
	bad "auto: header flags $(header_flags "$T/auto") where rdtsc traps=$traps"
else
	ok "auto: mode $([ $traps = 1 ] && echo trap || echo rewrite), as the probe says"
fi
run "$T/auto2.out" "$T/auto2.err" -- env MRR_TSC_NO_TRAP=1 MRR_TSC_MODE=auto \
	"$mrr" record -n -o "$T/auto2" -- "$checksum"
if [ $rc != 0 ] || [ $(($(header_flags "$T/auto2") & 16)) != 0 ]; then
	bad "auto where rdtsc does not trap: exit $rc, want mode rewrite: $(cat "$T/auto2.err")"
else
	ok "auto where rdtsc does not trap: mode rewrite"
fi

# refusals: one line each, a documented exit code, no trace left behind
refused() { # WANT_RC WHAT TRACE: checks the last run
	local lines
	lines=$(grep -vc '^mrr: recording' "$T/ref.err")
	if [ $rc != "$1" ] || [ "$lines" != 1 ] || [ -e "$3" ]; then
		bad "$2: exit $rc (want $1), $lines lines: $(cat "$T/ref.err")"
	else
		ok "$2: exit $rc: $(tail -n 1 "$T/ref.err")"
	fi
}
run "$T/ref.out" "$T/ref.err" -- env MRR_TSC_MODE=bogus \
	"$mrr" record -n -o "$T/ref1" -- "$checksum"
refused 64 "MRR_TSC_MODE=bogus" "$T/ref1"
run "$T/ref.out" "$T/ref.err" -- env MRR_TSC_NO_TRAP=1 MRR_TSC_MODE=trap \
	"$mrr" record -n -o "$T/ref2" -- "$checksum"
refused 71 "MRR_TSC_MODE=trap where rdtsc does not trap" "$T/ref2"
if [ $traps = 1 ]; then
	run "$T/ref.out" "$T/ref.err" -- env MRR_TSC_NO_TRAP=1 \
		"$mrr" replay "$T/probe"
	refused 71 "replay of a trap trace where rdtsc does not trap" \
		"$T/no-such-trace"
	if [ -s "$T/ref.out" ]; then
		bad "the refused replay ran the program: $(head -n 2 "$T/ref.out")"
	fi
fi

if [ $failed = 0 ]; then
	rm -rf "$T"
	echo "all checks passed"
	exit 0
fi
echo "--- kept $T"
exit 1
