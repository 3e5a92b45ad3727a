#!/bin/bash
# fast_search.sh --mrr MRR [--nobuf] -- PROG...
#
# Searched preemption points found through patched code (src/replay/
# fastsearch.h): records each PROG (programs whose timer signals and
# timeslices land in loops), then replays it with MRR_FAST_SEARCH_AFTER=1,
# so that every search patches the point's code after its first stop where
# it can. Each replay must verify (exit 0) and print what the recording
# printed, also where the signal is delivered at a patched point; and some
# searches must have been patched (counted by MRR_PREEMPT_STATS), or the
# test proves nothing.
set -u
mrr="" nobuf=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--nobuf) nobuf=-n; shift ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR [--nobuf] -- PROG..." >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] ||
	{ echo "usage: $0 --mrr MRR [--nobuf] -- PROG..." >&2; exit 2; }
dir=$(mktemp -d /tmp/mrr-fastsearch.XXXXXX) || exit 1
fail() {
	echo "FAIL: $*"
	echo "--- kept $dir"
	exit 1
}

patched=0
for prog in "$@"; do
	name=$(basename "$prog")
	timeout 100 "$mrr" record $nobuf -o "$dir/$name" -- "$prog" \
		>"$dir/$name.rec" 2>"$dir/$name.rec.err" ||
		fail "$name: the recording failed: $(tail -3 "$dir/$name.rec.err")"
	MRR_FAST_SEARCH_AFTER=1 MRR_PREEMPT_STATS=1 timeout 100 "$mrr" replay \
		"$dir/$name" >"$dir/$name.out" 2>"$dir/$name.err" ||
		fail "$name: the replay failed ($?): $(grep -v '^mrr: replay \(preemption\|memory\)' "$dir/$name.err" | tail -5)"
	cmp -s "$dir/$name.rec" "$dir/$name.out" ||
		fail "$name: the replay printed other output"
	n=$(sed -n 's/.* searched, \([0-9][0-9]*\) of them patched.*/\1/p' \
		"$dir/$name.err")
	echo "$name: ${n:-0} searches patched"
	patched=$((patched + ${n:-0}))
done
[ "$patched" -ge 3 ] || fail "only $patched searches were patched"
rm -rf "$dir"
echo "PASS: $patched searches patched"
