# shellcheck shell=bash disable=SC2034
# lib.sh: helpers sourced by the hardening scripts (bash).
#
# A script sets $T (its scratch directory) before calling anything here.
# It runs each command it checks with `run NAME CMD...`, which leaves the
# output in $T/NAME.out and $T/NAME.err and the status in $rc.
#
# Processes are found by a marker: "${MARK[@]}" CMD... runs CMD with the
# environment variable MRR_HARDENING_MARK set to a token unique to the
# script, which every process CMD starts inherits (a replay too: it runs
# with the recorded environment). `leftovers` lists the live (not zombie)
# processes that carry it; the script itself does not.

HARD_MARK="mrr-hardening-$$-$RANDOM$RANDOM"
hard_failed=0

# fail MSG...: reports a failure, counts it, and goes on.
fail() {
	echo "FAIL: $*"
	hard_failed=$((hard_failed + 1))
}

# die MSG...: reports a failure that ends the script, keeping $T.
die() {
	echo "FAIL: $*"
	[ -n "${T:-}" ] && echo "--- kept $T"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# small_tmpfs INNER NAME SIZE SCRIPT_ARGS...: for scripts that record onto
# a small file system. Unless INNER is 1, runs the script again (with
# --inner first, then SCRIPT_ARGS) in a private mount namespace, or skips
# (77) without root or unshare. Inside it, makes $T and mounts a tmpfs of
# SIZE, called NAME, on $T/small.
small_tmpfs() {
	local inner=$1 name=$2 size=$3
	shift 3
	if [ "$inner" != 1 ]; then
		[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
		command -v unshare >/dev/null || skip "unshare is not installed"
		unshare -m true 2>/dev/null ||
			skip "unshare -m is not permitted here"
		exec unshare -m --propagation private bash "$0" --inner "$@"
	fi
	T=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || exit 1
	mkdir "$T/small"
	mount -t tmpfs -o size="$size" "$name" "$T/small" ||
		die "cannot mount a $size tmpfs on $T/small"
}

# show NAME: the last lines of $T/NAME.err, indented.
show() {
	[ -s "$T/$1.err" ] && sed -n '1,15s/^/    /p' "$T/$1.err"
	return 0
}

# run NAME CMD...: runs CMD with no stdin under a time limit of
# ${HARD_TIMEOUT:-60} seconds; rc 124 means it did not finish in time.
run() {
	local name=$1
	shift
	timeout -k 5 "${HARD_TIMEOUT:-60}" "$@" >"$T/$name.out" \
		2>"$T/$name.err" </dev/null
	rc=$?
}

# The prefix that marks a command: "${MARK[@]}" CMD...
MARK=(env "MRR_HARDENING_MARK=$HARD_MARK")

# leftovers: prints "PID STATE COMM" for each live process with the marker.
leftovers() {
	local env pid state
	for env in $(grep -lsaxzF "MRR_HARDENING_MARK=$HARD_MARK" \
		/proc/[0-9]*/environ 2>/dev/null); do
		pid=${env#/proc/}
		pid=${pid%/environ}
		[ "$pid" = $$ ] && continue
		state=$(sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' \
			"/proc/$pid/status" 2>/dev/null)
		[ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ] &&
			continue
		echo "$pid $state $(cat "/proc/$pid/comm" 2>/dev/null)"
	done
}

# wait_no_leftovers: waits up to 5 s for the marked processes to go
# (a SIGKILL from PTRACE_O_EXITKILL takes effect asynchronously); returns
# 1 and prints them if some are still there.
wait_no_leftovers() {
	local i left
	for i in $(seq 1 100); do
		left=$(leftovers)
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "$left"
	return 1
}

# kill_leftovers: SIGKILLs the marked processes, so that one failure does
# not hang the rest of the script.
kill_leftovers() {
	local pid rest
	while read -r pid rest; do
		[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	done < <(leftovers)
}

# one_line NAME: true when $T/NAME.err is exactly one line.
one_line() {
	[ "$(wc -l <"$T/$1.err")" = 1 ] && [ -z "$(tail -c 1 "$T/$1.err")" ]
}

# mrr_lines NAME: $T/NAME.err without the "mrr: recording X to Y" line.
mrr_lines() {
	grep '^mrr:' "$T/$1.err" | grep -v '^mrr: recording .* to '
}
