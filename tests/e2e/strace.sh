#!/bin/bash
# strace.sh: strace, a program that traces another, records and replays
# under mrr, which emulates its ptrace calls (src/record/vptrace.c).
#
#   strace.sh --mrr PATH
#
# Records `strace -f -o FILE /bin/echo hi`, `strace -f` of a shell that
# forks and vforks (its children are followed), and `strace -qq true`, with and
# without the syscall buffer, and replays each: both must exit 0, print
# the same stdout and stderr (strace's own lines included), and the
# recording's strace log must show echo's execve and its write of "hi".
# Exits 77 (skip) when strace is not installed, 1 on the first failure.

set -u
mrr=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	*) echo "usage: $0 --mrr PATH" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] || exit 2
strace=$(command -v strace) || {
	echo "SKIP: strace is not installed (scripts/install-deps.sh installs it)"
	exit 77
}
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-strace.XXXXXX") || exit 1
fail() {
	echo "FAIL: $*"
	for f in "$T"/*.out "$T"/*.err "$T"/*.log; do
		[ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
	done
	exit 1
}
# the replay's copy of strace's log: strace writes it at record only
check() { # name, then the command
	local name=$1 opt
	shift
	for mode in buffer nobuf; do
		opt=()
		[ $mode = nobuf ] && opt=(-n)
		timeout -k 5 60 "$mrr" record "${opt[@]}" -o "$T/$name-$mode" \
			-- "$@" >"$T/$name-$mode-rec.out" \
			2>"$T/$name-$mode-rec.err" ||
			fail "$name ($mode): mrr record exited $?"
		timeout -k 5 60 "$mrr" replay "$T/$name-$mode" \
			>"$T/$name-$mode-rep.out" 2>"$T/$name-$mode-rep.err" ||
			fail "$name ($mode): mrr replay exited $?"
		cmp -s "$T/$name-$mode-rec.out" "$T/$name-$mode-rep.out" ||
			fail "$name ($mode): the replay's stdout differs"
		cmp -s <(grep -v '^mrr:' "$T/$name-$mode-rec.err") \
			<(grep -v '^mrr:' "$T/$name-$mode-rep.err") ||
			fail "$name ($mode): the replay's stderr differs"
		echo "ok: $name ($mode) recorded and replayed"
	done
}
check echo "$strace" -f -o "$T/echo.log" /bin/echo hi
grep -qx hi "$T/echo-buffer-rec.out" || fail "echo did not print hi"
grep -q 'execve("/bin/echo", \["/bin/echo", "hi"\]' "$T/echo.log" &&
	grep -q 'write(1, "hi\\n", 3) *= 3' "$T/echo.log" ||
	fail "strace's log lacks echo's execve or write"
check sh "$strace" -f -o "$T/sh.log" sh -c 'echo a | cat; /bin/true'
[ "$(grep -c '+++ exited with 0 +++' "$T/sh.log")" -ge 3 ] ||
	fail "strace -f did not follow sh's children"
check true "$strace" -qq true
grep -q 'exit_group(0)' "$T/true-nobuf-rec.err" ||
	fail "strace -qq true did not show true's exit_group"
rm -rf "$T"
exit 0
