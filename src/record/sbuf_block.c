/* A group's runner that blocks inside a buffered call (issue 10). The
 * library makes the call untraced, so no stop tells mrr that the runner
 * waits, and the call may wait for another task of the group: a read that a
 * fanotify permission mark holds until the parent answers, a file on FUSE
 * served by a recorded process, a pipe another reader drained after the
 * library's FIONREAD look. The stall check (threads.c) finds the runner in
 * S or D state at the page's untraced syscall instruction
 * (/proc/TID/syscall) and calls here; the runner gives up the slot.
 *
 * The call returns to user code without a stop, so before the slot goes,
 * a breakpoint counter (core/bpcount.h, period 1) is put on the page's
 * `ret` after that instruction: the first thing the task runs after the
 * call. Its overflow stops the task there, and it waits for the slot like
 * any parked stop. This works whatever the program did to its buffer; it
 * costs nothing while no call blocks, and one stop per call that did.
 *
 * The trace: the records the task committed before the call go out at once
 * (a flush of a busy buffer, which mrr's offset sbuf_flushed remembers: the
 * library's `used` is left alone until the next regular flush), then an
 * MRR_EV_SCHED of reason MRR_SCHED_BUFFERED. The replay runs the task
 * through those records to the call, which finds no record and takes the
 * traced path; it holds it there, and later answers that traced call with
 * MRR_SYSCALLBUF_RETRY so that the library takes the next records (abi.h). */
#include "core/bpcount.h"
#include "core/log.h"
#include "core/owntrap.h"
#include "core/proc.h"
#include "record/rtask.h"
#include "record/spin.h"
#include "syscallbuf/abi.h"

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where an untraced call returns to: the `ret` after the page's syscall. */
#define RET_ADDR (MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL + 2)

static struct {
	unsigned long gave_up, stops, no_counter;
} stats;

/* Whether tid is inside an untraced call of the syscall buffer (its
 * /proc/TID/syscall names a call made from the page's untraced instruction
 * with the token): its number and arguments then. */
static bool untraced_call(pid_t tid, long *nr, uint64_t args[6])
{
	struct proc_syscall s;

	if (proc_task_syscall(tid, &s) != 1 || s.nr < 0 || s.pc != RET_ADDR ||
	    s.args[5] != MRR_SYSCALLBUF_TOKEN)
		return false;
	*nr = s.nr;
	memcpy(args, s.args, sizeof(s.args));
	return true;
}

bool rec_sbuf_block_check(struct recorder *rec, struct rtask *t)
{
	struct mrr_event ev = {0};
	struct capture c = {0};
	uint64_t args[6];
	long nr;
	char st;

	if (!t->sbuf_addr || t->sbuf_ret_armed || t->in_syscall ||
	    !untraced_call(t->t.tid, &nr, args))
		return false;
	/* a blocked overflow signal would let the task run on unstopped */
	if (rec_sig_blocked_or_ignored(t->t.tid, BPCOUNT_SIGNAL)) {
		stats.no_counter++;
		return false;
	}
	if (bpcount_open(&t->sbuf_ret, t->t.tid, RET_ADDR, 1) < 0 &&
	    (rec_spin_gates_close(t), /* they may hold the registers */
	     bpcount_open(&t->sbuf_ret, t->t.tid, RET_ADDR, 1) < 0)) {
		if (!stats.no_counter++)
			mrr_debug("pid %d: no breakpoint counter for a blocked "
				  "buffered call: it keeps the slot",
				  t->t.tid);
		return false;
	}
	/* Armed first, looked at after: a task still blocked now stops at
	 * the counter when its call returns. One that got out meanwhile was
	 * the runner all along; its overflow, if any, is dropped as stale at
	 * its stop (rec_preempt_own_stop). */
	st = proc_task_state(t->t.tid);
	if ((st != 'S' && st != 'D') || !untraced_call(t->t.tid, &nr, args)) {
		bpcount_close(&t->sbuf_ret);
		return false;
	}
	t->sbuf_ret_armed = true;
	stats.gave_up++;
	rec_sbuf_flush_busy(rec, t);
	ev.kind = MRR_EV_SCHED;
	ev.tid = t->t.tid;
	ev.ip = RET_ADDR;
	ev.nr = nr;
	memcpy(ev.args, args, sizeof(ev.args));
	ev.result = MRR_SCHED_BUFFERED;
	rec_write_event(rec, t, &ev, &c);
	mrr_debug("pid %d blocks in buffered call %ld: gives up the slot",
		  t->t.tid, nr);
	return true;
}

int rec_sbuf_block_stop(struct recorder *rec, struct rtask *t, int status)
{
	siginfo_t si;
	uint64_t n = 0;

	(void)rec;
	if (!t->sbuf_ret_armed)
		return 0;
	if (WIFSTOPPED(status) && (status >> 16) == 0 &&
	    WSTOPSIG(status) == BPCOUNT_SIGNAL &&
	    ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) == 0 &&
	    bpcount_is_overflow(&si, t->sbuf_ret.fd)) {
		bpcount_close(&t->sbuf_ret);
		t->sbuf_ret_armed = false;
		stats.stops++;
		return 1;
	}
	/* Another stop first (a signal, the task's end). Without a count
	 * no overflow is on its way: the counter goes. With one, it stays
	 * until its signal comes, so that the stop is known as mrr's. It
	 * stays too for the counter's own exception reported as a SIGTRAP
	 * (owntrap.h): the return runs into it again once that is
	 * swallowed. */
	if (!WIFSTOPPED(status) ||
	    (bpcount_read(&t->sbuf_ret, &n) == 0 && !n &&
	     !(WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0 &&
	       ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) == 0 &&
	       owntrap_lost(&si, t->t.tid, RET_ADDR)))) {
		bpcount_close(&t->sbuf_ret);
		t->sbuf_ret_armed = false;
	}
	return 0;
}

void rec_sbuf_block_gone(struct recorder *rec, struct rtask *t)
{
	if (t->sbuf_ret_armed)
		bpcount_close(&t->sbuf_ret);
	t->sbuf_ret_armed = false;
	if (t->sbuf_flushed && rec->sbuf_partial > 0)
		rec->sbuf_partial--;
	t->sbuf_flushed = 0;
}

void rec_sbuf_block_stats(void)
{
	const char *v = getenv("MRR_PREEMPT_STATS");

	mrr_debug("threads: %lu buffered calls blocked, %lu stops at their "
		  "return, %lu without a counter",
		  stats.gave_up, stats.stops, stats.no_counter);
	if (v && strcmp(v, "1") == 0 && stats.gave_up)
		fprintf(stderr,
			"mrr: record blocked buffered calls: %lu, %lu stops "
			"at their return\n",
			stats.gave_up, stats.stops);
}
