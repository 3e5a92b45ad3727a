#!/bin/bash
# checkpoint.sh --mrr MRR --tool REPLAY_CHECKPOINT [--nobuf] [--tool-args "ARGS"]
#               [--need-fork] [--need-kept] -- PROG [ARGS...]
#
# Checkpoints of a replay (src/replay/checkpoint.h): records PROG, then
# replays it with tests/tools/replay_checkpoint, which takes checkpoints at
# a quarter, half and three quarters of the events, replays to the end, and
# goes back to each (last first) to replay to the end again. Every pass must
# verify (exit 0), pass 0 must print what the recording printed, and each
# later pass exactly what pass 0 printed after its event (the tool checks
# that). With --need-fork, every checkpoint must have been a fork one; with
# --need-kept, some return must start from a fork checkpoint that outlived
# the thinning of the set (--tool-args "--every K --max N"). No process of
# the replay may be left behind.
set -u
mrr="" tool="" nobuf="" targs="" need_fork=0 need_kept=0
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) mrr=$2; shift 2 ;;
	--tool) tool=$2; shift 2 ;;
	--nobuf) nobuf=-n; shift ;;
	--tool-args) targs=$2; shift 2 ;;
	--need-fork) need_fork=1; shift ;;
	--need-kept) need_kept=1; shift ;;
	--) shift; break ;;
	*) echo "usage: $0 --mrr MRR --tool TOOL [...] -- PROG" >&2; exit 2 ;;
	esac
done
[ -n "$mrr" ] && [ -n "$tool" ] && [ $# -ge 1 ] ||
	{ echo "usage: $0 --mrr MRR --tool TOOL [...] -- PROG" >&2; exit 2; }
dir=$(mktemp -d /tmp/mrr-checkpoint.XXXXXX) || exit 1
fail() {
	echo "FAIL: $*"
	echo "--- kept $dir"
	exit 1
}

timeout 60 "$mrr" record $nobuf -o "$dir/t" -- "$@" >"$dir/rec.out" \
	2>"$dir/rec.err" || fail "recording failed: $(tail -3 "$dir/rec.err")"
n=$("$mrr" dump "$dir/t" | grep -c .)
[ "$n" -ge 8 ] || fail "only $n events recorded"
# shellcheck disable=SC2086
timeout 120 "$tool" $targs --out "$dir/out" "$dir/t" $((n / 4)) $((n / 2)) \
	$((3 * n / 4)) 2>"$dir/tool.err"
rc=$?
[ $rc -ne 124 ] || fail "the replays hung: $(tail -5 "$dir/tool.err")"
[ $rc -eq 0 ] || fail "replay_checkpoint exited $rc: $(tail -20 "$dir/tool.err")"
cmp -s "$dir/rec.out" "$dir/out.0" ||
	fail "the first replay printed other output than the recording"
for k in 1 2 3; do
	[ -f "$dir/out.$k" ] || fail "pass $k did not run: $(cat "$dir/tool.err")"
done
taken=$(grep -c "checkpoint taken" "$dir/tool.err")
if [ $need_fork = 1 ] && [ "$taken" -ne 3 ]; then
	fail "only $taken of 3 checkpoints were taken: $(cat "$dir/tool.err")"
fi
if [ $need_kept = 1 ] &&
	! grep -q "^back to event .* (from the checkpoint at event [1-9]" \
		"$dir/tool.err"; then
	fail "no return started from a kept fork checkpoint: $(cat "$dir/tool.err")"
fi
pgrep -f "$dir/" >/dev/null && fail "processes of the replay are left behind"
echo "ok: $n events, $taken fork checkpoints, 3 returns replayed identically"
grep "^event\|^back\|kept" "$dir/tool.err"
rm -rf "$dir"
