#!/bin/bash
# threads_stats.sh: what each real threaded program of tests/real_threads
# needs under mrr: threads, events by kind (scheduling decisions and
# preemptions among them, once the trace has them), record and replay
# seconds, and what the replay says about its searches for preemption
# points. One recording each, as the current user.
#
#   bench/threads_stats.sh [BUILD_DIR] [NAME...]     (default: build, all)
#
# Environment: MRR (default BUILD_DIR/bin/mrr), VARIANT (buf or nobuf;
# default buf), TIMEOUT (seconds per record or replay, default 300). The Go
# program must have been built (ctest --test-dir BUILD -R go_build).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
[ $# -gt 0 ] && shift
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(python_queue sort_parallel sort_15mb
	zstd_t2 xz_t2 go node openssl_speed)
for n in "${names[@]}"; do
	bash "$root/tests/real_threads/run.sh" --mrr "${MRR:-$build/bin/mrr}" \
		--harness "$root/tests/e2e/record_replay.sh" \
		--goprog "$build/tests/real_threads/goprog/goprog" \
		--variant "${VARIANT:-buf}" --timeout "${TIMEOUT:-300}" \
		--stats "$n"
done
