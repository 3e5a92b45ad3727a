#!/bin/sh
# Builds mrr with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DMRR_SANITIZE=ON: mrrcore and everything linked with it, that is the
# recorder, the replayer, dump and the CLI; not the preload library, which
# runs inside recorded programs) in build-asan/, and runs there the unit
# tests and the end-to-end tests (label e2e), minus the slow ones, within a
# time budget.
#
#   scripts/test-asan.sh [-j N] [--budget SECONDS] [--hardening]
#
# --budget (default 1500) is the wall-clock limit for all tests: ctest
# starts no test after it has passed. --hardening adds the label hardening
# (tests/hardening/, a few minutes more).
#
# Sanitizer settings, and why:
# - detect_leaks=1: mrr is a short-lived CLI, but a leak report is still a
#   finding. LeakSanitizer stops mrr's threads with ptrace at exit; mrr is
#   never itself traced, so it can. Children mrr forks exec another program
#   (or _exit) before LeakSanitizer would run in them.
# - abort_on_error=0, exitcode 99 (ASan) / halt_on_error=1 (UBSan): a
#   finding makes mrr exit with a code no test expects, so the test fails
#   and ctest --output-on-failure shows the report.
# - ASAN_OPTIONS is inherited by the recorded programs too; they are not
#   instrumented, so it does nothing there.
#
# What it found when it was written (both fixed in 98eda2c): the replayer
# read event payloads by casting mrr_event.extra, which may point at any
# byte, to structs that need alignment (UBSan, in every replay); and
# mrr_record leaked its stored-file cache on a trace write error (LSan).
# Later: the recorder's child called setenv (LD_PRELOAD) after PR_SET_TSC;
# ASan's allocator reads the clock through the vDSO, whose rdtsc then
# faulted, so no recording with the syscall buffer worked in this build
# (mrr exited 66). The child now allocates before rdtsc traps, and the
# prog/* tests here cover the buffered path.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

jobs=$(nproc)
budget=1500
labels=e2e
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	--hardening) labels="e2e|hardening"; shift ;;
	*)
		echo "usage: $0 [-j N] [--budget SECONDS] [--hardening]" >&2
		exit 2
		;;
	esac
done

cmake -S . -B build-asan -DMRR_SANITIZE=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j"$jobs"

ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99:detect_stack_use_after_return=1:strict_string_checks=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
export ASAN_OPTIONS UBSAN_OPTIONS

# Slow under the sanitizers and no different in what they exercise in mrr:
# 100,000 traced syscalls (many_events; hostile_seccomp_kill, whose filter
# turns the syscall buffer off for 120,000 calls), the malloc stress, the
# fuzzer (it runs in its own job), the kill loops and the 1 GiB pipe of
# tests/hardening. preload/user_library cannot run here: ASan must be the
# first preloaded library, and that test puts the user's library first.
slow='^(prog/many_events|prog/hostile_seccomp_kill|prog/malloc_cycle|fuzz/|hardening/kill_recorder|hardening/big_pipe|preload/user_library)'

stop=$(date -d "+$budget seconds" +%H:%M:%S)
status=0
ctest --test-dir build-asan -j"$jobs" --output-on-failure --timeout 300 \
	--stop-time "$stop" -R '^unit/' || status=1
ctest --test-dir build-asan -j"$jobs" --output-on-failure --timeout 300 \
	--stop-time "$stop" -L "$labels" -E "$slow" ||
	status=1
exit $status
