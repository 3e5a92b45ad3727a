#!/bin/bash
# kill_program.sh: a recorded process is killed from outside, by pid.
#
#   kill_program.sh --mrr PATH --victim COMM [--signal SIG] [--expect N]
#                   [--nobuf] -- PROG [ARGS...]
#
# Starts `mrr record -o TRACE PROG ARGS`, waits until a recorded process
# named COMM (its /proc comm, as pgrep matches it) runs, lets it run ~200
# ms, and sends it SIG (default KILL) with kill(1), as another shell would.
# Then:
#   - mrr record exits N (default 128+SIG: the victim is the program
#     itself) and leaves no recorded process behind;
#   - the trace is complete (`mrr dump -s`: status complete) and its last
#     event of the victim says it was killed by SIG;
#   - `mrr replay TRACE` exits 0 (it reproduced every event, the death and
#     every exit status included) and echoes exactly the recorded stdout.
# Exits 0 when all held, 1 otherwise (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH --victim COMM [--signal SIG] [--expect N]" \
		"[--nobuf] -- PROG [ARGS...]" >&2
	exit 2
}

mrr=""
victim=""
sig=KILL
expect=""
nobuf=()
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--victim) [ $# -ge 2 ] || usage; victim=$2; shift 2 ;;
	--signal) [ $# -ge 2 ] || usage; sig=${2#SIG}; shift 2 ;;
	--expect) [ $# -ge 2 ] || usage; expect=$2; shift 2 ;;
	--nobuf) nobuf=(-n); shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$victim" ] && [ $# -ge 1 ] || usage
num=$(kill -l "$sig") || usage
[ -n "$expect" ] || expect=$((128 + num))

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-killprog.XXXXXX") || exit 1
ulimit -c 0
what="SIG$sig to recorded $victim${nobuf:+ (-n)}"

"${MARK[@]}" "$mrr" record "${nobuf[@]}" -o "$T/trace" -- "$@" \
	>"$T/rec.out" 2>"$T/rec.err" </dev/null &
pid=$!
vpid=""
for _ in $(seq 1 500); do
	vpid=$(leftovers | awk -v c="$victim" '$3 == c { print $1; exit }')
	[ -n "$vpid" ] && break
	sleep 0.02
done
if [ -z "$vpid" ]; then
	kill -KILL "$pid"
	die "$what: no recorded process named $victim showed up"
fi
sleep 0.2
kill -"$sig" "$vpid" || fail "$what: kill of pid $vpid failed"
for _ in $(seq 1 600); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
	kill -KILL "$pid"
	fail "$what: mrr record did not finish within 60 s"
fi
wait "$pid"
status=$?
if ! left=$(wait_no_leftovers); then
	fail "$what: recorded processes survive:" $left
	kill_leftovers
fi
[ $status = "$expect" ] ||
	{ fail "$what: mrr record exited $status, expected $expect"; show rec; }

run dump_s "$mrr" dump -s "$T/trace"
state=$(sed -n 's/^status: //p' "$T/dump_s.out")
[ $rc = 0 ] && [ "$state" = complete ] ||
	{ fail "$what: dump -s exited $rc, status '$state'"; show dump_s; }
run dump "$mrr" dump -t "$vpid" "$T/trace"
last=$(tail -n 1 "$T/dump.out")
echo "$last" | grep -q "killed by SIG$sig" ||
	fail "$what: the victim's last event does not say it was killed by" \
		"SIG$sig: $last"

run replay "${MARK[@]}" "$mrr" replay "$T/trace"
if [ $rc != 0 ]; then
	fail "$what: mrr replay exited $rc:"
	show replay
elif ! cmp -s "$T/rec.out" "$T/replay.out"; then
	fail "$what: the replay's stdout differs from the recording's:"
	diff "$T/rec.out" "$T/replay.out" | head -n 10
fi
if ! left=$(wait_no_leftovers); then
	fail "$what: the replay left processes behind:" $left
	kill_leftovers
fi

if [ $hard_failed = 0 ]; then
	echo "ok: $what: record exited $status, trace complete" \
		"($(grep -c . "$T/rec.out") lines of stdout), replay exited 0:" \
		"$last"
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
