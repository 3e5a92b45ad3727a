#!/bin/bash
# filecache.sh --mrr PATH --case NAME -- MAPPROG: the per-user file cache
# (src/record/filecache.h). MAPPROG is filecache_map: it maps a data file
# and prints its first line from the mapping, so a replay prints what the
# trace's stored copy holds. Cases:
#   changed_in_place  a file rewritten in place (same size, mtime restored
#                     with touch -d) between recordings: the next trace
#                     holds the new content, the old one the old
#   cache_deleted     traces made from the cache replay after rm -rf of it
#   parallel          4 recordings at once, cold and warm: all replay, the
#                     cache has no leftovers and serves a later recording
#   nobody            nobody gets a cache of its own under its HOME, cannot
#                     use root's, and root's recorder refuses nobody's
#   hostile_entry     a cached copy changed behind the index is caught by
#                     the replay's hash check; one swapped for another
#                     file, or a torn index entry, is not used at record
#   disabled          MRR_NO_CACHE=1 and --no-cache make and use no cache;
#                     a group-writable cache is refused
#   verified          a replay trusts a stored file an earlier replay
#                     checked, until anything changes it (its ctime)
# Exits 0 on success, 1 on failure (keeping its scratch directory), 77 to
# skip.

set -u

usage() {
	echo "usage: $0 --mrr PATH --case NAME -- MAPPROG" >&2
	exit 2
}
mrr= case_name=
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$(realpath "$2"); shift 2 ;;
	--case) case_name=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$mrr" ] && [ -n "$case_name" ] && [ $# = 1 ] || usage

# /tmp: user nobody must reach the scratch directory.
T=$(mktemp -d /tmp/mrr-filecache.XXXXXX) || exit 1
chmod 755 "$T"
mkdir "$T/home" "$T/tmp" "$T/bin"
export HOME=$T/home TMPDIR=$T/tmp
unset XDG_CACHE_HOME XDG_DATA_HOME MRR_TRACE_DIR MRR_NO_CACHE
cache=$HOME/.cache/mrr
# A copy of the program, so that it too is old enough to be cached.
prog=$T/bin/map
cp "$1" "$prog"
chmod 755 "$prog"
cd "$T" || exit 1

fail() {
	echo "FAIL: $*"
	for f in "$T"/*.err; do
		[ -s "$f" ] && { echo "--- $(basename "$f"):"; tail -n 5 "$f"; }
	done
	echo "--- kept $T"
	exit 1
}
skip() {
	echo "SKIP: $*"
	rm -rf "$T"
	exit 77
}

# run NAME CMD...: runs CMD under a time limit; output in $T/NAME.{out,err}.
run() {
	local name=$1
	shift
	timeout 60 "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	rc=$?
}

# record TRACE [ENV...]: records MAPPROG on $T/data into $T/TRACE.
record() {
	local t=$1
	shift
	run "rec_$t" env "$@" "$mrr" record -o "$T/$t" -- "$prog" "$T/data"
	[ $rc = 0 ] || fail "recording $t exited $rc"
}

# replay TRACE LINE: the replay succeeds and prints LINE, as its recording.
replay() {
	run "rep_$1" "$mrr" replay "$T/$1"
	[ $rc = 0 ] || fail "replay of $1 exited $rc"
	grep -qx "mapped: version $2" "$T/rep_$1.out" ||
		fail "replay of $1 printed '$(cat "$T/rep_$1.out")'," \
			"not 'mapped: version $2'"
	cmp -s "$T/rec_$1.out" "$T/rep_$1.out" ||
		fail "replay of $1 printed other bytes than its recording"
}

# mkdata WORD: $T/data holds "version WORD" and padding, always the same
# size, with an mtime long past.
mkdata() {
	if [ -e "$T/data" ]; then
		printf 'version %s\n' "$1" |
			dd of="$T/data" conv=notrunc status=none
	else
		{
			printf 'version %s\n' "$1"
			head -c 8000 /dev/zero | tr '\0' x
			echo
		} >"$T/data"
	fi
	chmod 644 "$T/data"
	touch -d '2020-01-01 00:00:00' "$T/data"
}

# The cache enters only files still for two seconds (a file changed within
# one timestamp tick could change again and keep its times).
settle() { sleep 2.2; }

# linked TRACE: how many of TRACE's stored files share their inode.
linked() { find "$T/$1/files" -type f -links +1 | wc -l; }

# stored_with TRACE WORD: TRACE's stored copy of $T/data holding WORD.
stored_with() { grep -l "^version $2\$" "$T/$1"/files/* 2>/dev/null; }

case $case_name in
changed_in_place)
	mkdata A
	settle
	record t1
	record t2
	[ -n "$(stored_with t2 A)" ] || fail "t2 stored no copy of the data"
	[ "$(stat -c %h "$(stored_with t2 A)")" -gt 1 ] ||
		fail "the second recording did not take the data from the cache"
	# Same size, same mtime: only the ctime tells the change.
	mkdata B
	settle
	record t3
	replay t3 B
	[ -n "$(stored_with t3 B)" ] || fail "t3 does not hold the new content"
	[ -z "$(stored_with t3 A)" ] || fail "t3 holds the old content"
	replay t1 A
	record t4
	replay t4 B
	[ "$(stat -c %h "$(stored_with t4 B)")" -gt 1 ] ||
		fail "the new content was not cached"
	;;

cache_deleted)
	mkdata A
	settle
	record t1
	record t2
	[ "$(linked t2)" -gt 0 ] || fail "t2 took nothing from the cache"
	rm -rf "$cache"
	replay t1 A
	replay t2 A
	record t3
	replay t3 A
	[ -d "$cache/files" ] || fail "the next recording made no new cache"
	;;

parallel)
	mkdata A
	settle
	for round in cold warm; do
		pids=()
		for i in 1 2 3 4; do
			"$mrr" record -o "$T/$round$i" -- "$prog" "$T/data" \
				>"$T/rec_$round$i.out" 2>"$T/rec_$round$i.err" &
			pids+=($!)
		done
		for i in 1 2 3 4; do
			wait "${pids[$((i - 1))]}" ||
				fail "recording $round$i (of 4 at once) failed"
		done
	done
	for round in cold warm; do
		for i in 1 2 3 4; do
			replay "$round$i" A
		done
	done
	left=$(find "$cache" -name '.tmp.*')
	[ -z "$left" ] || fail "temporary files left in the cache: $left"
	[ "$(find "$cache/index" -type f | xargs -r stat -c %s | sort -u |
		wc -l)" = 1 ] || fail "index entries of different sizes"
	record after
	replay after A
	total=$(find "$T/after/files" -type f | wc -l)
	[ "$(linked after)" = "$total" ] ||
		fail "only $(linked after) of $total stored files came from" \
			"the cache after the parallel recordings"
	;;

nobody)
	[ "$(id -u)" = 0 ] || skip "needs root"
	id nobody >/dev/null 2>&1 || skip "there is no user nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	NB=(setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups)
	"${NB[@]}" test -x "$mrr" || skip "user nobody cannot execute $mrr"
	mkdata A
	mkdir "$T/nbhome" "$T/nbtraces"
	chown nobody "$T/nbhome" "$T/nbtraces"
	settle
	record r1
	[ -d "$cache/files" ] || fail "root's recording made no cache"
	# nobody, in its own HOME: a cache of its own.
	for t in n1 n2; do
		run "rec_$t" env HOME="$T/nbhome" "${NB[@]}" "$mrr" record \
			-o "$T/nbtraces/$t" -- "$prog" "$T/data"
		[ $rc = 0 ] || fail "nobody's recording $t exited $rc"
	done
	nbcache=$T/nbhome/.cache/mrr
	[ "$(stat -c '%U %a' "$nbcache")" = "nobody 700" ] ||
		fail "nobody's cache is $(stat -c '%U %a' "$nbcache")"
	[ "$(find "$T/nbtraces/n2/files" -type f -links +1 | wc -l)" -gt 0 ] ||
		fail "nobody's second recording took nothing from its cache"
	run rep_n2 env HOME="$T/nbhome" TMPDIR="$T/nbtraces" "${NB[@]}" "$mrr" replay \
		"$T/nbtraces/n2"
	[ $rc = 0 ] || fail "nobody's replay of n2 exited $rc"
	# nobody, with HOME at root's: cannot read or write root's cache.
	chmod 755 "$HOME" "$HOME/.cache"
	before=$(find "$cache" | sort | md5sum)
	run rec_n3 env HOME="$HOME" "${NB[@]}" "$mrr" record \
		-o "$T/nbtraces/n3" -- "$prog" "$T/data"
	[ $rc = 0 ] || fail "nobody's recording with root's HOME exited $rc"
	[ "$(find "$T/nbtraces/n3/files" -type f -links +1 | wc -l)" = 0 ] ||
		fail "nobody's trace shares files with root's cache"
	[ "$before" = "$(find "$cache" | sort | md5sum)" ] ||
		fail "nobody changed root's cache"
	# root, with HOME at nobody's: refuses a cache of another user.
	before=$(find "$nbcache" | sort | md5sum)
	run rec_r2 env HOME="$T/nbhome" "$mrr" record -o "$T/r2" -- \
		"$prog" "$T/data"
	[ $rc = 0 ] || fail "root's recording with nobody's HOME exited $rc"
	grep -q "not using the file cache .*belongs to uid" "$T/rec_r2.err" ||
		fail "root's recorder did not say why it left nobody's cache"
	[ "$(linked r2)" = 0 ] || fail "root's trace shares nobody's files"
	[ "$before" = "$(find "$nbcache" | sort | md5sum)" ] ||
		fail "root's recorder changed nobody's cache"
	[ -z "$(find "$nbcache" ! -user nobody)" ] ||
		fail "root's recorder left files in nobody's cache"
	;;

hostile_entry)
	mkdata A
	settle
	record h1
	obj=$(grep -l '^version A$' "$cache"/files/*)
	[ -n "$obj" ] || fail "the data file was not cached"
	# Changed in place behind the index, its mtime put back: only the
	# content hash can tell, at replay.
	mtime=$(stat -c %y "$obj")
	printf 'version X\n' | dd of="$obj" conv=notrunc status=none
	touch -d "$mtime" "$obj"
	record h2
	run rep_h2 "$mrr" replay "$T/h2"
	[ $rc = 65 ] || fail "replay of a trace with a changed cached copy" \
		"exited $rc, not 65"
	grep -q "no longer holds what was recorded" "$T/rep_h2.err" ||
		fail "the replay did not name the changed stored file"
	# Swapped for another file: the index knows its inode; not used.
	{
		printf 'version Y\n'
		tail -c +11 "$T/data"
	} >"$T/swap"
	chmod --reference="$obj" "$T/swap"
	touch -d "$mtime" "$T/swap"
	mv -f "$T/swap" "$obj"
	record h3
	replay h3 A
	[ -z "$(stored_with h3 Y)" ] || fail "h3 took the swapped-in copy"
	# A torn or garbled index entry is a miss.
	for e in "$cache"/index/*; do
		truncate -s 10 "$e"
	done
	record h4
	replay h4 A
	for e in "$cache"/index/*; do
		printf 'garbage' | dd of="$e" bs=1 seek=20 conv=notrunc \
			status=none
	done
	record h5
	replay h5 A
	record h6
	replay h6 A
	[ "$(stat -c %h "$(stored_with h6 A)")" -gt 1 ] ||
		fail "the cache did not recover from the bad entries"
	;;

disabled)
	mkdata A
	settle
	record d1 MRR_NO_CACHE=1
	[ ! -e "$cache" ] || fail "MRR_NO_CACHE=1 made a cache"
	run rec_d2 "$mrr" record --no-cache -o "$T/d2" -- "$prog" "$T/data"
	[ $rc = 0 ] || fail "record --no-cache exited $rc"
	[ ! -e "$cache" ] || fail "record --no-cache made a cache"
	replay d1 A
	replay d2 A
	record d3
	record d4
	[ "$(linked d4)" -gt 0 ] || fail "the cache is not used by default"
	record d5 MRR_NO_CACHE=1
	[ "$(linked d5)" = 0 ] || fail "MRR_NO_CACHE=1 used the cache"
	chmod 770 "$cache"
	record d6
	grep -q "not using the file cache .*other users can write" \
		"$T/rec_d6.err" || fail "a group-writable cache was not refused"
	[ "$(linked d6)" = 0 ] || fail "a group-writable cache was used"
	replay d6 A
	;;

verified)
	mkdata A
	settle
	record v1
	settle # the trace's files, just linked, must be still for a while
	replay v1 A
	[ -n "$(find "$cache/verified" -type f)" ] ||
		fail "the replay remembered no checked file"
	replay v1 A
	# Changed in place, mtime put back: the ctime moved, so it is checked
	# again, and caught.
	f=$(stored_with v1 A)
	mtime=$(stat -c %y "$f")
	printf 'version Z\n' | dd of="$f" conv=notrunc status=none
	touch -d "$mtime" "$f"
	run rep_v1z "$mrr" replay "$T/v1"
	[ $rc = 65 ] || fail "replay of a changed trace after a checked one" \
		"exited $rc, not 65"
	grep -q "no longer holds what was recorded" "$T/rep_v1z.err" ||
		fail "the replay did not name the changed stored file"
	;;

*)
	usage
	;;
esac

rm -rf "$T"
exit 0
