#!/bin/bash
# divergence.sh: mrr replay must refuse traces that do not match the program.
#
#   divergence.sh --mrr PATH --trace-edit PATH --check result [--nr NR]
#                 [--at exact|next] -- PROG
#       Records PROG without the syscall buffer (so its syscalls are SYSCALL
#       events), checks the untouched trace replays, then changes the result
#       of the first SYSCALL event with syscall number NR (default 1, write)
#       with trace_edit. Replaying that must exit 70, name the changed event
#       N on stderr ("event N"), and report the divergence on its first line
#       at event N (--at exact: a syscall the replayer executes, whose real
#       result it can compare) or at N or N+1 (--at next, the default: an
#       emulated result is only noticed when the program acts on it).
#   divergence.sh --mrr PATH --trace-edit PATH --check digest -- PROG
#       Flips a bit of the digest of the bytes PROG's first write gave the
#       kernel. Replaying that must exit 70, name the event and say that the
#       program wrote other bytes than at record.
#   divergence.sh --mrr PATH --trace-edit PATH --check incomplete -- PROG
#       Copies the first 3 events of the recording into an uncommitted trace.
#       Replaying that must exit 65 and say the trace is incomplete.
# Exits 0 when mrr behaved, 1 otherwise (keeping its scratch directory).

set -u

usage() {
	echo "usage: $0 --mrr PATH --trace-edit PATH --check result|digest|incomplete" \
		"[--nr NR] [--at exact|next] -- PROG [ARGS...]" >&2
	exit 2
}

mrr=""
edit=""
check=""
nr=1
at=next
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--trace-edit) [ $# -ge 2 ] || usage; edit=$2; shift 2 ;;
	--check) [ $# -ge 2 ] || usage; check=$2; shift 2 ;;
	--nr) [ $# -ge 2 ] || usage; nr=$2; shift 2 ;;
	--at) [ $# -ge 2 ] || usage; at=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$edit" ] && [ $# -ge 1 ] || usage
case $check in result | digest | incomplete) ;; *) usage ;; esac
case $at in exact | next) ;; *) usage ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-divergence.XXXXXX") || exit 1

fail() {
	echo "FAIL: $*"
	for f in "$T"/*.err; do
		[ -s "$f" ] && { echo "--- $(basename "$f"):"; tail -n 20 "$f"; }
	done
	echo "--- kept $T"
	exit 1
}

# run NAME CMD...: output in $T/NAME.out and $T/NAME.err; sets rc.
run() {
	local name=$1
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	rc=$?
}

run record "$mrr" record -n -o "$T/trace" -- "$@"
[ $rc = 0 ] || fail "mrr record of $* exited $rc"
run replay "$mrr" replay -q "$T/trace"
[ $rc = 0 ] || fail "the untouched trace does not replay: exit $rc"

if [ "$check" = result ]; then
	run edit "$edit" --nr "$nr" "$T/trace" "$T/edited"
	[ $rc = 0 ] || fail "trace_edit exited $rc"
	event=$(sed -n 's/^event \([0-9]*\):.*/\1/p' "$T/edit.out")
	[ -n "$event" ] || fail "trace_edit did not say which event it changed"
	echo "changed $(cat "$T/edit.out")"
	run edited "$mrr" replay -q "$T/edited"
	[ $rc = 70 ] || fail "replay of the changed trace exited $rc, not 70"
	grep -Eq "event $event([^0-9]|\$)" "$T/edited.err" ||
		fail "the divergence report does not name event $event"
	first=$(head -n 1 "$T/edited.err")
	at_event=$(echo "$first" | sed -n 's/.*event \([0-9][0-9]*\).*/\1/p')
	[ -n "$at_event" ] ||
		fail "the report's first line names no event: $first"
	last_ok=$event
	expected=$event
	if [ "$at" = next ]; then
		last_ok=$((event + 1))
		expected="$event or $last_ok"
	fi
	[ "$at_event" -ge "$event" ] && [ "$at_event" -le $last_ok ] ||
		fail "the divergence is reported at event $at_event, expected" \
			"$expected"
	echo "ok: replay exited 70: $first"
elif [ "$check" = digest ]; then
	run edit "$edit" --digest 1 "$T/trace" "$T/edited"
	[ $rc = 0 ] || fail "trace_edit --digest exited $rc (no write digest?)"
	event=$(sed -n 's/^event \([0-9]*\):.*/\1/p' "$T/edit.out")
	[ -n "$event" ] || fail "trace_edit did not say which event it changed"
	run edited "$mrr" replay -q "$T/edited"
	[ $rc = 70 ] || fail "replay of the changed trace exited $rc, not 70"
	first=$(head -n 1 "$T/edited.err")
	echo "$first" | grep -Eq "event $event([^0-9]|\$)" ||
		fail "the report's first line does not name event $event: $first"
	echo "$first" | grep -q "wrote other bytes than at record" ||
		fail "the report does not say the bytes differ: $first"
	echo "ok: replay exited 70: $first"
else
	run edit "$edit" --truncate 3 "$T/trace" "$T/partial"
	[ $rc = 0 ] || fail "trace_edit --truncate exited $rc"
	run partial "$mrr" replay -q "$T/partial"
	[ $rc = 65 ] || fail "replay of an uncommitted trace exited $rc, not 65"
	grep -qi incomplete "$T/partial.err" ||
		fail "the error does not say the trace is incomplete"
	echo "ok: replay exited 65: $(head -n 1 "$T/partial.err")"
fi
rm -rf "$T"
exit 0
