#!/bin/bash
# refused.sh: a program mrr may refuse to record must be refused cleanly.
#
#   refused.sh --mrr PATH --message REGEX [--allow-faithful] [--nobuf]
#              [--dump-says-why] -- PROG [ARGS...]
#
# Records PROG (with -n if --nobuf) and accepts one of two outcomes:
#   refused  mrr record exits 69; besides its "recording" line it prints
#            exactly one line, matching REGEX (extended) and naming the
#            event where it stopped ("at event N"); no recorded process is
#            left; the trace is committed: `mrr dump` works without -f, its
#            last event is N-1, `mrr dump -s` says status error; and
#            `mrr replay` exits 0, saying why the recording stopped, and
#            echoes a prefix of the recorded stdout;
#   skipped  the program printed SKIP and exited 77 (it lacks a privilege
#            it needs): exits 77;
#   faithful (only with --allow-faithful) mrr record exits 0, the program
#            printed PASS, and the replay exits 0 with the same stdout.
# With --dump-says-why, a refusal must also have `mrr dump` or `mrr dump -s`
# print the message (the reason the recording stopped), not only replay.
# Anything else (a crash of the program or of mrr, a hang, a replay that
# diverges) fails. Exits 0 or 1 (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH --message REGEX [--allow-faithful]" \
		"[--nobuf] [--dump-says-why] -- PROG [ARGS...]" >&2
	exit 2
}

mrr=""
regex=""
faithful=0
dump_why=0
nobuf=()
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--message) [ $# -ge 2 ] || usage; regex=$2; shift 2 ;;
	--allow-faithful) faithful=1; shift ;;
	--nobuf) nobuf=(-n); shift ;;
	--dump-says-why) dump_why=1; shift ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$regex" ] && [ $# -ge 1 ] || usage

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-refused.XXXXXX") || exit 1
ulimit -c 0
what="$(basename "$1")${2:+ $2}${nobuf:+ (-n)}"

run rec "${MARK[@]}" "$mrr" record "${nobuf[@]}" -o "$T/trace" -- "$@"
status=$rc
if ! left=$(wait_no_leftovers); then
	fail "$what: recorded processes survive:" $left
	kill_leftovers
fi

if [ $status = 0 ] && [ $faithful = 1 ]; then
	[ "$(tail -n 1 "$T/rec.out")" = PASS ] ||
		{ fail "$what: recorded, but the program did not pass:"
		  show rec; }
	run replay "${MARK[@]}" "$mrr" replay "$T/trace"
	[ $rc = 0 ] || { fail "$what: replay exited $rc:"; show replay; }
	cmp -s "$T/rec.out" "$T/replay.out" ||
		fail "$what: the replay's stdout differs from the recording's"
	outcome="recorded and replayed faithfully"
elif [ $status = 77 ] && grep -q '^SKIP' "$T/rec.out"; then
	echo "skip: $what: $(grep '^SKIP' "$T/rec.out")"
	rm -rf "$T"
	exit 77
elif [ $status = 69 ]; then
	msg=$(mrr_lines rec)
	at=$(echo "$msg" | sed -n 's/.*at event \([0-9][0-9]*\).*/\1/p')
	if [ "$(echo "$msg" | wc -l)" != 1 ] ||
		! echo "$msg" | grep -Eq -- "$regex"; then
		fail "$what: mrr record's message is not one line matching" \
			"/$regex/:"
		show rec
	elif [ -z "$at" ]; then
		fail "$what: the message does not say at which event it" \
			"stopped: $msg"
	fi
	run dump "$mrr" dump "$T/trace"
	last=$(grep -v "^#" "$T/dump.out" | tail -n 1 | cut -d" " -f1)
	[ $rc = 0 ] || { fail "$what: mrr dump exited $rc:"; show dump; }
	[ -z "$at" ] || [ "$last" = $((at - 1)) ] ||
		fail "$what: the trace's last event is $last; the recording" \
			"stopped at event $at"
	run dump_s "$mrr" dump -s "$T/trace"
	grep -qx 'status: error' "$T/dump_s.out" ||
		fail "$what: mrr dump -s does not say 'status: error':" \
			"$(head -n 1 "$T/dump_s.out")"
	[ $dump_why = 0 ] || cat "$T"/dump.* "$T"/dump_s.* |
		grep -Eq -- "$regex" ||
		fail "$what: neither mrr dump nor mrr dump -s says why the" \
			"recording stopped (/$regex/)"
	run replay "${MARK[@]}" "$mrr" replay "$T/trace"
	if [ $rc != 0 ]; then
		fail "$what: replay of the refused recording exited $rc:"
		show replay
	elif ! grep -Eq -- "$regex" "$T/replay.err"; then
		fail "$what: the replay does not say why the recording stopped:"
		show replay
	fi
	head -c "$(wc -c <"$T/replay.out")" "$T/rec.out" |
		cmp -s - "$T/replay.out" ||
		fail "$what: the replay printed what the recording did not"
	outcome="refused: $msg"
else
	fail "$what: mrr record exited $status, expected 69" \
		"$([ $faithful = 1 ] && echo "or 0")"
	show rec
fi
if ! left=$(wait_no_leftovers); then
	fail "$what: the replay left processes behind:" $left
	kill_leftovers
fi

if [ $hard_failed = 0 ]; then
	echo "ok: $what: $outcome"
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
