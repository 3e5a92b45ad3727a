#!/bin/bash
# emptyenv.sh: mrr itself run with an empty environment (env -i).
#
#   emptyenv.sh --mrr PATH -- PROG [ARGS...]
#
#   1. `env -i mrr record -o TRACE PROG` records (no PATH, no HOME, no
#      MRR_TRACE_DIR) with PROG's own status, and the program sees no
#      environment but what mrr adds for itself;
#   2. `env -i mrr replay TRACE` and a replay from the caller's environment
#      both exit 0 and echo the recorded stdout: a replay runs the program
#      with the recorded environment, not the replayer's;
#   3. as user nobody (when root), whose home directory does not exist,
#      `env -i mrr record PROG` with no -o has nowhere to put the trace: it
#      must exit 73 with one line naming the directory it could not create,
#      not fall back to a directory other users can write to (/tmp).
# Exits 0 when all held, 1 otherwise (keeping the scratch directory).

set -u
here=$(dirname "$0")
# shellcheck source=tests/hardening/lib.sh
. "$here/lib.sh"

[ $# -ge 3 ] && [ "$1" = --mrr ] && [ "$3" = -- ] || {
	echo "usage: $0 --mrr PATH -- PROG [ARGS...]" >&2
	exit 2
}
mrr=$(realpath "$2")
shift 3
prog=$(realpath "$1")
shift

T=$(mktemp -d /tmp/mrr-emptyenv.XXXXXX) || exit 1
chmod 755 "$T"
cd "$T" || exit 1

run native env -i "$prog" "$@"
native=$rc
run rec env -i "$mrr" record -o "$T/trace" -- "$prog" "$@"
[ $rc = "$native" ] ||
	{ fail "env -i mrr record exited $rc, natively $native"; show rec; }
run rep_empty env -i "$mrr" replay "$T/trace"
[ $rc = 0 ] && cmp -s "$T/rec.out" "$T/rep_empty.out" ||
	{ fail "env -i mrr replay exited $rc or printed other bytes"
	  show rep_empty; }
run rep_full "$mrr" replay "$T/trace"
[ $rc = 0 ] && cmp -s "$T/rec.out" "$T/rep_full.out" ||
	{ fail "mrr replay (full environment) exited $rc or printed other" \
		"bytes"; show rep_full; }
[ $hard_failed = 0 ] &&
	echo "ok: env -i record and replay: status $native, replays exit 0"

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null; then
	home=$(getent passwd nobody | cut -d: -f6)
	if [ -e "$home" ]; then
		echo "skip: nobody's home $home exists"
	else
		run nohome setpriv --reuid=nobody --regid="$(id -gn nobody)" \
			--clear-groups env -i "$mrr" record -- "$prog" "$@"
		msg=$(mrr_lines nohome)
		if [ $rc != 73 ] || [ "$(echo "$msg" | wc -l)" != 1 ] ||
			! echo "$msg" | grep -q "$home"; then
			fail "env -i mrr record as nobody (home $home) exited" \
				"$rc, expected 73 and one line naming $home:"
			show nohome
		else
			echo "ok: no home: $msg"
		fi
		grep -q '/tmp/.local' "$T/nohome.err" &&
			fail "mrr put nobody's trace under /tmp/.local/share/mrr"
	fi
fi

if [ $hard_failed = 0 ]; then
	rm -rf "$T"
	exit 0
fi
echo "--- kept $T"
exit 1
