#!/bin/bash
# trace_dir.sh: another user on the machine against root's traces (issue
# 11). Root records; user nobody plants links and directories, through
# tests/hardening's plant helper, at the moment that hurts most.
#
#   trace_dir.sh --mrr PATH --bin DIR --case NAME -- HELLO
#
# DIR holds plant, map_secret and map_shared_exec; HELLO is a program that
# prints and exits 0. Cases:
#   commit_symlink  -o at nobody's empty directory, where nobody plants
#                   .commit.tmp -> a root-only file while `sleep 1` records:
#                   the directory is refused (73), the file is unchanged;
#                   -o at a new name in nobody's directory, which nobody
#                   renames away and replaces: still unchanged (recorded,
#                   or refused with 73 when the swap lands between
#                   mrr's mkdir and its open)
#   files_symlink   the same, with a program the kernel refuses to run, and
#                   nobody swapping `files` for a link to a root-only
#                   directory before mrr removes the half-made trace: the
#                   directory keeps its files
#   default_names   a sticky shared MRR_TRACE_DIR where nobody makes the
#                   directory latest-trace names as soon as it changes:
#                   root's trace is root's, 0700, and nothing of root's is
#                   written into nobody's directories
#   planted_latest  nobody's latest-trace (to nobody's own trace) in a
#                   sticky shared MRR_TRACE_DIR: record refuses to replace
#                   it (73) and a bare replay refuses to follow it, running
#                   nothing
#   writable_base   MRR_TRACE_DIR writable by others (0777, group-writable,
#                   owned by nobody): refused with one sentence (73)
#   private_trace   under umask 000, root records a program that maps and
#                   reads a root-only file: every directory of the trace is
#                   0700, every file 0600 (0700 for programs), and nobody
#                   can read none of it
#   shared_exec_map a file mapped MAP_SHARED, writable and executable: the
#                   trace stores a copy (no link to the file), the replay
#                   succeeds after the file changed, and never writes to it
#   messages        -o at /dev/null, a file, an empty directory: one line,
#                   "it already exists", exit 73, no "recording" line
# Needs root and user nobody (else exits 77).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

usage() {
	echo "usage: $0 --mrr PATH --bin DIR --case NAME -- HELLO" >&2
	exit 2
}

mrr=""
bin=""
case_name=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$(realpath "$2"); shift 2 ;;
	--bin) [ $# -ge 2 ] || usage; bin=$(realpath "$2"); shift 2 ;;
	--case) [ $# -ge 2 ] || usage; case_name=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$bin" ] && [ -n "$case_name" ] && [ $# = 1 ] ||
	usage
hello=$(realpath "$1")

[ "$(id -u)" = 0 ] || skip "needs root (the attacker runs as nobody)"
id nobody >/dev/null 2>&1 || skip "there is no user nobody"
command -v setpriv >/dev/null || skip "setpriv is not installed"
nogroup=$(id -gn nobody)
NB=(setpriv --reuid=nobody --regid="$nogroup" --clear-groups)
"${NB[@]}" test -x "$mrr" || skip "user nobody cannot execute $mrr"

# /tmp, not $TMPDIR: user nobody must reach the scratch directory.
T=$(mktemp -d /tmp/mrr-tracedir.XXXXXX) || exit 1
chmod 755 "$T"
export HOME=$T/home
mkdir "$HOME"
unset XDG_DATA_HOME XDG_CACHE_HOME MRR_TRACE_DIR MRR_NO_CACHE
# A private TMPDIR for the replays' file copies.
export TMPDIR=$T/tmp
mkdir "$TMPDIR"
cd "$T" || exit 1

# Root's things, which nobody can name but not reach: a file and a
# directory of files.
mkdir -m 700 "$T/rootonly" "$T/rootonly/dir"
echo "root's own data" >"$T/rootonly/victim"
chmod 600 "$T/rootonly/victim"
for f in a b c; do echo "$f" >"$T/rootonly/dir/$f"; done
cp "$T/rootonly/victim" "$T/victim.orig"
# nobody's own directory, to make things in.
mkdir "$T/nb"
chown "nobody:$nogroup" "$T/nb"

victim_unchanged() {
	cmp -s "$T/rootonly/victim" "$T/victim.orig" ||
		fail "$1: the root-only file was overwritten: $(head -c 60 \
			"$T/rootonly/victim" | od -c | head -n 2)"
	[ "$(ls "$T/rootonly/dir" | tr '\n' ' ')" = "a b c " ] ||
		fail "$1: the root-only directory lost files:" \
			"$(ls -A "$T/rootonly/dir" | tr '\n' ' ')"
}

# no_recording_line NAME: mrr must not have said it was recording.
no_recording_line() {
	if grep -q '^mrr: recording ' "$T/$1.err"; then
		fail "$1: says it is recording before a failure that" \
			"stops it"
		show "$1"
	fi
}

# expect_refused NAME REGEX: exit 73, one line matching REGEX.
expect_refused() {
	if [ $rc != 73 ]; then
		fail "$1: mrr record exited $rc, expected 73"
		show "$1"
	elif ! one_line "$1" || ! grep -Eq "$2" "$T/$1.err"; then
		fail "$1: expected one line matching /$2/, got:"
		show "$1"
	fi
	no_recording_line "$1"
}

# plant_bg NAME ARGS...: runs plant as nobody in the background.
plant_bg() {
	local name=$1
	shift
	"${NB[@]}" "$bin/plant" "$@" >"$T/$name.out" 2>&1 &
	plant_pid=$!
}

case $case_name in
commit_symlink)
	"${NB[@]}" mkdir "$T/nb/D"
	plant_bg plant1 --timeout 5 --wait "$T/nb/D/events" \
		--ln "$T/rootonly/victim" "$T/nb/D/.commit.tmp"
	run rec1 "$mrr" record -o "$T/nb/D" -- sleep 1
	wait "$plant_pid"
	victim_unchanged "existing directory"
	expect_refused rec1 "^mrr: cannot create trace directory .*/nb/D: it already exists$"

	# A new name in nobody's directory: mrr makes it 0700, so nobody can
	# only rename it away and put its own directory with the link there.
	plant_bg plant2 --timeout 5 --wait "$T/nb/E" \
		--mv "$T/nb/E" "$T/nb/E.moved" --mkdir "$T/nb/E" \
		--ln "$T/rootonly/victim" "$T/nb/E/.commit.tmp"
	run rec2 "$mrr" record -o "$T/nb/E" -- sleep 1
	wait "$plant_pid"
	victim_unchanged "renamed trace directory"
	# Nobody's swap can also land between mrr's mkdir and its open of
	# the new directory: then mrr finds a directory it did not make and
	# refuses it, which is as safe.
	if [ $rc = 73 ]; then
		expect_refused rec2 "^mrr: cannot create trace directory .*/nb/E: it already exists$"
	elif [ $rc != 0 ]; then
		fail "rec2: mrr record exited $rc"
		show rec2
	fi
	[ -L "$T/nb/E/.commit.tmp" ] ||
		fail "nobody's link was replaced or removed: the test did not" \
			"plant it ($(cat "$T/plant2.out"))"
	;;

files_symlink)
	printf '\177ELF garbage\n' >"$T/badelf"
	chmod 755 "$T/badelf"
	"${NB[@]}" mkdir "$T/nb/D"
	plant_bg plant1 --timeout 5 --wait "$T/nb/D/files" \
		--mv "$T/nb/D/files" "$T/nb/D/files.moved" \
		--ln "$T/rootonly/dir" "$T/nb/D/files"
	run rec1 "$mrr" record -o "$T/nb/D" -- "$T/badelf"
	kill "$plant_pid" 2>/dev/null
	wait "$plant_pid"
	victim_unchanged "existing directory"
	expect_refused rec1 "^mrr: cannot create trace directory .*/nb/D: it already exists$"

	plant_bg plant2 --timeout 5 --wait "$T/nb/E" \
		--mv "$T/nb/E" "$T/nb/E.moved" --mkdir "$T/nb/E" \
		--ln "$T/rootonly/dir" "$T/nb/E/files"
	run rec2 "$mrr" record -o "$T/nb/E" -- "$T/badelf"
	wait "$plant_pid"
	victim_unchanged "renamed trace directory"
	[ $rc = 66 ] || { fail "rec2: mrr record exited $rc, expected 66"; show rec2; }
	;;

default_names)
	mkdir -m 1777 "$T/shared"
	for i in 1 2 3; do
		plant_bg "plant$i" --timeout 10 --wait "$T/shared/latest-trace" \
			--mkdir-latest "$T/shared"
		run "rec$i" env MRR_TRACE_DIR="$T/shared" "$mrr" record -- \
			"$hello"
		wait "$plant_pid"
		[ $rc = 0 ] || { fail "rec$i: mrr record exited $rc"; show "rec$i"; }
		target=$(readlink "$T/shared/latest-trace")
		got=$(stat -c '%U %a' "$T/shared/$target" 2>&1)
		[ "$got" = "root 700" ] ||
			fail "rec$i: latest-trace names $target, which is" \
				"'$got', not root's and 0700"
		rm -f "$T/shared/latest-trace"
	done
	# Nothing of root's inside a directory nobody made.
	leaked=$(find "$T/shared" -mindepth 1 -maxdepth 1 -type d -user nobody \
		-exec find {} -mindepth 1 -user root \; | head -n 3)
	[ -z "$leaked" ] ||
		fail "root's trace files were written into nobody's" \
			"directories: $leaked"
	;;

planted_latest)
	mkdir -m 1777 "$T/shared"
	# nobody's own trace of HELLO, and a latest-trace link to it.
	run nbrec "${NB[@]}" "$mrr" record -o "$T/shared/planted" -- "$hello"
	[ $rc = 0 ] || { show nbrec; die "nobody cannot record: exit $rc"; }
	"${NB[@]}" ln -s planted "$T/shared/latest-trace"
	run rec env MRR_TRACE_DIR="$T/shared" "$mrr" record -- "$hello"
	expect_refused rec "^mrr: refusing to replace .*/shared/latest-trace: it belongs to another user"
	[ "$(stat -c %U "$T/shared/latest-trace")" = nobody ] ||
		fail "nobody's latest-trace was replaced"
	run rep env MRR_TRACE_DIR="$T/shared" "$mrr" replay
	if [ $rc = 0 ] || [ -s "$T/rep.out" ]; then
		fail "a bare mrr replay followed nobody's latest-trace: exit" \
			"$rc, printed '$(head -c 80 "$T/rep.out")'"
	elif ! one_line rep ||
		! grep -Eq "^mrr: refusing to follow .*/shared/latest-trace: it belongs to another user" "$T/rep.err"; then
		fail "rep: expected one line saying why, got:"
		show rep
	fi
	;;

writable_base)
	mkdir -m 777 "$T/w777"
	chmod 777 "$T/w777"
	mkdir -m 770 "$T/wgroup"
	chmod 770 "$T/wgroup"
	chgrp "$nogroup" "$T/wgroup"
	mkdir "$T/nbowned"
	chown nobody "$T/nbowned"
	for d in w777 wgroup nbowned; do
		run "rec_$d" env MRR_TRACE_DIR="$T/$d" "$mrr" record -- "$hello"
		expect_refused "rec_$d" "^mrr: refusing the trace directory .*/$d: other users can write to it"
		[ -z "$(ls -A "$T/$d")" ] ||
			fail "rec_$d: mrr wrote into $d: $(ls -A "$T/$d")"
	done
	# The same for a bare replay of a latest-trace root made there.
	"$mrr" record -o "$T/w777/t" -- "$hello" >/dev/null 2>&1
	ln -s t "$T/w777/latest-trace"
	run rep env MRR_TRACE_DIR="$T/w777" "$mrr" replay
	if [ $rc = 0 ] || ! grep -q "other users can write to it" "$T/rep.err"; then
		fail "rep: a bare replay in a world-writable directory exited" \
			"$rc"
		show rep
	fi
	# Root's own 0755 directory is fine.
	mkdir -m 755 "$T/mine"
	run rec_mine env MRR_TRACE_DIR="$T/mine" "$mrr" record -- "$hello"
	[ $rc = 0 ] || { fail "rec_mine: exit $rc"; show rec_mine; }
	;;

private_trace)
	printf 'MRR-SECRET-%s\n' "$RANDOM$RANDOM" >"$T/rootonly/secret"
	chmod 600 "$T/rootonly/secret"
	run rec bash -c 'umask 000 && exec "$@"' umask "$mrr" record \
		-o "$T/priv" -- "$bin/map_secret" "$T/rootonly/secret"
	[ $rc = 0 ] || { show rec; die "mrr record exited $rc"; }
	bad=$(find "$T/priv" \( -type d ! -perm 700 \) -o \
		\( -type f ! -perm 600 ! -perm 700 \) -o ! -user root |
		head -n 5)
	[ -z "$bad" ] || fail "not private to root: $(for f in $bad; do
		stat -c '%A %U %n' "$f"; done | tr '\n' ';')"
	# A stored file may share its inode with root's private file cache
	# (~/.cache/mrr/files), never with anything else: not the secret.
	cache=$HOME/.cache/mrr
	while read -r f; do
		want=$(stat -c %h "$f")
		got=$(find "$T/priv" "$cache/files" -samefile "$f" | wc -l)
		[ "$got" = "$want" ] ||
			fail "root's trace holds a hard link to a file outside" \
				"it and the file cache: $f"
	done < <(find "$T/priv" -type f -links +1)
	[ -z "$(find "$cache" \( -type d ! -perm 700 \) -o \
		\( -type f ! -perm 600 ! -perm 700 \) -o ! -user root)" ] ||
		fail "root's file cache is not private to root"
	"${NB[@]}" ls "$cache" >/dev/null 2>&1 &&
		fail "nobody can list root's file cache"
	n=0
	while read -r f; do
		n=$((n + 1))
		if "${NB[@]}" cat "$f" >/dev/null 2>&1; then
			fail "nobody can read $f"
		fi
	done < <(find "$T/priv" -type f)
	[ $n -ge 4 ] || fail "the trace has only $n files"
	"${NB[@]}" ls "$T/priv" >/dev/null 2>&1 &&
		fail "nobody can list the trace directory"
	;;

shared_exec_map)
	mkdir -m 755 "$T/data"
	{ echo "the original contents"; head -c 4000 /dev/zero; } \
		>"$T/data/file"
	run rec "$mrr" record -o "$T/sx" -- "$bin/map_shared_exec" \
		"$T/data/file"
	[ $rc = 0 ] || { show rec; die "mrr record exited $rc"; }
	grep -q "^mapped: the original contents$" "$T/rec.out" ||
		fail "the program did not see the file: $(cat "$T/rec.out")"
	head -n 1 "$T/data/file" | grep -q "^changed by the program$" ||
		fail "the program's write did not reach the file"
	ino=$(stat -c %i "$T/data/file")
	for f in "$T/sx/files/"*; do
		[ "$(stat -c %i "$f")" = "$ino" ] &&
			fail "the trace's $f is a hard link to the mapped file"
	done
	# The user edits the file after recording; the replay must neither
	# care nor write to it.
	echo "edited by its owner later" >"$T/data/file"
	cp "$T/data/file" "$T/file.before"
	run rep "$mrr" replay "$T/sx"
	[ $rc = 0 ] || { fail "replay exited $rc"; show rep; }
	cmp -s "$T/data/file" "$T/file.before" ||
		fail "the replay wrote to the original file: $(head -n 1 \
			"$T/data/file")"
	cmp -s "$T/rec.out" "$T/rep.out" ||
		fail "the replay printed other bytes than the recording"
	;;

messages)
	echo hello >"$T/afile"
	mkdir "$T/empty"
	for o in /dev/null "$T/afile" "$T/empty" "$T/empty/"; do
		run rec "$mrr" record -o "$o" -- "$hello"
		expect_refused rec "^mrr: cannot create trace directory $o: it already exists$"
	done
	[ -z "$(ls -A "$T/empty")" ] || fail "mrr wrote into an empty directory"
	;;

*)
	usage
	;;
esac

if [ $hard_failed -gt 0 ]; then
	echo "--- kept $T"
	exit 1
fi
echo "ok: $case_name"
rm -rf "$T"
exit 0
