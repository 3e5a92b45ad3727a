#!/bin/bash
# gdb_session.sh MRR GDB_PROG MADV_SEED CASE: records a program, serves its
# replay with `mrr replay -s PORT`, drives real gdb in batch mode against it
# and checks gdb's output and mrr's exit status (issue 13).
set -u
MRR=$1 PROG=$2 SEED=$3 CASE=$4 EXECPROG=${5:-} THREADPROG=${6:-}
# NAME_cp: the same with a checkpoint every few events, so that going back
# restores checkpoints instead of replaying from the start
case $CASE in
*_cp)
	CASE=${CASE%_cp}
	export MRR_GDB_CHECKPOINT_EVERY=7
	;;
esac
SRC=$(cd "$(dirname "$0")" && pwd)/gdb_prog.c
command -v gdb >/dev/null ||
	{ echo "SKIP: gdb is not installed (scripts/install-deps.sh installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

fail() {
	echo "FAIL ($CASE): $*"
	for f in "$W"/gdb.out "$W"/srv.err; do
		[ -f "$f" ] && { echo "--- $f"; tail -40 "$f"; }
	done
	exit 1
}
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
record() { # NAME PROGRAM
	timeout 60 "$MRR" record -o "$W/$1" "$2" >"$W/$1.rec" 2>&1 ||
		fail "cannot record $2: $(tail -3 "$W/$1.rec")"
}
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
# serve TRACE [OPTIONS...]: starts mrr replay -s on a free port; sets PORT
# and SPID
serve() {
	local trace=$1
	shift
	PORT=$(free_port)
	timeout 100 "$MRR" replay -s "$PORT" "$@" "$W/$trace" >"$W/srv.out" 2>"$W/srv.err" &
	SPID=$!
	for _ in $(seq 100); do
		grep -q "target extended-remote :$PORT" "$W/srv.out" && return 0
		sleep 0.1
	done
	fail "mrr replay -s printed no target line"
}
# session TRACE SCRIPT [OPTIONS...]: one gdb batch session; sets SRV_RC
session() {
	local trace=$1 script=$2
	shift 2
	serve "$trace" "$@"
	timeout 90 gdb -batch -nx -iex 'set sysroot /' -iex 'set confirm off' \
		-ex "target extended-remote :$PORT" -x "$script" >"$W/gdb.out" 2>&1
	wait "$SPID"
	SRV_RC=$?
}
expect() { grep -Eq -- "$1" "$W/gdb.out" || fail "gdb output lacks /$1/"; }
verified() {
	[ "$SRV_RC" = 0 ] || fail "mrr replay -s exited $SRV_RC"
	! grep -q "diverged" "$W/srv.err" || fail "the replay diverged"
}

LOOP=$(line_of 'for (int i')
COUNTER=$(line_of 'counter = i \* 10')
SUMLINE=$(line_of 'sum += square')
GETPPID=$(line_of 'getppid();')
PRINTF=$(line_of 'printf("local')
FORK=$(line_of 'pid = fork')

case $CASE in
forward)
	record p "$PROG"
	cat >"$W/s.gdb" <<G
break main
continue
info registers rip
break gdb_prog.c:$LOOP
continue
print local
x/4gx heap
print square(3)
hbreak square
continue
bt
finish
delete
break gdb_prog.c:$GETPPID
continue
next
info sharedlibrary
break gdb_prog.c:$FORK
continue
next
info inferiors
delete
continue
continue
G
	session p "$W/s.gdb"
	expect '^Breakpoint 1, main \(\) at .*gdb_prog.c'
	expect '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <main\+[0-9]+>'
	expect '^\$1 = 7$'
	expect '0x0000000000001111\s+0x0000000000002222'
	expect '0x0000000000003333\s+0x0000000000004444'
	expect '^#1 +0x[0-9a-f]+ in main \(\) at .*gdb_prog.c'
	expect '^\$2 = 9$'
	expect '^Breakpoint 3, square \(x=0\)'
	expect '^Value returned is \$3 = 0$'
	expect "^$PRINTF\s+printf"
	expect 'libc\.so\.6'
	! grep -q "while parsing target" "$W/gdb.out" ||
		fail "gdb refused mrr's library list"
	expect '^\* 1 +'
	expect 'exited normally'
	verified
	grep -q "child exit 3" "$W/srv.out" || fail "program output missing"
	;;
madvise)
	record s "$SEED"
	cat >"$W/s.gdb" <<G
break madv_seed.c:23
continue
watch -l *first
continue
bt
continue
continue
reverse-continue
reverse-continue
bt
G
	session s "$W/s.gdb"
	# forward: the madvise that dropped the page is the write
	expect 'Old value = 42'
	expect '#[0-9]+ +0x[0-9a-f]+ in madvise \('
	expect '#[0-9]+ +0x[0-9a-f]+ in main \(\) at .*madv_seed.c'
	expect 'Program received signal SIGKILL'
	# backwards from the end: the munmap, then the same madvise
	tail -12 "$W/gdb.out" | grep -q 'New value = 42' ||
		fail "reverse-continue did not stop before the madvise"
	tail -8 "$W/gdb.out" | grep -Eq 'in madvise \(' ||
		fail "bt after reverse-continue lacks madvise"
	tail -8 "$W/gdb.out" | grep -Eq 'in main \(\) at .*madv_seed.c' ||
		fail "bt after reverse-continue lacks main"
	verified
	;;
reverse)
	record p "$PROG"
	cat >"$W/s.gdb" <<G
break gdb_prog.c:$COUNTER
continue
continue
reverse-step
continue
reverse-next
delete
break square
continue
reverse-finish
delete
break gdb_prog.c:$PRINTF
continue
watch counter
reverse-continue
reverse-continue
G
	session p "$W/s.gdb"
	# reverse-step from the line after the call goes into it
	grep -EA2 "^$COUNTER\s+counter = i" "$W/gdb.out" | grep -Eq '^square \(x=1\) at|^1[45]\s+(return y;|\})' ||
		fail "reverse-step did not go back into square"
	expect "^$SUMLINE\s+sum \+= square"
	# reverse-finish: back in main at the call
	grep -EA3 'square \(x=' "$W/gdb.out" | grep -Eq "main \(\) at .*gdb_prog.c:$SUMLINE|^$SUMLINE\s+sum" ||
		fail "reverse-finish did not return to the caller"
	expect 'Old value = 40'
	expect 'New value = 30'
	expect 'Old value = 30'
	expect 'New value = 20'
	grep -EA3 'New value = 30' "$W/gdb.out" | grep -Eq "^$COUNTER\s+counter = i" ||
		fail "reverse-continue on the watchpoint is not at the write"
	verified
	;;
determinism)
	record p "$PROG"
	cat >"$W/s.gdb" <<G
break square
continue
continue
reverse-continue
continue
continue
reverse-continue
reverse-continue
reverse-stepi
stepi
delete
continue
continue
G
	session p "$W/s.gdb"
	expect 'exited normally'
	verified
	[ "$(grep -c 'local=37 sum=30 counter=40' "$W/srv.out")" = 1 ] ||
		fail "the program's output was not shown exactly once"
	;;
bad_input)
	record p "$PROG"
	# malformed packets, then a question that must still be answered
	serve p
	python3 - "$PORT" >"$W/gdb.out" 2>&1 <<'P' || fail "garbage client: $(cat "$W/gdb.out")"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def pkt(body):
    b = body.encode()
    return b"$" + b + b"#" + ("%02x" % (sum(b) & 0xff)).encode()
s.sendall(b"$garbage#00")                 # bad checksum: nacked
for body in ["mzz", "m1,", "M1,2:zz", "X10,4:", "Zq", "Z0,1", "Z2,1001,3",
             "vCont;x", "vCont;s:zz", "Gzz", "p9999", "P1=zz", "bq",
             "qXfer:features:read:target.xml:zz", "qXfer:auxv:read::1",
             "H", "x" * 70000, "vCont", "\x03"]:
    s.sendall(pkt(body))
s.sendall(pkt("?"))
buf = b""
s.settimeout(20)
while b"$T05" not in buf and b"$W" not in buf:
    d = s.recv(65536)
    if not d:
        sys.exit("server closed the connection")
    buf += d
print("answered")
s.close()
P
	wait "$SPID"
	rc=$?
	[ "$rc" = 0 ] || fail "server exited $rc after garbage"
	# disconnect in the middle of a session
	serve p
	python3 - "$PORT" <<'P'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"$qSupported#37")
s.recv(4096)
s.close()
P
	wait "$SPID"
	rc=$?
	[ "$rc" = 0 ] || fail "server exited $rc after gdb went away"
	# a port in use: one sentence, exit 71
	python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1], flush=True); time.sleep(20)' >"$W/hold" &
	HOLD=$!
	for _ in $(seq 50); do [ -s "$W/hold" ] && break; sleep 0.1; done
	PORT=$(cat "$W/hold")
	timeout 10 "$MRR" replay -s "$PORT" "$W/p" >"$W/srv.out" 2>"$W/srv.err"
	rc=$?
	kill "$HOLD" 2>/dev/null
	wait "$HOLD" 2>/dev/null
	[ "$rc" = 71 ] || fail "port in use: exit $rc, not 71"
	[ "$(wc -l <"$W/srv.err")" = 1 ] && grep -q "port $PORT .* in use" "$W/srv.err" ||
		fail "port in use: not one sentence: $(cat "$W/srv.err")"
	# -g without a gdb to run: exit 71, no hang
	mkdir "$W/nogdb"
	ln -s "$(command -v timeout)" "$W/nogdb/timeout"
	PATH=$W/nogdb timeout 30 "$MRR" replay -g "$W/p" >/dev/null 2>"$W/srv.err"
	rc=$?
	[ "$rc" = 71 ] || fail "-g without gdb: exit $rc, not 71"
	;;
interrupt)
	# ^C during a long continue stops the replay between two events,
	# also when it came in one read with the vCont
	timeout 120 "$MRR" record -n -o "$W/l" "$(dirname "$PROG")/gdb_loop" >"$W/l.rec" 2>&1 ||
		fail "cannot record gdb_loop"
	serve l
	timeout 60 python3 - "$PORT" >"$W/gdb.out" 2>&1 <<'P' || fail "interrupt: $(cat "$W/gdb.out")"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def pkt(body):
    b = body.encode()
    return b"$" + b + b"#" + ("%02x" % (sum(b) & 0xff)).encode()
def reply():
    buf = b""
    while b"#" not in buf.lstrip(b"+"):
        d = s.recv(4096)
        if not d:
            sys.exit("connection closed")
        buf += d
    s.sendall(b"+")
    return buf
# the ^C in the same write as the vCont: the server has it buffered
# before the replay runs, so the stop does not depend on timing
s.sendall(pkt("vCont;c") + b"\x03")
r = reply()
if b"$T02" not in r:
    sys.exit("no SIGINT stop after ^C: %r" % r)
s.sendall(pkt("g"))
reply()
s.sendall(pkt("D"))
reply()
print("interrupted")
P
	wait "$SPID"
	SRV_RC=$?
	verified
	grep -q "loop done" "$W/srv.out" || fail "the replay did not finish after detach"
	;;
follow)
	# the first process by default, across its exec; -p and --onexec
	record e "$EXECPROG"
	printf 'continue\ncontinue\n' >"$W/s.gdb"
	session e "$W/s.gdb"
	expect 'is executing new program: '
	expect 'exited normally'
	verified
	printf 'info registers rip\ncontinue\ncontinue\n' >"$W/s.gdb"
	session e "$W/s.gdb" --onexec echo
	expect '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <_start>'
	expect 'exited normally'
	verified
	child=$("$MRR" dump "$W/e" 2>/dev/null | awk '$3 == "exec" && $4 ~ /echo"$/ { print $2; exit }')
	[ -n "$child" ] || fail "no exec of echo in the dump"
	printf 'continue\ncontinue\n' >"$W/s.gdb"
	session e "$W/s.gdb" -p "$child"
	expect 'is executing new program: .*'
	expect 'exited normally'
	verified
	timeout 30 "$MRR" replay -s "$(free_port)" -p 4000000 "$W/e" >/dev/null 2>"$W/srv.err"
	[ $? = 64 ] && grep -q "no process 4000000" "$W/srv.err" ||
		fail "-p of a pid the recording lacks is not a usage error"
	;;
threads)
	# a multi-threaded program (issue 12): gdb lists every thread with its
	# recorded tid, a breakpoint hits in any thread, another thread steps
	# when the trace moves it, threads exit during a continue, and going
	# back (a restart: checkpoints refuse threads) finds a hit in a thread
	record t "$THREADPROG"
	"$MRR" dump "$W/t" >"$W/t.dump" 2>&1 || fail "cannot dump the trace"
	main=$(awk 'NR == 1 { print $2 }' "$W/t.dump")
	ntids=$(awk '{ print $2 }' "$W/t.dump" | sort -u | wc -l)
	[ "$ntids" -ge 3 ] || fail "the recording has $ntids tasks"
	cat >"$W/s.gdb" <<G
break worker
continue
info threads
thread 1
thread 2
bt
stepi
stepi
info threads
continue
info threads
delete
continue
continue
G
	session t "$W/s.gdb"
	expect "hit Breakpoint 1, worker"
	expect "^[* ] 1 +Thread $main +"
	expect "^\\* 2 +Thread [0-9]+ +worker "
	expect '^#1 .* start_thread '
	expect 'exited normally'
	# every thread gdb saw is a task of the recording
	for tid in $(sed -n 's/^[* ] *[0-9][0-9]* *Thread \([0-9]*\) .*/\1/p' "$W/gdb.out" | sort -u); do
		awk -v t="$tid" '$2 == t { f = 1 } END { exit !f }' "$W/t.dump" ||
			fail "thread $tid is not a recorded tid"
	done
	[ "$(grep -c '^[* ] *[0-9][0-9]* *Thread ' "$W/gdb.out")" -ge 4 ] ||
		fail "info threads listed fewer than 2 threads twice"
	verified
	cat >"$W/s.gdb" <<G
delete
continue
break worker
reverse-continue
info threads
bt 2
delete
continue
continue
G
	session t "$W/s.gdb"
	expect "hit Breakpoint 1, worker \\(arg=0x[0-3]\\)"
	expect "^\\* [0-9]+ +Thread [0-9]+ +worker "
	expect '^#1 .* start_thread '
	expect 'exited normally'
	verified
	;;
*)
	fail "unknown case"
	;;
esac
echo "PASS gdb/$CASE"
