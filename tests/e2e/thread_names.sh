#!/bin/bash
# thread_names.sh --mrr MRR --edit TRACE_EDIT -- THREAD_NAMES_PROG
#
# Threads are named wherever a user reads a tid (issue 12). Records the
# program (two workers and the main thread taking turns) with -n and with
# the syscall buffer, and checks:
#   - dump: the clone3 lines say "new thread of pid P"; every thread switch
#     is a sched event;
#   - dump -t TID: a first line "# tid T: a thread of pid P", then only T's
#     events;
#   - dump -s: a tasks table with one row per task whose pid column is the
#     process, and whose events, switches and preemptions add up to the
#     totals of the dump;
#   - replay of a trace whose worker's write result was changed: the
#     divergence names "thread T of pid P";
#   - the watchdog's report names a thread too (the exit of a vfork child
#     of the second worker moved after the worker's switch).
. "$(dirname "$0")/edited_trace_lib.sh" thnames "$@"

for v in nobuf buf; do
	opt=()
	[ $v = nobuf ] && opt=(-n)
	timeout 60 "$mrr" record "${opt[@]}" -o "$dir/$v" -- "${prog[@]}" \
		>"$dir/$v.out" 2>"$dir/$v.err" || fail "record ($v) failed: $(cat "$dir/$v.err")"
	"$mrr" dump "$dir/$v" >"$dir/$v.dump" || fail "dump ($v) failed"
	pid=$(awk 'NR == 1 { print $2 }' "$dir/$v.dump")
	clones=$(grep -c " syscall clone3(.* = [0-9]*  traced, .*new thread of pid $pid\$" "$dir/$v.dump")
	[ "$clones" = 2 ] || fail "$v: $clones clone3 lines say 'new thread of pid $pid', expected 2"
	tids=$(sed -n 's/.* syscall clone3(.* = \([0-9]*\)  traced.*/\1/p' "$dir/$v.dump")

	for t in $tids; do
		"$mrr" dump -t "$t" "$dir/$v" >"$dir/t.dump" || fail "dump -t $t failed"
		head -n 1 "$dir/t.dump" | grep -qx "# tid $t: a thread of pid $pid" ||
			fail "$v: dump -t $t begins with '$(head -n 1 "$dir/t.dump")'"
		others=$(tail -n +2 "$dir/t.dump" | awk -v t="$t" '$2 != t' | grep -c '^[0-9]')
		[ "$others" = 0 ] || fail "$v: dump -t $t shows $others events of other tasks"
	done
	"$mrr" dump -t "$pid" "$dir/$v" | head -n 1 | grep -qx "# tid $pid: pid $pid" ||
		fail "$v: dump -t $pid does not begin with '# tid $pid: pid $pid'"

	"$mrr" dump -s "$dir/$v" >"$dir/s.out" || fail "dump -s ($v) failed"
	all=$(sed -n '/^tasks: /,$p' "$dir/s.out" | awk 'NR > 2')
	[ "$(echo "$all" | wc -l)" = 4 ] || fail "$v: dump -s tasks table: $(sed -n '/^tasks: /,$p' "$dir/s.out")"
	grep -qx "tasks: 4 in 2 processes (a thread's pid is its process's)" "$dir/s.out" ||
		fail "$v: no 'tasks: 4 in 2 processes' line: $(grep '^tasks' "$dir/s.out")"
	# the threads, and the vfork child (a process of its own)
	rows=$(echo "$all" | awk -v p="$pid" '$2 == p')
	child=$(echo "$all" | awk -v p="$pid" '$2 != p')
	[ "$(echo "$rows" | wc -l)" = 3 ] || fail "$v: not 3 tasks of pid $pid: $all"
	echo "$child" | awk '$1 != $2 || $3 != 1 { bad = 1 } END { exit bad }' ||
		fail "$v: the vfork child's row: $child"
	for t in $pid $tids; do
		echo "$rows" | awk -v t="$t" '$1 == t { f = 1 } END { exit !f }' ||
			fail "$v: no row for tid $t"
	done
	sum_ev=$(echo "$all" | awk '{ s += $3 } END { print s }')
	sum_sw=$(echo "$all" | awk '{ s += $5 } END { print s }')
	sum_pre=$(echo "$all" | awk '{ s += $6 } END { print s }')
	events=$(grep -c '^[0-9]' "$dir/$v.dump")
	scheds=$(grep -c '^[0-9]* [0-9]* sched ' "$dir/$v.dump")
	preempts=$(grep -c '^[0-9]* [0-9]* preempt ' "$dir/$v.dump")
	[ "$sum_ev" = "$events" ] && [ "$sum_sw" = "$scheds" ] &&
		[ "$sum_pre" = "$preempts" ] ||
		fail "$v: per-task sums events $sum_ev switches $sum_sw preemptions $sum_pre, dump has $events / $scheds / $preempts"
	[ "$scheds" -ge 2 ] || fail "$v: only $scheds sched events"
	sw=$(sed -n 's/^thread switches: \([0-9]*\)$/\1/p' "$dir/s.out")
	[ "$sw" = "$scheds" ] || fail "$v: 'thread switches: $sw', dump has $scheds sched events"
	# a thread's events count are its lines in dump -t
	t1=$(echo "$tids" | head -n 1)
	n1=$("$mrr" dump -t "$t1" "$dir/$v" | grep -c '^[0-9]')
	echo "$rows" | awk -v t="$t1" -v n="$n1" '$1 == t && $3 != n { bad = 1 } END { exit bad }' ||
		fail "$v: dump -s says other than the $n1 events dump -t $t1 shows"

	timeout 60 "$mrr" replay -q "$dir/$v" >/dev/null 2>"$dir/rep.err" ||
		fail "$v: the unedited trace did not replay: $(cat "$dir/rep.err")"
done

# ---- the divergence report names the thread (the first worker's write) ----
pid=$(awk 'NR == 1 { print $2 }' "$dir/nobuf.dump")
wseq=$(awk '$3 == "syscall" && $4 ~ /^write\(1,/ && $2 != p { print $1; exit }' p="$pid" "$dir/nobuf.dump")
wtid=$(awk -v s="$wseq" '$1 == s { print $2 }' "$dir/nobuf.dump")
[ -n "$wtid" ] && [ "$wtid" != "$pid" ] || fail "no worker write in the trace"
"$edit" --nr 1 --nth 1 --result 3 "$dir/nobuf" "$dir/bad" >/dev/null ||
	fail "trace_edit failed"
timeout 60 "$mrr" replay -q --divergence-json "$dir/div.json" "$dir/bad" \
	>/dev/null 2>"$dir/div.err"
rc=$?
[ $rc = 70 ] || fail "the edited trace replayed with exit $rc: $(cat "$dir/div.err")"
grep -q "^mrr: replay diverged at event [0-9]* (thread $wtid of pid $pid, live tid [0-9]*): " "$dir/div.err" ||
	fail "the divergence does not name thread $wtid of pid $pid: $(head -n 3 "$dir/div.err")"
# (the write's own digest may already give it away: then the report is at
# the write, and the recent events before it are other threads')
grep -q "^mrr:     event $wseq thread $wtid of pid $pid: write(" "$dir/div.err" ||
	grep -q "^mrr: replay diverged at event $wseq (thread $wtid of pid $pid" "$dir/div.err" ||
	fail "the report names neither the write nor its thread: $(head -n 3 "$dir/div.err")"
grep -q "^mrr:     event [0-9]* thread [0-9]* of pid $pid: " "$dir/div.err" ||
	fail "the recent events do not name threads: $(grep -A 10 'last events' "$dir/div.err")"
python3 - "$dir/div.json" "$wtid" "$pid" <<'PY' || fail "the JSON report does not name the thread"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["pid"] == int(sys.argv[2]) and r["tgid"] == int(sys.argv[3]), r
PY

# ---- the watchdog's report names the thread (vfork from the second worker) ----
seq=$(awk '$3 == "exit" && $5 == "42" { print $1; exit }' "$dir/nobuf.dump")
vtid=$(awk '$3 == "syscall" && $4 ~ /^vfork/ { print $2; exit }' "$dir/nobuf.dump")
[ -n "$seq" ] && [ -n "$vtid" ] || fail "no vfork child exiting 42 in the trace"
# move the child's exit after the vfork parent's next event
cp -r "$dir/nobuf" "$dir/swapped"
for _ in 1 2 3 4 5 6; do
	rm -rf "$dir/sw.tmp"
	"$edit" --swap "$seq" "$dir/swapped" "$dir/sw.tmp" >/dev/null ||
		fail "trace_edit --swap $seq failed"
	rm -rf "$dir/swapped"
	mv "$dir/sw.tmp" "$dir/swapped"
	moved=$("$mrr" dump "$dir/swapped" "$seq" | awk '{ print $2 }')
	[ "$moved" = "$vtid" ] && break
	seq=$((seq + 1))
done
[ "$moved" = "$vtid" ] || fail "could not move the child's exit after thread $vtid's next event"
timeout 60 "$mrr" replay --stall-timeout 2 -q "$dir/swapped" >/dev/null 2>"$dir/stuck.err"
rc=$?
[ $rc = 70 ] || fail "the swapped trace replayed with exit $rc: $(cat "$dir/stuck.err")"
grep -q "^mrr: replay is stuck at event $seq: mrr has waited [0-9]* s for thread $vtid of pid $pid (live tid [0-9]*), which is .* in vfork" "$dir/stuck.err" ||
	fail "the stuck report does not name thread $vtid of pid $pid: $(cat "$dir/stuck.err")"
grep -q "^mrr:   thread $pid of pid $pid (live tid [0-9]*) is " "$dir/stuck.err" ||
	fail "the stuck report does not name the main thread: $(cat "$dir/stuck.err")"
echo "ok: dump, dump -t, dump -s, the divergence and the stuck reports name the threads of pid $pid"
rm -rf "$dir"
