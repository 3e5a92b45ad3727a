#!/bin/bash
# cli.sh --mrr PATH: mrr's command line, table-driven.
#
# --help and --version must succeed quietly on stderr. Every error row runs
# one command and checks its exit code and that stderr is exactly one line
# matching the row's regex (extended, like grep -E). "@T@" in an argument is
# replaced by a scratch directory. Prints one line per row, then a summary;
# exits 1 if any row failed.

set -u

[ $# = 2 ] && [ "$1" = --mrr ] || {
	echo "usage: $0 --mrr PATH" >&2
	exit 2
}
mrr=$2

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-cli.XXXXXX") || exit 1
mkdir "$T/empty" "$T/home" "$T/traces"
# Keep anything mrr writes by default inside the scratch directory.
export HOME=$T/home MRR_TRACE_DIR=$T/traces
unset XDG_DATA_HOME
cd "$T" || exit 1

passed=0
failed=0

ok() {
	echo "ok: $*"
	passed=$((passed + 1))
}

bad() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

# run ARGS...: runs mrr with no stdin; sets rc, out, err.
run() {
	"$mrr" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# row CODE REGEX ARGS...: mrr ARGS must exit CODE with one stderr line
# matching REGEX.
row() {
	local code=$1 regex=${2//@T@/$T} args=() a lines
	shift 2
	for a in "$@"; do
		args+=("${a//@T@/$T}")
	done
	run "${args[@]}"
	lines=$(wc -l <"$T/err")
	if [ $rc != "$code" ]; then
		bad "mrr ${args[*]}: exit $rc, expected $code; stderr:"
		cat "$T/err"
	elif [ "$lines" != 1 ] || [ -n "$(tail -c 1 "$T/err")" ]; then
		bad "mrr ${args[*]}: stderr has $lines lines, expected one:"
		cat "$T/err"
	elif ! grep -Eq -- "$regex" "$T/err"; then
		bad "mrr ${args[*]}: stderr does not match /$regex/: $(cat "$T/err")"
	else
		ok "mrr ${args[*]}: $code, $(cat "$T/err")"
	fi
}

# --help: exit 0, the verbs and the exit codes on stdout, nothing on stderr.
run --help
missing=""
for word in record replay dump 64 65 66 70; do
	grep -qw -- "$word" "$T/out" || missing="$missing $word"
done
if [ $rc != 0 ] || [ -s "$T/err" ] || [ -n "$missing" ]; then
	bad "mrr --help: exit $rc, stderr $(wc -c <"$T/err") bytes," \
		"missing from stdout:${missing:- nothing}"
else
	ok "mrr --help: 0, mentions the verbs and exit codes"
fi

run --version
if [ $rc != 0 ] || [ -s "$T/err" ] || [ "$(wc -l <"$T/out")" != 1 ] ||
	! grep -Eq '^mrr [0-9]+\.[0-9]+' "$T/out"; then
	bad "mrr --version: exit $rc, stdout '$(cat "$T/out")'," \
		"stderr '$(cat "$T/err")'"
else
	ok "mrr --version: 0, $(cat "$T/out")"
fi

run record --help
if [ $rc != 0 ] || ! grep -q -- '-o' "$T/out"; then
	bad "mrr record --help: exit $rc, or stdout does not mention -o"
else
	ok "mrr record --help: 0"
fi

#   code regex                          arguments
row 64 '^mrr: .*verb'                                   # no arguments
row 64 '^mrr: .*bogus'                  bogus
row 64 '^mrr: .*--bogus'                --bogus
row 64 '^mrr: .*--bogus-flag'           record --bogus-flag x
row 64 '^mrr: .*program'                record
row 66 '^mrr: .*/nonexistent/prog'      record /nonexistent/prog
row 66 '^mrr: .*/etc.*director'         record /etc
row 66 '^mrr: .*/etc/passwd.*executable' record /etc/passwd
row 66 '^mrr: .*/nonexistent'           replay /nonexistent
row 65 '^mrr: .*/etc/passwd'            replay /etc/passwd
row 65 '^mrr: .*@T@/empty'              replay @T@/empty
row 66 '^mrr: .*/nonexistent'           dump /nonexistent
row 65 '^mrr: .*/etc/passwd'            dump /etc/passwd
row 66 '^mrr: .*trace'                  replay

# No failed command may leave a trace behind.
if [ -n "$(ls -A "$T/traces")" ]; then
	bad "failed commands left traces in \$MRR_TRACE_DIR: $(ls "$T/traces")"
fi

echo "$passed passed, $failed failed"
if [ $failed = 0 ]; then
	rm -rf "$T"
	exit 0
fi
echo "kept $T"
exit 1
