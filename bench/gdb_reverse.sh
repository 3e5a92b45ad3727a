#!/bin/bash
# gdb_reverse.sh BUILD [N]: the cost of reverse-continue (issue 13). Records
# bench/gdb_reverse.c with N traced syscalls (default 100000; -n, so that
# each is one event), serves the replay to gdb, runs forward to the end of
# the loop (breakpoint at done()), sets a hardware watchpoint on a variable
# written before the loop, and goes back to that write with
# reverse-continue. Prints the times and reverse/forward ratios against the
# forward run of the same span in the same session and a plain replay.
set -eu
build=$(realpath "${1:?usage: $0 BUILD [N]}")
n=${2:-100000}
mrr=$build/bin/mrr
prog=$build/bench/bench_gdb_reverse
T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-gdb-reverse.XXXXXX")
trap 'rm -rf "$T"' EXIT
command -v gdb >/dev/null || { echo "gdb is not installed"; exit 1; }

timeout 600 "$mrr" record -n -o "$T/t" "$prog" "$n" >/dev/null 2>&1
events=$("$mrr" dump "$T/t" 2>/dev/null | grep -c '^ *[0-9]' || true)
start=$(date +%s.%N)
timeout 600 "$mrr" replay -q "$T/t"
plain=$(echo "$(date +%s.%N) - $start" | bc)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
timeout 900 "$mrr" replay -q -s "$port" "$T/t" >"$T/srv.out" 2>&1 &
spid=$!
for _ in $(seq 100); do grep -q extended-remote "$T/srv.out" && break; sleep 0.1; done
cat >"$T/s.gdb" <<G
break done
python import time; t0 = time.time()
continue
python print("forward %.3f" % (time.time() - t0))
delete
watch target
python t0 = time.time()
reverse-continue
python print("reverse %.3f" % (time.time() - t0))
G
timeout 900 gdb -batch -nx -iex 'set sysroot /' -ex "target extended-remote :$port" \
	-x "$T/s.gdb" >"$T/gdb.out" 2>&1 || true
wait "$spid" || true
fwd=$(sed -n 's/^forward //p' "$T/gdb.out")
rev=$(sed -n 's/^reverse //p' "$T/gdb.out")
grep -q "Old value = 1" "$T/gdb.out" || { echo "reverse-continue did not reach the write:"; cat "$T/gdb.out"; exit 1; }
echo "events in trace:            ${events:-?}"
echo "plain replay (mrr replay):  ${plain}s"
echo "forward in gdb to done():   ${fwd}s"
echo "reverse-continue to write:  ${rev}s"
echo "ratio reverse/forward(gdb): $(echo "scale=2; $rev / $fwd" | bc)"
echo "ratio reverse/plain replay: $(echo "scale=2; $rev / $plain" | bc)"
