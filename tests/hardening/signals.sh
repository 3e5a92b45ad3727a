#!/bin/bash
# signals.sh: SIGINT, SIGTERM and SIGHUP sent to `mrr record` (not to the
# program) while it records a long-running program.
#
#   signals.sh --mrr PATH [--signals "INT TERM HUP"] [--group]
#              -- PROG [ARGS...]
#
# For each signal: starts `mrr record -o TRACE PROG ARGS`, waits until the
# program runs and then ~200 ms more, and sends the signal to mrr alone
# (with --group: to mrr's whole process group, as Ctrl-C in a terminal
# does, so the program gets it too). Then:
#   - mrr record exits 128+N and prints one line (besides its "recording"
#     line) saying the recording was interrupted;
#   - no recorded process is left;
#   - the trace is committed: `mrr dump TRACE` works without -f, and
#     `mrr dump -s` and `mrr ls` say it is interrupted (with --group, where
#     the program may die of the signal first, a complete trace of that
#     death is accepted too);
#   - `mrr replay TRACE` exits 0, says on stderr that it replayed up to the
#     interruption, and echoes a prefix of what the recording printed.
# Exits 0 when all held, 1 otherwise (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH [--signals LIST] [--group] -- PROG" \
		"[ARGS...]" >&2
	exit 2
}

mrr=""
signals="INT TERM HUP"
group=0
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--signals) [ $# -ge 2 ] || usage; signals=$2; shift 2 ;;
	--group) group=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ $# -ge 1 ] || usage
command -v setsid >/dev/null || skip "setsid is not installed"

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-signals.XXXXXX") || exit 1
mkdir "$T/traces"
ulimit -c 0

for sig in $signals; do
	num=$(kill -l "$sig") || usage
	tr=$T/traces/$sig
	what="SIG$sig to mrr record"
	[ $group = 1 ] && what="SIG$sig to mrr record's process group"

	# setsid: mrr leads its own process group, so --group reaches only it
	# and the programs it records.
	setsid "${MARK[@]}" "$mrr" record -o "$tr" -- "$@" \
		>"$T/rec.out" 2>"$T/rec.err" </dev/null &
	pid=$!
	for _ in $(seq 1 200); do
		[ -n "$(leftovers | grep -v " $(basename "$mrr")\$")" ] && break
		sleep 0.02
	done
	sleep 0.2
	if [ $group = 1 ]; then
		kill -"$sig" -- -"$pid"
	else
		kill -"$sig" "$pid"
	fi
	wait "$pid"
	status=$?

	if ! left=$(wait_no_leftovers); then
		fail "$what: recorded processes survive:" $left
		kill_leftovers
	fi
	if [ $status != $((128 + num)) ]; then
		fail "$what: mrr record exited $status, expected $((128 + num))"
		show rec
		continue
	fi
	msg=$(mrr_lines rec)
	if [ "$(echo "$msg" | wc -l)" != 1 ] ||
		! echo "$msg" | grep -qi interrupted; then
		# With --group the program may die of the signal before mrr
		# sees its own: that is a complete recording of the death.
		if [ $group = 0 ] || [ -n "$msg" ]; then
			fail "$what: mrr record's message is not one line" \
				"saying interrupted:"
			show rec
		fi
	fi

	run dump "$mrr" dump -s "$tr"
	state=$(sed -n 's/^status: //p' "$T/dump.out")
	if [ $rc != 0 ]; then
		fail "$what: mrr dump -s (without -f) exited $rc:"
		show dump
	elif [ "$state" != interrupted ] &&
		! { [ $group = 1 ] && [ "$state" = complete ]; }; then
		fail "$what: mrr dump -s says status '$state', not interrupted"
	fi
	run dump_all "$mrr" dump "$tr"
	[ $rc = 0 ] && [ -s "$T/dump_all.out" ] ||
		{ fail "$what: mrr dump exited $rc"; show dump_all; }
	run ls env MRR_TRACE_DIR="$T/traces" "$mrr" ls
	ls_state=$(awk -v n="$sig" '$1 == n { print $NF }' "$T/ls.out")
	[ $rc = 0 ] && [ "$ls_state" = "$state" ] ||
		fail "$what: mrr ls exited $rc and says '$ls_state'," \
			"dump says '$state'"

	run replay "${MARK[@]}" "$mrr" replay "$tr"
	if [ $rc != 0 ]; then
		fail "$what: mrr replay exited $rc:"
		show replay
	elif [ "$state" = interrupted ] &&
		! grep -qi interrupted "$T/replay.err"; then
		fail "$what: the replay does not say it stopped at the" \
			"interruption:"
		show replay
	elif ! head -c "$(wc -c <"$T/replay.out")" "$T/rec.out" |
		cmp -s - "$T/replay.out"; then
		fail "$what: the replay printed what the recording did not"
	else
		echo "ok: $what: exit $status, $state," \
			"$(grep -c '^[0-9]' "$T/dump_all.out") events," \
			"replayed: $(grep -i 'replayed' "$T/replay.err" |
				head -n 1)"
	fi
	if ! left=$(wait_no_leftovers); then
		fail "$what: the replay left processes behind:" $left
		kill_leftovers
	fi
done

if [ $hard_failed = 0 ]; then
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
