#!/bin/sh
# Records and replays the seed program of rr issue 3667 (mlock + MADV_DONTNEED)
# and a shell pipeline, then shows the madvise event of the trace.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
mrr="$top/build/bin/mrr"
dir=$(mktemp -d /tmp/mrr-demo.XXXXXX)
trap 'rm -rf "$dir"' EXIT

echo "== record: the mlock + MADV_DONTNEED seed program"
"$mrr" record -o "$dir/seed" "$top/build/tests/programs/madv_seed"
echo "== replay"
"$mrr" replay "$dir/seed"
echo "== the madvise event as recorded"
"$mrr" dump "$dir/seed" | grep madvise
echo "== record and replay: sh -c 'ls / | sort | head -3'"
"$mrr" record -o "$dir/sh" sh -c 'ls / | sort | head -3'
"$mrr" replay "$dir/sh"
echo "demo: both recordings replayed faithfully"
