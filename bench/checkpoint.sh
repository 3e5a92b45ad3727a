#!/bin/bash
# checkpoint.sh: what a replay checkpoint costs (src/replay/checkpoint.h).
#
#   bench/checkpoint.sh [BUILD_DIR]        (default: build)
#
# Records bench_checkpoint_heap (HEAP_MIB of heap filled, then STEPS
# getppid calls each followed by a write to another heap page) with
# `mrr record -n`, so that every call is an event. Then, RUNS times,
# tests/tools/replay_checkpoint --bench replays it, takes a checkpoint at
# the first getppid (the heap filled), replays the span of STEPS events to
# the end, goes back to the checkpoint and replays the span again; and the
# same with --restart (going back re-creates the replay and replays to the
# checkpoint's event). Prints medians, each as a ratio to the replay of the
# span: the time to take the checkpoint, to restore it, and to restart
# instead; and the memory of the forked copy (RSS, and PSS, which counts a
# page shared copy-on-write with the live process as half) against the
# process's RSS. Not a test: the numbers depend on the machine and its load.
#
# Environment: RUNS (default 5), HEAP_MIB (256), STEPS (20000).

set -eu
export LC_ALL=C

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mrr=$build/bin/mrr
tool=$build/tests/tools/replay_checkpoint
prog=$build/bench/bench_checkpoint_heap
runs=${RUNS:-5}
heap=${HEAP_MIB:-256}
steps=${STEPS:-20000}
for f in "$mrr" "$tool" "$prog"; do
	if [ ! -x "$f" ]; then
		echo "checkpoint.sh: $f is missing; build first:" \
			"cmake --build $build" >&2
		exit 1
	fi
done
dir=$(mktemp -d /tmp/mrr-bench-checkpoint.XXXXXX)
trap 'rm -rf "$dir"' EXIT

timeout 600 "$mrr" record -n -o "$dir/t" -- "$prog" "$heap" "$steps" \
	>/dev/null 2>&1
# after the first getppid: the heap is filled
event=$("$mrr" dump "$dir/t" | awk '$4 ~ /^getppid/ { print $1 + 1; exit }')
total=$("$mrr" dump "$dir/t" | grep -c .)
[ -n "$event" ] || { echo "checkpoint.sh: no getppid event" >&2; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# field NAME FILE...: the value after NAME on the "bench:" lines
field() {
	local name=$1
	shift
	for f in "$@"; do
		grep -h "^bench:" "$f" | tr ' ' '\n' |
			awk -v n="$name" 'p { print; exit } $0 == n { p = 1 }'
	done
}
for r in $(seq "$runs"); do
	timeout 600 "$tool" --bench "$dir/t" "$event" 2>"$dir/fork.$r" ||
		{ echo "checkpoint.sh: replay failed:" >&2; tail "$dir/fork.$r" >&2; exit 1; }
	timeout 600 "$tool" --bench --restart "$dir/t" "$event" \
		2>"$dir/restart.$r" ||
		{ echo "checkpoint.sh: replay failed:" >&2; tail "$dir/restart.$r" >&2; exit 1; }
done
m() { field "$1" "$dir"/$2.* | median; }
span=$(m span_s fork)
take=$(m take_s fork)
restore=$(m restore_s fork)
respan=$(m respan_s fork)
restart=$(m restore_s restart)
fwd=$(m fwd_s fork)
live_rss=$(m live_rss_kb fork)
copy_rss=$(m copies_rss_kb fork)
copy_pss=$(m copies_pss_kb fork)
live_pss=$(m live_pss_kb fork)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

echo "checkpoint of a replay: $heap MiB heap, checkpoint at event $event" \
	"of $total, span of $((total - event)) events after it; medians of $runs runs"
echo
echo "| measure | value | ratio to replaying the span ($span s) |"
echo "|---|---|---|"
echo "| replay from the start to the checkpoint | $fwd s | $(ratio "$fwd" "$span") |"
echo "| take the checkpoint (inject fork, save state) | $take s | $(ratio "$take" "$span") |"
echo "| restore it (kill, fork the copy, put state back) | $restore s | $(ratio "$restore" "$span") |"
echo "| replay the span again after the restore | $respan s | $(ratio "$respan" "$span") |"
echo "| restart instead (re-create, replay to the event) | $restart s | $(ratio "$restart" "$span") |"
echo
echo "| memory at the checkpoint | kB | ratio to the live process's RSS |"
echo "|---|---|---|"
echo "| live process RSS | $live_rss | 1 |"
echo "| live process PSS | $live_pss | $(ratio "$live_pss" "$live_rss") |"
echo "| forked copy RSS | $copy_rss | $(ratio "$copy_rss" "$live_rss") |"
echo "| forked copy PSS (copy-on-write pages count half) | $copy_pss | $(ratio "$copy_pss" "$live_rss") |"
