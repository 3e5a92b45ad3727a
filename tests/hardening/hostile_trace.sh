#!/bin/bash
# hostile_trace.sh: traces made to hurt the user who reads or replays them.
#
#   hostile_trace.sh --mrr PATH --forge PATH --part PART -- HELLO SPIN
#
# HELLO prints and exits 0 (tests/programs/hello); SPIN is tests/hardening's
# spin_shared; --forge is tests/hardening's trace_forge. PART is one of:
#   fifo      a FIFO as header, events, commit or a stored file: dump,
#             replay and ls must answer (65, or a listing), never block
#   exe       a header naming another program than the first exec runs:
#             replay refuses with 65
#   foreign   (root) a trace, or a latest-trace link, of user nobody:
#             replay refuses with 77 unless --allow-foreign; dump warns
#             and goes on; ls names the owner
#   stopped   a recording that stopped with 71 (mrr's page could not be
#             mapped) replays to its end with 0
#   tmpdir    SIGINT, SIGTERM and SIGHUP to a replay leave no
#             $TMPDIR/mrr-replay-* behind; after a SIGKILL the next replay
#             removes it, and no directory of a live pid or another user
#   bomb      one 2 GiB write in a 70 KB trace: dump, dump -p, dump
#             --json -p and replay stay under 300 MB of memory (peak RSS)
#   scale_maps  dump -m of 20k mmaps and 2,000 forks stays under 200 MB
#             (peak RSS, not time: bench/dump_scale.sh times it)
#   scale_tids  dump --stable of 100k tids stays under 200 MB
# Exits 0 when every check held, 1 otherwise (keeping the scratch
# directory), 77 when PART cannot run here.

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH --forge PATH --part PART -- HELLO SPIN" >&2
	exit 2
}

mrr=""
forge=""
part=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$(realpath "$2"); shift 2 ;;
	--forge) [ $# -ge 2 ] || usage; forge=$(realpath "$2"); shift 2 ;;
	--part) [ $# -ge 2 ] || usage; part=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$forge" ] && [ -n "$part" ] && [ $# = 2 ] || usage
hello=$(realpath "$1")
spin=$(realpath "$2")

# /tmp, not $TMPDIR: user nobody must reach the scratch directory.
T=$(mktemp -d /tmp/mrr-hostile-trace.XXXXXX) || exit 1
chmod 755 "$T"
mkdir "$T/home" "$T/traces" "$T/tmp"
export HOME=$T/home MRR_TRACE_DIR=$T/traces TMPDIR=$T/tmp
unset XDG_DATA_HOME
cd "$T" || exit 1

nobody=()
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null; then
	nobody=(setpriv --reuid=nobody --regid="$(id -gn nobody)"
		--clear-groups)
fi

# expect NAME CODE [REGEX]: the command run as NAME exited CODE and, with
# REGEX, its stderr matched it (extended regex).
expect() {
	if [ "$rc" = 124 ]; then
		fail "$1: did not finish in ${HARD_TIMEOUT:-60} s"
	elif [ "$rc" != "$2" ]; then
		fail "$1: exit $rc, expected $2"
		show "$1"
	elif [ $# -ge 3 ] && ! grep -Eq "$3" "$T/$1.err"; then
		fail "$1: stderr does not match /$3/"
		show "$1"
	else
		echo "ok: $1 (exit $rc)"
	fi
}

good() {
	run good "$mrr" record -o "$T/good" -- "$hello"
	[ $rc = 0 ] || die "cannot record the good trace: exit $rc"
}

part_fifo() {
	local f name stored
	good
	HARD_TIMEOUT=20
	for f in header events commit; do
		cp -a "$T/good" "$T/fifo_$f"
		rm "$T/fifo_$f/$f"
		mkfifo "$T/fifo_$f/$f"
		run "dump_$f" "$mrr" dump "$T/fifo_$f"
		expect "dump_$f" 65 "^mrr: .*fifo_$f"
		run "replay_$f" "$mrr" replay "$T/fifo_$f"
		expect "replay_$f" 65 "^mrr: .*fifo_$f"
	done
	cp -a "$T/good" "$T/fifo_file"
	stored=$(find "$T/fifo_file/files" -type f | head -n 1)
	rm "$stored"
	mkfifo "$stored"
	run replay_stored "$mrr" replay "$T/fifo_file"
	expect replay_stored 65 "stored file"
	run dump_stored "$mrr" dump "$T/fifo_file"
	expect dump_stored 0
	# ls reads every trace of the directory
	for name in fifo_header fifo_events fifo_commit fifo_file; do
		mv "$T/$name" "$T/traces/"
	done
	run ls "$mrr" ls
	expect ls 0
	grep -q fifo_events "$T/ls.out" || fail "ls: fifo_events not listed"
}

part_exe() {
	good
	"$forge" exe /usr/bin/true "$T/good" "$T/bad_exe" ||
		die "trace_forge exe failed"
	run replay_bad_exe "$mrr" replay "$T/bad_exe"
	expect replay_bad_exe 65 \
		"^mrr: trace .*bad_exe is inconsistent: its header names the program /usr/bin/true but its first event \(pid [0-9]+\) executes "
	run replay_good "$mrr" replay "$T/good"
	expect replay_good 0
}

part_foreign() {
	[ ${#nobody[@]} -gt 0 ] || skip "needs root and user nobody"
	good
	cp -a "$T/good" "$T/theirs"
	chown -R nobody "$T/theirs"
	run replay_theirs "$mrr" replay "$T/theirs"
	expect replay_theirs 77 \
		"^mrr: trace .*theirs belongs to user nobody \(uid [0-9]+\): replaying it would run that user's program as you; give --allow-foreign"
	[ -s "$T/replay_theirs.out" ] &&
		fail "replay_theirs: the program ran (it printed)"
	run replay_allowed "$mrr" replay --allow-foreign "$T/theirs"
	expect replay_allowed 0 "warning: trace .*theirs belongs to user nobody"
	run dump_theirs "$mrr" dump "$T/theirs"
	expect dump_theirs 0 \
		"^mrr: warning: trace .*theirs belongs to user nobody"
	[ "$(grep -c . "$T/dump_theirs.err")" = 1 ] ||
		fail "dump_theirs: more than the one warning line on stderr"
	grep -q ' exec ' "$T/dump_theirs.out" ||
		fail "dump_theirs: no events printed"

	# A latest-trace link planted by another user in a shared, sticky
	# trace directory, pointing at the caller's own trace.
	mkdir -m 1777 "$T/shared"
	cp -a "$T/good" "$T/shared/mine"
	"${nobody[@]}" ln -s mine "$T/shared/latest-trace" ||
		die "nobody cannot make the link"
	MRR_TRACE_DIR=$T/shared run replay_planted "$mrr" replay
	# resolve_trace_arg refuses it (66) before the trust check would (77)
	[ $rc = 66 ] || [ $rc = 77 ] || fail "replay_planted: exit $rc"
	expect replay_planted $rc "latest-trace.*(belongs to user nobody|another user)"
	[ -s "$T/replay_planted.out" ] &&
		fail "replay_planted: the program ran (it printed)"
	# The caller's own link to another user's trace.
	rm -f "$T/shared/latest-trace"
	ln -s "$T/theirs" "$T/shared/latest-trace"
	MRR_TRACE_DIR=$T/shared run replay_link_theirs "$mrr" replay
	expect replay_link_theirs 77 "^mrr: trace .*belongs to user nobody"
	mv "$T/theirs" "$T/traces/theirs"
	run ls_theirs "$mrr" ls
	expect ls_theirs 0
	grep -Eq 'theirs .*owner nobody' "$T/ls_theirs.out" ||
		fail "ls: the owner of theirs is not shown"
}

part_stopped() {
	local v
	# A limit on the address space that lets the exec through but not
	# mrr's page after it: the recording stops with 71 there.
	for v in $(seq 200 8 1200); do
		rm -rf "$T/stopped"
		run record_stopped "$mrr" record -n -o "$T/stopped" -- \
			/bin/sh -c "ulimit -v $v; exec $hello"
		[ $rc = 71 ] && break
	done
	[ $rc = 71 ] || skip "no address-space limit made the recording stop with 71"
	grep -q "cannot map mrr's page" "$T/record_stopped.err" ||
		fail "record_stopped: not stopped at mrr's page"
	run replay_stopped "$mrr" replay "$T/stopped"
	expect replay_stopped 0 "replayed the stopped recording up to its end"
}

# wait_tmpdir: waits up to 20 s for a replay directory to appear in $TMPDIR.
wait_tmpdir() {
	local i
	for i in $(seq 400); do
		compgen -G "$TMPDIR/mrr-replay-*" >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

part_tmpdir() {
	local sig pid code dead
	run record_spin "${MARK[@]}" "$mrr" record -o "$T/spin" -- \
		"$spin" "$T/shared_file" 4000
	[ $rc = 0 ] || die "cannot record spin_shared: exit $rc"
	# job control: background jobs keep SIGINT (bash would ignore it)
	set -m
	for sig in INT TERM HUP KILL; do
		"${MARK[@]}" "$mrr" replay "$T/spin" >"$T/replay_$sig.out" \
			2>"$T/replay_$sig.err" </dev/null &
		pid=$!
		if ! wait_tmpdir; then
			kill -KILL "$pid"
			wait "$pid"
			fail "replay_$sig: no replay directory appeared"
			continue
		fi
		kill -"$sig" "$pid"
		wait "$pid"
		code=$?
		[ $code = $((128 + $(kill -l "$sig"))) ] ||
			fail "replay_$sig: exit $code, expected death by SIG$sig"
		wait_no_leftovers || fail "replay_$sig: processes left behind"
		kill_leftovers
		if [ "$sig" = KILL ]; then
			compgen -G "$TMPDIR/mrr-replay-$pid-*" >/dev/null ||
				fail "replay_KILL: nothing left to sweep (test broken)"
		elif compgen -G "$TMPDIR/mrr-replay-*" >/dev/null; then
			fail "replay_$sig: left $(ls "$TMPDIR")"
			rm -rf "${TMPDIR:?}"/mrr-replay-*
		else
			echo "ok: replay_$sig removed its directory"
		fi
	done
	set +m
	# Stale directories: of a dead pid (removed), of this live shell, of
	# the old name form, of another user (all kept).
	true &
	dead=$!
	wait "$dead"
	mkdir "$TMPDIR/mrr-replay-$dead-abcdef" "$TMPDIR/mrr-replay-$$-abcdef" \
		"$TMPDIR/mrr-replay-ABCDEF"
	touch "$TMPDIR/mrr-replay-$dead-abcdef/copy"
	if [ ${#nobody[@]} -gt 0 ]; then
		mkdir "$TMPDIR/mrr-replay-$dead-nobody"
		chown nobody "$TMPDIR/mrr-replay-$dead-nobody"
	fi
	run replay_sweep "$mrr" replay "$T/spin"
	expect replay_sweep 0
	compgen -G "$TMPDIR/mrr-replay-$pid-*" >/dev/null &&
		fail "replay_sweep: the killed replay's directory is still there"
	[ -e "$TMPDIR/mrr-replay-$dead-abcdef" ] &&
		fail "replay_sweep: the dead pid's directory is still there"
	[ -d "$TMPDIR/mrr-replay-$$-abcdef" ] ||
		fail "replay_sweep: removed the directory of a live pid"
	[ -d "$TMPDIR/mrr-replay-ABCDEF" ] ||
		fail "replay_sweep: removed a directory of another name form"
	if [ ${#nobody[@]} -gt 0 ] && [ ! -d "$TMPDIR/mrr-replay-$dead-nobody" ]; then
		fail "replay_sweep: removed another user's directory"
	fi
	[ "$(find "$TMPDIR" -mindepth 1 -maxdepth 1 | wc -l)" -le 4 ] ||
		fail "replay_sweep: left its own directory: $(ls "$TMPDIR")"
}

# rss NAME LIMIT_MB CMD...: runs CMD as NAME and checks its peak RSS.
rss() {
	local name=$1 limit=$2 kb
	shift 2
	run "$name" "$forge" maxrss "$T/$name.rss" "$@"
	kb=$(cat "$T/$name.rss" 2>/dev/null || echo 0)
	if [ $((kb / 1024)) -ge "$limit" ]; then
		fail "$name: peak RSS $((kb / 1024)) MB, limit $limit MB"
	else
		echo "ok: $name: peak RSS $((kb / 1024)) MB (limit $limit MB)"
	fi
}

part_bomb() {
	good
	"$forge" bomb 2048 "$T/good" "$T/bomb" || die "trace_forge bomb failed"
	HARD_TIMEOUT=120
	rss dump_bomb 300 "$mrr" dump "$T/bomb"
	expect dump_bomb 0
	grep -q 'wrote 2147483648 bytes' "$T/dump_bomb.out" ||
		fail "dump_bomb: the 2 GiB write is not shown"
	rss dump_p_bomb 300 sh -c "'$mrr' dump -p '$T/bomb' | tail -n 3"
	expect dump_p_bomb 0
	grep -q '^ *\*$' "$T/dump_p_bomb.out" ||
		fail "dump_p_bomb: the zeros are not folded into *"
	rss dump_json_bomb 300 sh -c "'$mrr' dump --json -p '$T/bomb' | tail -c 64"
	expect dump_json_bomb 0
	grep -q '0000"}]}$' "$T/dump_json_bomb.out" ||
		fail "dump_json_bomb: the write's hex does not end the line"
	rss replay_bomb 300 "$mrr" replay "$T/bomb"
	expect replay_bomb 70 "0x100000000000"
}

part_scale_maps() {
	"$forge" scale "$T/maps" 20000 2000 0 || die "trace_forge scale failed"
	# 2.5 GB and 16 s when each fork copied the map; 13 MB and 0.3 s
	# with the shared tree. The time limit only guards against a hang.
	HARD_TIMEOUT=60
	rss dump_maps 200 "$mrr" dump -m "$T/maps"
	expect dump_maps 0
	[ "$(grep -c ' mmap(' "$T/dump_maps.out")" = 20000 ] ||
		fail "dump_maps: not 20000 mmaps printed"
}

part_scale_tids() {
	"$forge" scale "$T/tids" 0 0 100000 || die "trace_forge scale failed"
	# A hang guard, not a timing: it took 68 s when each tid was looked
	# up in a list, 0.5 s with the index.
	HARD_TIMEOUT=30
	rss dump_tids 200 "$mrr" dump --stable "$T/tids"
	expect dump_tids 0
	grep -Eq '^100000 100001 syscall getpid\(\) = 100001' "$T/dump_tids.out" ||
		fail "dump_tids: the last tid is not numbered 100001"
}

case $part in
fifo | exe | foreign | stopped | tmpdir | bomb | scale_maps | scale_tids)
	"part_$part" ;;
*) usage ;;
esac

if [ "$hard_failed" -gt 0 ]; then
	echo "--- $hard_failed check(s) failed; kept $T"
	exit 1
fi
rm -rf "$T"
echo "all checks held"
exit 0
