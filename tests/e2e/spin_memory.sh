#!/bin/bash
# spin_memory.sh MRR PROG TIMES [-n]: the ambiguous case of preemption
# points (README "Threaded programs"). PROG (spin_memory_prog.c) has a
# thread spin on a flag while it counts in memory, its registers and stack
# the same at every turn; mrr preempts it there, and the replay finds the
# point again by registers and stack, at a turn that may not be the
# recorded one. Each of TIMES rounds records PROG (counter in a global,
# then on the heap) and replays it: the replay must print the recorded
# count, or report a divergence saying the memory differs (exit 70);
# exiting 0 with another count fails the test.
set -u
mrr=$1
prog=$2
times=$3
shift 3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
same=0
diverged=0
for i in $(seq 1 "$times"); do
	for where in global heap; do
		rm -rf "$T/trace"
		timeout -k 5 60 "$mrr" record "$@" -o "$T/trace" -- "$prog" \
			"$where" >"$T/rec.out" 2>"$T/rec.err"
		rc=$?
		if [ $rc != 0 ]; then
			echo "FAIL: round $i ($where): mrr record exited $rc"
			cat "$T/rec.err"
			exit 1
		fi
		timeout -k 5 60 "$mrr" replay "$T/trace" >"$T/rep.out" \
			2>"$T/rep.err"
		rc=$?
		if [ $rc = 0 ] && cmp -s "$T/rec.out" "$T/rep.out"; then
			same=$((same + 1))
		elif [ $rc = 70 ] &&
			grep -q "the process's memory differs" "$T/rep.err"; then
			diverged=$((diverged + 1))
		else
			echo "FAIL: round $i ($where): replay exited $rc"
			echo "--- recorded: $(cat "$T/rec.out")"
			echo "--- replayed: $(cat "$T/rep.out")"
			tail -n 5 "$T/rep.err"
			exit 1
		fi
	done
done
echo "ok: $same replays printed the recorded count, $diverged reported" \
	"the memory divergence, none printed another count"
