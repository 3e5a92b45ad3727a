#!/bin/bash
# thread_replays.sh --mrr MRR [--times N] [--nobuf] -- PROG
#
# Records PROG (a threaded test program that prints a result that depends on
# how its threads interleaved, like thread_atomic's racy count) once, then
# replays that one trace N times (default 20), each under a time limit. Every
# replay must exit 0 and print exactly the recorded stdout: the replay
# follows the recorded schedule, not a new one.
set -u
mrr=""
times=20
nobuf=()
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--times) times=$2; shift 2 ;;
	--nobuf) nobuf=(-n); shift ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR [--times N] [--nobuf] -- PROG" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || exit 2
dir=$(mktemp -d "${TMPDIR:-/tmp}/mrr-threplay.XXXXXX") || exit 1
fail() {
	echo "FAIL: $*"
	echo "--- kept $dir"
	exit 1
}
timeout -k 5 60 "$mrr" record "${nobuf[@]}" -o "$dir/t" -- "$@" \
	>"$dir/rec.out" 2>"$dir/rec.err" || fail "record failed: $(cat "$dir/rec.err")"
tail -n 1 "$dir/rec.out" | grep -qx PASS || fail "the recording did not pass"
for i in $(seq 1 "$times"); do
	timeout -k 5 60 "$mrr" replay "$dir/t" >"$dir/rep.out" 2>"$dir/rep.err"
	rc=$?
	[ $rc = 0 ] || fail "replay $i exited $rc: $(tail -n 5 "$dir/rep.err")"
	cmp -s "$dir/rec.out" "$dir/rep.out" ||
		fail "replay $i printed $(head -n 1 "$dir/rep.out"), the recording $(head -n 1 "$dir/rec.out")"
done
echo "ok: $times replays printed the recorded $(head -n 1 "$dir/rec.out")"
rm -rf "$dir"
