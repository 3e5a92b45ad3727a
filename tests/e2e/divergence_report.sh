#!/bin/bash
# The divergence report a user reads: after one recorded result is changed,
# mrr replay must show the disassembly at the diverging instruction, a
# backtrace naming the program's function and the files by their recorded
# paths, and write the same as JSON.
set -u
mrr=$1 edit=$2 prog=$3
dir=$(mktemp -d /tmp/mrr-report.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }

"$mrr" record -n -o "$dir/t" "$prog" >/dev/null 2>&1 || fail "record failed"
"$edit" --nr 1 --result 3 "$dir/t" "$dir/bad" >/dev/null 2>&1 || fail "trace_edit failed"
"$mrr" replay -q --divergence-json "$dir/report.json" "$dir/bad" 2>"$dir/err"
rc=$?
[ "$rc" -eq 70 ] || fail "replay exited $rc, expected 70"
grep -q '^mrr: replay diverged at event [0-9]* (pid [0-9]*' "$dir/err" || fail "no first line naming event and pid"
grep -q '^=> 0x[0-9a-f]*: ' "$dir/err" || fail "no disassembly line at the diverging instruction"
grep -q ' main+0x[0-9a-f]* (' "$dir/err" || fail "no backtrace frame naming main"
grep -q 'last events before it' "$dir/err" || fail "no recent events"
# frames name files by their paths at record, not by the replay's copies
real=$(readlink -f "$prog")
grep -Eq " main\+0x[0-9a-f]* \(($prog|$real)\)\$" "$dir/err" ||
	fail "main's frame does not name the recorded program $prog"
grep -q ' (/.*/libc\.so\.6)$' "$dir/err" || fail "no frame names libc.so.6"
grep -Eq '\((/tmp/mrr-replay-|.*/files/[0-9a-f]{16}-)' "$dir/err" &&
	fail "a frame names a replay copy or a stored file"
python3 - "$dir/report.json" <<'PY' || fail "bad JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert isinstance(r["event"], int) and r["message"]
assert any(l.startswith("=> 0x") for l in r["disassembly"])
assert any(" main+0x" in l for l in r["backtrace"])
assert len(r["recent_events"]) == 10
PY
echo "ok: divergence report has disassembly, backtrace with main and recorded paths, JSON"
