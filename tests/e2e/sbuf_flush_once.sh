#!/bin/bash
# sbuf_flush_once.sh MRR PROG: records tests/programs/sbuf_flush_deferred
# (signals held while it makes only buffered calls) RUNS times (default 2)
# and checks each trace: every buffer flush of a task is followed by an
# event of that task before its next flush (the replay loads a flush while
# the task stands after its previous event, so a second one would replace
# the first before the program made its calls), mrr dump -s counts each of
# the program's lseeks once (a flush at a stop inside the library wrote
# records twice), and the replay passes.
set -u
mrr=$1 prog=$2
dir=$(mktemp -d /tmp/mrr-sbuf-flush-once.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

for ((run = 1; run <= ${RUNS:-2}; run++)); do
	rm -rf "$dir/t"
	timeout 100 "$mrr" record -o "$dir/t" "$prog" 100 >"$dir/out" \
		2>"$dir/err" || fail "run $run: record failed (status $?)"
	grep -qx PASS "$dir/out" || fail "run $run: the program did not pass"
	timeout 60 "$mrr" dump "$dir/t" >"$dir/dump" 2>"$dir/err" ||
		fail "run $run: dump failed"
	twice=$(awk '$3 == "buffer" && last[$2] == "buffer" { print $1 }
		{ last[$2] = $3 }' "$dir/dump")
	[ -z "$twice" ] || fail "run $run: flushes with no event of their" \
		"task before them: events $(echo $twice | cut -c1-200)"
	reads=$(sed -n 's/.* between \([0-9]*\) buffered reads$/\1/p' \
		"$dir/out")
	timeout 60 "$mrr" dump -s "$dir/t" >"$dir/stats" 2>"$dir/err" ||
		fail "run $run: dump -s failed"
	lseeks=$(awk '$1 == "lseek" { print $2 }' "$dir/stats")
	[ -n "$reads" ] && [ "$lseeks" = "$reads" ] ||
		fail "run $run: the program made ${reads:-?} lseeks, the" \
			"trace has ${lseeks:-none}"
	timeout 100 "$mrr" replay "$dir/t" >"$dir/rout" 2>"$dir/err" ||
		fail "run $run: replay failed"
	cmp -s "$dir/out" "$dir/rout" || fail "run $run: replay output differs"
done
echo "ok: $((run - 1)) recordings, each flush before an event of its task"
