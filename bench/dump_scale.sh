#!/bin/bash
# dump_scale.sh BUILD: times `mrr dump` over synthetic traces of 100k events
# (made with tests/hardening/trace_forge) and prints seconds and peak RSS.
#
#   bench/dump_scale.sh build
#
# The traces: 20k and 100k anonymous mmaps; 20k mmaps with 2,000 forks
# whose children live to the end (each once copied the whole map); 100k
# tids; and one event holding a 2 GiB write (a 68 KB trace).
set -eu
build=$(realpath "${1:?usage: $0 BUILD}")
mrr=$build/bin/mrr
forge=$build/tests/hardening/trace_forge
hello=$build/tests/programs/hello
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-dump-scale.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$forge" scale "$T/maps20k" 20000 0 0
"$forge" scale "$T/maps100k" 100000 0 0
"$forge" scale "$T/maps20k_forks2k" 20000 2000 0
"$forge" scale "$T/tids100k" 0 0 100000
"$mrr" record -o "$T/hello" -- "$hello" >/dev/null 2>&1
"$forge" bomb 2048 "$T/hello" "$T/bomb2g"

printf '%-18s %-10s %8s %10s\n' trace options seconds "peak MB"
for t in maps20k maps100k maps20k_forks2k tids100k bomb2g; do
	for opts in "" "-m" "--stable"; do
		start=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$forge" maxrss "$T/rss" "$mrr" dump $opts "$T/$t" >/dev/null
		end=$(date +%s.%N)
		printf '%-18s %-10s %8.2f %10d\n' "$t" "${opts:--}" \
			"$(echo "$end - $start" | bc)" $(($(cat "$T/rss") / 1024))
	done
done
