#!/bin/bash
# run.sh: one real threaded program recorded and replayed (issue 12).
#
#   run.sh --mrr PATH --harness RECORD_REPLAY_SH [--goprog PATH]
#          [--variant buf|nobuf|nobody] [--timeout SECONDS] [--stats] NAME
#
# Checks that the outside program NAME needs is installed (exit 77, which
# ctest reports as skipped, with the package to install when it is not),
# writes its input files into a fresh directory every user can read, and
# hands the command to tests/e2e/record_replay.sh --real: native run,
# `mrr record` under a time limit, `mrr replay` that must exit 0 and print
# exactly what the recording printed. NAME is one of:
#   python_queue    python3 threading: 4 workers fed through a queue.Queue
#   sort_parallel   sort --parallel=2 on 200,000 lines (GNU sort starts no
#                   thread below 128Ki lines, so 100,000 would test nothing)
#   sort_15mb       plain sort on a 14 MB file (it starts a thread itself)
#   zstd_t2         zstd -T2 on the same 14 MB file
#   xz_t2           xz -T2 -1 with 1 MiB blocks on 3 MB (so 2 workers run)
#   go              tests/real_threads/goprog, built by the go_build test
#   node            node -e with a timer and an asynchronous file read
#   openssl_speed   openssl speed -seconds 1 sha256 (alarm, no syscalls)
#
# With --stats (used by bench/threads_stats.sh) it records and replays once
# as the current user, without comparing, and prints one line of counts:
# threads (distinct tids), events, events by kind from `mrr dump -s`, the
# most breakpoint stops one preemption point needs at replay (the largest
# "execution N" among the trace's preempt events), the seconds record and
# replay took, and the replay's exit status and its stderr lines that
# mention a search or breakpoint stops.

set -u

usage() {
	echo "usage: $0 --mrr PATH --harness PATH [--goprog PATH]" \
		"[--variant buf|nobuf|nobody] [--timeout S] NAME" >&2
	exit 2
}

mrr=""
harness=""
goprog=""
variant=buf
step_timeout=100
stats=0
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--harness) [ $# -ge 2 ] || usage; harness=$2; shift 2 ;;
	--goprog) [ $# -ge 2 ] || usage; goprog=$2; shift 2 ;;
	--variant) [ $# -ge 2 ] || usage; variant=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage; step_timeout=$2; shift 2 ;;
	--stats) stats=1; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ -n "$mrr" ] && [ -n "$harness" ] && [ $# = 1 ] || usage
name=$1

skip() {
	echo "SKIP: $*"
	exit 77
}

# tool PROGRAM PACKAGE: sets $prog to PROGRAM in the system's directories
# (never a version manager's shim, which nobody could not run), or skips.
tool() {
	local d
	for d in /usr/bin /bin; do
		if [ -x "$d/$1" ]; then
			prog=$d/$1
			return 0
		fi
	done
	skip "$1 is not installed (apt-get install $2, or run" \
		"scripts/install-deps.sh)"
}

harness_args=(--mrr "$mrr" --real --timeout "$step_timeout")
case $variant in
buf) ;;
nobuf) harness_args+=(--no-syscallbuf) ;;
nobody) harness_args+=(--as-nobody) ;;
*) usage ;;
esac

# Inputs live in their own directory that user nobody can read.
D=$(mktemp -d /tmp/mrr-threads.XXXXXX) || exit 1
trap 'rm -rf "$D"' EXIT
chmod 755 "$D"

# lines FILE N SEED: N lines "hex8 serial", unsorted, the same every run.
lines() {
	awk -v n="$2" -v seed="$3" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%08x %07d\n", int(rand() * 4294967296), i
	}' >"$1" && chmod 644 "$1"
}

cmd=()
case $name in
python_queue)
	tool python3 python3
	cmd=("$prog" -c 'import queue, threading
jobs = queue.Queue()
done = queue.Queue()
def work(k):
    while True:
        n = jobs.get()
        if n is None:
            break
        done.put((k, sum(i * i for i in range(n))))
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
for n in range(200, 2200, 10):
    jobs.put(n)
for t in ts:
    jobs.put(None)
for t in ts:
    t.join()
got = []
while not done.empty():
    got.append(done.get()[1])
print(len(got), sum(got), threading.active_count())')
	;;
sort_parallel)
	tool sort coreutils
	lines "$D/in.txt" 200000 3 || exit 1
	cmd=("$prog" --parallel=2 "$D/in.txt")
	;;
sort_15mb)
	tool sort coreutils
	lines "$D/in.txt" 830000 1 || exit 1
	cmd=("$prog" "$D/in.txt")
	;;
zstd_t2)
	tool zstd zstd
	lines "$D/in.txt" 830000 1 || exit 1
	cmd=("$prog" -T2 -q -c "$D/in.txt")
	;;
xz_t2)
	tool xz xz-utils
	lines "$D/in.txt" 180000 2 || exit 1
	cmd=("$prog" -T2 -1 --block-size=1MiB -c "$D/in.txt")
	;;
go)
	[ -n "$goprog" ] || usage
	[ -x "$goprog" ] || skip "$goprog was not built (the go_build test" \
		"builds it; it needs golang-go: run scripts/install-deps.sh)"
	cmd=("$goprog")
	;;
node)
	tool node nodejs
	lines "$D/in.txt" 20000 4 || exit 1
	cmd=("$prog" -e 'const fs = require("fs");
const crypto = require("crypto");
setTimeout(() => {
  fs.readFile(process.argv[1], (err, data) => {
    if (err) throw err;
    const h = crypto.createHash("sha256").update(data).digest("hex");
    console.log(data.length, h.slice(0, 16));
    setTimeout(() => console.log("timer done"), 20);
  });
}, 30);' "$D/in.txt")
	;;
openssl_speed)
	tool openssl openssl
	cmd=("$prog" speed -seconds 1 sha256)
	;;
*)
	echo "run.sh: unknown program $name" >&2
	exit 2
	;;
esac

if [ $stats = 1 ]; then
	rec_args=(record -o "$D/trace")
	[ "$variant" = nobuf ] && rec_args+=(-n)
	t0=$EPOCHREALTIME
	timeout -k 5 "$step_timeout" "$mrr" "${rec_args[@]}" -- "${cmd[@]}" \
		>"$D/record.out" 2>"$D/record.err" </dev/null
	rec_rc=$?
	t1=$EPOCHREALTIME
	timeout -k 5 "$step_timeout" "$mrr" replay "$D/trace" \
		>"$D/replay.out" 2>"$D/replay.err" </dev/null
	rep_rc=$?
	t2=$EPOCHREALTIME
	threads=$("$mrr" dump -f "$D/trace" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ { t[$2] = 1 } END { print length(t) }')
	kinds=$("$mrr" dump -f -s "$D/trace" 2>/dev/null | awk '
		/^events:/ { n = $2; on = 1; next }
		on && /^  / { k = k " " $1 "=" $2; next }
		{ on = 0 }
		END { printf "events=%s%s", n, k }')
	# A preemption point found again at replay by counting executions of
	# its address ("execution N of it") costs N breakpoint stops.
	search=$("$mrr" dump -f "$D/trace" 2>/dev/null | awk '
		$3 == "preempt" {
			for (i = 4; i < NF; i++)
				if ($i == "execution" && $(i + 1) + 0 > m)
					m = $(i + 1) + 0
		}
		END { print m + 0 }')
	same=no
	cmp -s "$D/record.out" "$D/replay.out" && same=yes
	awk -v n="$name" -v v="$variant" -v th="$threads" -v k="$kinds" \
		-v rr="$rec_rc" -v pr="$rep_rc" -v s="$same" -v se="$search" \
		-v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
		printf "%s (%s): record exit %d %.1fs, replay exit %d %.1fs," \
			" same stdout %s; threads=%s %s; longest preemption" \
			" search %s breakpoint stops\n", n, v, rr, t1 - t0,
			pr, t2 - t1, s, th, k, se }'
	grep -iE 'search|breakpoint|stops' "$D/replay.err" | head -n 5
	[ $rec_rc = 0 ] || tail -n 2 "$D/record.err"
	[ $rep_rc = 0 ] || tail -n 2 "$D/replay.err"
	exit 0
fi

bash "$harness" "${harness_args[@]}" -- "${cmd[@]}"
