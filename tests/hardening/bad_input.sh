#!/bin/bash
# bad_input.sh: mrr's answers to bad input, table-driven.
#
#   bad_input.sh --mrr PATH --mutate PATH -- PROG
#
# PROG is a small program that prints and exits 0 (tests/programs/hello);
# --mutate is tests/hardening's trace_mutate. The script records PROG into a
# good trace, makes damaged copies of it (a future format version, cut
# short, one flipped byte in each of its files, stored files deleted...),
# and runs the table below. Each row names the exit code mrr must return and
# a regex (extended) that its stderr, exactly one line, must match; for
# `record` rows the "recording X to Y" line mrr prints before it starts is
# not counted. Record rows that fail must leave nothing behind: no trace
# directory where -o pointed, nothing new in $MRR_TRACE_DIR. Then:
# `-o` at the existing trace must not have changed a byte of it, and it
# must still replay.
#
# "@T@" in an argument or regex is the scratch directory. Rows run as user
# nobody (@NOBODY@ first) are skipped when not root. Exits 0 when every row
# held, 1 otherwise (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH --mutate PATH -- PROG" >&2
	exit 2
}

mrr=""
mutate=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$(realpath "$2"); shift 2 ;;
	--mutate) [ $# -ge 2 ] || usage; mutate=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$mutate" ] && [ $# = 1 ] || usage
prog=$(realpath "$1")

# /tmp, not $TMPDIR: user nobody must reach the scratch directory.
T=$(mktemp -d /tmp/mrr-badinput.XXXXXX) || exit 1
chmod 755 "$T"
mkdir "$T/home" "$T/traces" "$T/empty" "$T/ro"
export HOME=$T/home MRR_TRACE_DIR=$T/traces
unset XDG_DATA_HOME
cd "$T" || exit 1
passed=0
skipped=0

nobody=()
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null; then
	nobody=(setpriv --reuid=nobody --regid="$(id -gn nobody)"
		--clear-groups)
fi

# ---- the good trace and its damaged copies ----

run good "$mrr" record -o "$T/good" -- "$prog"
[ $rc = 0 ] || die "cannot record the good trace: mrr record exited $rc"
run good_replay "$mrr" replay "$T/good"
[ $rc = 0 ] || die "the good trace does not replay: exit $rc"

# stored NAME: the stored name of the file whose recorded path matched
# (from the dump of the good trace's exec and mmap events).
"$mrr" dump "$T/good" >"$T/good.dump" 2>/dev/null
exe_file=$(sed -n 's/.* exec .* exe=\([0-9a-f]*-[0-9a-f]*\).*/\1/p' \
	"$T/good.dump" | head -n 1)
# The largest stored file mapped by an mmap event: libc.
lib_file=$(sed -n 's/.* mmap(.* file \([0-9a-f]*-[0-9a-f]*\) .*/\1/p' \
	"$T/good.dump" | sort -u | while read -r f; do
	echo "$(stat -c %s "$T/good/files/$f") $f"
done | sort -n | tail -n 1 | cut -d' ' -f2)
[ -n "$exe_file" ] && [ -n "$lib_file" ] ||
	die "cannot find the stored executable and library in the dump"

# copy NAME: a private copy of the good trace. Stored files may be hard
# links to the system's own files: the copy must never share an inode with
# them, or a flipped byte would damage the system.
copy() {
	rm -rf "${T:?}/$1"
	cp -r "$T/good" "$T/$1"
	chmod -R u+w "$T/$1"
}

# flip FILE OFFSET: flips the lowest bit of the byte at OFFSET.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 1)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

events_size=$(stat -c %s "$T/good/events")
copy future && "$mutate" version "$T/future" 5 ||
	die "trace_mutate could not set the format version"
copy trunc_half && truncate -s $((events_size / 2)) "$T/trunc_half/events"
copy trunc_zero && truncate -s 0 "$T/trunc_zero/events"
copy trunc_header && truncate -s 100 "$T/trunc_header/header"
copy flip_header && flip "$T/flip_header/header" 200
copy flip_version && flip "$T/flip_version/header" 8
copy flip_chunk_header && flip "$T/flip_chunk_header/events" 12
copy flip_events && flip "$T/flip_events/events" $((events_size / 2))
copy flip_last && flip "$T/flip_last/events" $((events_size - 1))
copy flip_commit && flip "$T/flip_commit/commit" 20
copy flip_exe && flip "$T/flip_exe/files/$exe_file" 1000
copy flip_lib && flip "$T/flip_lib/files/$lib_file" \
	$(($(stat -c %s "$T/good/files/$lib_file") / 2))
copy no_exe && rm "$T/no_exe/files/$exe_file"
copy no_lib && rm "$T/no_lib/files/$lib_file"
copy no_files && rm -r "$T/no_files/files"
copy no_events && rm "$T/no_events/events"
copy no_header && rm "$T/no_header/header"
copy no_commit && rm "$T/no_commit/commit"
echo hello >"$T/afile"
printf 'not a program\n' >"$T/noexec"
printf '\177ELF garbage\n' >"$T/badelf"
chmod +x "$T/badelf"
long=$(printf 'x%.0s' $(seq 1 5000))
(cd "$T/good" && find . -type f -exec cksum {} + | sort) >"$T/good.sums"
ls -A "$T/traces" >"$T/traces.before"

# ---- the table ----

# row CODE REGEX [@NOBODY@] ARGS...: mrr ARGS must exit CODE with
# one stderr line matching REGEX. For record rows, -o @T@/out-* must not
# exist afterwards, and $MRR_TRACE_DIR must be as it was.
n=0
row() {
	local code regex args=() a lines wrap=()
	code=$1
	regex=${2//@T@/$T}
	shift 2
	if [ "${1:-}" = @NOBODY@ ]; then
		shift
		if [ ${#nobody[@]} = 0 ]; then
			skipped=$((skipped + 1))
			echo "skip: mrr $*: needs root and user nobody"
			return
		fi
		wrap=("${nobody[@]}")
	fi
	for a in "$@"; do
		args+=("${a//@T@/$T}")
	done
	n=$((n + 1))
	run "row$n" "${wrap[@]}" "$mrr" "${args[@]}"
	grep -v '^mrr: recording .* to ' "$T/row$n.err" >"$T/row$n.msg"
	lines=$(wc -l <"$T/row$n.msg")
	local what="mrr ${args[*]}"
	[ ${#wrap[@]} = 0 ] || what="$what (as nobody)"
	what=${what//$T/@T@}
	what=${what//$long/LONG}
	local before=$hard_failed
	if [ $rc != "$code" ]; then
		fail "$what: exit $rc, expected $code; stderr:"
		sed 's/^/    /' "$T/row$n.err"
	elif [ "$lines" != 1 ] || [ -n "$(tail -c 1 "$T/row$n.msg")" ]; then
		fail "$what: stderr has $lines lines, expected one:"
		sed 's/^/    /' "$T/row$n.msg"
	elif ! grep -Eq -- "$regex" "$T/row$n.msg"; then
		fail "$what: stderr does not match /${regex//$T/@T@}/:" \
			"$(cat "$T/row$n.msg")"
	fi
	if [ "${args[0]}" = record ]; then
		for a in "${args[@]}"; do
			case $a in
			"$T"/out-*)
				[ -e "$a" ] && fail "$what: left ${a//$T/@T@}" \
					"behind: $(ls -A "$a" | tr '\n' ' ')"
				rm -rf "$a"
				;;
			esac
		done
		ls -A "$T/traces" | cmp -s - "$T/traces.before" ||
			fail "$what: left something in \$MRR_TRACE_DIR:" \
				"$(ls -A "$T/traces" | tr '\n' ' ')"
	fi
	if [ $hard_failed = "$before" ]; then
		passed=$((passed + 1))
		echo "ok: $what: $code, $(sed "s|$T|@T@|g" "$T/row$n.msg")"
	fi
}

# Missing, unreadable or unsuitable programs.
row 66 '^mrr: .*/nonexistent/prog.*no such program' \
	record -o @T@/out-1 /nonexistent/prog
row 66 '^mrr: .*no-such-prog-mrr.*no such program in PATH' \
	record -o @T@/out-2 no-such-prog-mrr
row 66 '^mrr: .*/noexec.*not executable' record -o @T@/out-3 @T@/noexec
row 66 '^mrr: .*@T@/empty.*directory' record -o @T@/out-4 @T@/empty
row 66 '^mrr: .*(no such program|not executable)' record -o @T@/out-5 ''
row 66 '^mrr: .*badelf.*refused to execute' record -o @T@/out-6 @T@/badelf
row 66 '^mrr: .*badelf.*refused to execute' record @T@/badelf
row 66 '^mrr: .*/nonexistent/prog' record /nonexistent/prog

# Where the trace goes.
row 73 '^mrr: .*@T@/good.*exists' record -o @T@/good "$prog"
row 73 '^mrr: .*@T@/afile.*exists' record -o @T@/afile "$prog"
row 73 '^mrr: .*/nonexistent/dir/x.*No such file or directory' \
	record -o /nonexistent/dir/x "$prog"
row 73 '^mrr: .*@T@/ro/out-7.*Permission denied' @NOBODY@ \
	record -o @T@/ro/out-7 "$prog"
row 73 '^mrr: .*too long' record -o "$long" "$prog"

# Command lines.
row 64 '^mrr: .*no program' record
row 64 '^mrr: .*no program' record -o @T@/out-8 --
row 64 "^mrr: .*-o needs" record -o
for verb in record replay dump ls; do
	row 64 "^mrr: .*unknown option --bogus.*mrr $verb --help" \
		$verb --bogus
	row 64 "^mrr: .*unknown option -Z.*mrr $verb --help" $verb -Z
done
row 64 '^mrr: .*-t needs' dump -t
row 64 "^mrr: .*-t needs a thread id, not 'abc'" dump -t abc @T@/good
row 64 '^mrr: .*5-3' dump @T@/good 5-3
row 64 '^mrr: .*too many' replay @T@/good @T@/good
row 64 '^mrr: .*no arguments' ls extra

# Traces that are not there, or not traces.
row 66 '^mrr: .*@T@/nope.*does not exist' replay @T@/nope
row 66 '^mrr: .*@T@/nope.*does not exist' dump @T@/nope
row 65 '^mrr: .*@T@/afile.*not an mrr trace' replay @T@/afile
row 65 '^mrr: .*@T@/empty.*not an mrr trace' replay @T@/empty
row 65 '^mrr: .*@T@/empty.*not an mrr trace' dump @T@/empty
row 65 '^mrr: .*not an mrr trace.*no header' replay @T@/no_header
row 66 '^mrr: .*too long' replay "$long"

# Damaged traces.
row 65 '^mrr: .*@T@/future.*format version 5; this mrr reads versions 1 to 4' \
	replay @T@/future
row 65 '^mrr: .*@T@/future.*format version 5' dump @T@/future
row 65 '^mrr: .*@T@/future.*format version 5' replay -f @T@/future
row 65 '^mrr: .*@T@/trunc_half.*corrupt.*cut short' replay @T@/trunc_half
row 65 '^mrr: .*@T@/trunc_half.*corrupt' dump @T@/trunc_half
row 65 '^mrr: .*@T@/trunc_zero.*corrupt' replay @T@/trunc_zero
row 65 '^mrr: .*@T@/trunc_header.*(corrupt|not an mrr trace)' \
	replay @T@/trunc_header
row 65 '^mrr: .*@T@/flip_header.*corrupt.*header' replay @T@/flip_header
row 65 '^mrr: .*@T@/flip_version.*corrupt.*header' replay @T@/flip_version
row 65 '^mrr: .*@T@/flip_chunk_header.*corrupt.*chunk 0' \
	replay @T@/flip_chunk_header
row 65 '^mrr: .*@T@/flip_events.*corrupt.*chunk' replay @T@/flip_events
row 65 '^mrr: .*@T@/flip_events.*corrupt.*chunk' dump @T@/flip_events
row 65 '^mrr: .*@T@/flip_last.*corrupt.*chunk' replay @T@/flip_last
row 65 '^mrr: .*@T@/flip_commit.*corrupt.*commit' replay @T@/flip_commit
row 65 '^mrr: .*@T@/no_events.*corrupt.*event stream is missing' \
	replay @T@/no_events
row 65 '^mrr: .*@T@/no_commit.*incomplete' replay @T@/no_commit
row 65 "^mrr: .*@T@/flip_exe.*$exe_file.*no longer holds" replay @T@/flip_exe
row 65 "^mrr: .*@T@/flip_lib.*$lib_file.*no longer holds" replay @T@/flip_lib

# Stored files deleted: replay names the missing one.
row 65 "^mrr: .*@T@/no_exe.*missing.*$exe_file" replay @T@/no_exe
row 65 "^mrr: .*@T@/no_lib.*missing.*$lib_file" replay @T@/no_lib
row 65 "^mrr: .*@T@/no_files.*missing.*$exe_file" replay @T@/no_files

# The default trace directory.
row 66 '^mrr: .*no latest trace' replay
row 66 '^mrr: .*no latest trace' dump
# Rows that change the environment run in a subshell.
(
	export MRR_TRACE_DIR=$long
	row 73 '^mrr: .*too long' record "$prog"
	row 66 '^mrr: .*too long' replay
	row 66 '^mrr: .*too long' dump
	echo "$hard_failed $passed" >"$T/sub.counts"
)
read -r hard_failed passed <"$T/sub.counts"

# -o at the existing trace changed nothing, and it still replays.
(cd "$T/good" && find . -type f -exec cksum {} + | sort) |
	cmp -s - "$T/good.sums" ||
	fail "record -o @T@/good changed the existing trace"
run good_again "$mrr" replay "$T/good"
[ $rc = 0 ] && cmp -s "$T/good.out" "$T/good_again.out" ||
	fail "the existing trace no longer replays (exit $rc) after" \
		"record -o pointed at it"

echo "$passed rows passed, $hard_failed failed, $skipped skipped"
if [ $hard_failed = 0 ]; then
	rm -rf "$T"
	exit 0
fi
echo "kept $T"
exit 1
