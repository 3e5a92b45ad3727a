/* Calls that mrr itself would cut short with EINTR (eintr.h). */
#include "record/eintr.h"

#include "core/log.h"
#include "core/tracee.h"
#include "record/rtask.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether every signal pending for tid and not blocked is one that the
 * kernel would have discarded when it was sent to an untraced task
 * (ignored, or a default action of ignoring); true with none pending. */
static bool only_ignored_pending(pid_t tid)
{
	unsigned long long pnd = 0, blk = 0, ign = 0, cgt = 0, dfl_ign, left;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "SigPnd:", 7) ||
		    !strncmp(line, "ShdPnd:", 7))
			pnd |= strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigBlk:", 7))
			blk = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigIgn:", 7))
			ign = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigCgt:", 7))
			cgt = strtoull(line + 7, NULL, 16);
	}
	fclose(f);
	dfl_ign = (1ull << (SIGCHLD - 1)) | (1ull << (SIGURG - 1)) |
		  (1ull << (SIGWINCH - 1)) | (1ull << (SIGCONT - 1));
	left = pnd & ~blk & ~ign & ~(dfl_ign & ~cgt);
	return left == 0;
}

void rec_eintr_entry(struct rtask *t)
{
	struct timespec ts;

	if (t->nr != SYS_rt_sigtimedwait || t->eintr_again)
		return;
	t->eintr_start_ns = mono_ns();
	t->eintr_timeout_ns = -1; /* none: wait for ever */
	if (t->args[2] &&
	    tracee_read_all(&t->t, t->args[2], &ts, sizeof(ts)) == 0 &&
	    ts.tv_sec >= 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000)
		t->eintr_timeout_ns =
			(int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	else if (t->args[2])
		t->eintr_timeout_ns = 0; /* the kernel fails it: no wait */
}

/* Puts back the program's timeout that a call made again had in its place. */
static void put_back(struct rtask *t)
{
	if (t->eintr_shortened &&
	    tracee_write_all(&t->t, t->args[2], &t->eintr_saved_ts,
			     sizeof(t->eintr_saved_ts)) < 0)
		mrr_debug("pid %d: cannot put rt_sigtimedwait's timeout back",
			  t->t.tid);
	t->eintr_shortened = false;
}

bool rec_eintr_again(struct recorder *rec, struct rtask *t)
{
	struct user_regs_struct r;
	struct timespec left_ts;
	int64_t left = 0;

	(void)rec;
	if (t->nr != SYS_rt_sigtimedwait)
		return false;
	if (tracee_get_regs(&t->t, &r) < 0 || (int64_t)r.rax != -EINTR ||
	    t->deferred || t->injecting || t->nqueued ||
	    !only_ignored_pending(t->t.tid) || t->eintr_timeout_ns == 0) {
		put_back(t);
		t->eintr_again = false;
		return false;
	}
	if (t->eintr_timeout_ns > 0) {
		left = t->eintr_start_ns + t->eintr_timeout_ns - mono_ns();
		if (left <= 0) { /* natively it timed out by now */
			put_back(t);
			t->eintr_again = false;
			r.rax = (uint64_t)-EAGAIN;
			if (tracee_set_regs(&t->t, &r) < 0)
				mrr_debug("pid %d: cannot set EAGAIN",
					  t->t.tid);
			return false;
		}
		if (!t->eintr_shortened &&
		    tracee_read_all(&t->t, t->args[2], &t->eintr_saved_ts,
				    sizeof(t->eintr_saved_ts)) < 0)
			return false;
		left_ts.tv_sec = left / 1000000000;
		left_ts.tv_nsec = left % 1000000000;
		if (tracee_write_all(&t->t, t->args[2], &left_ts,
				     sizeof(left_ts)) < 0)
			return false;
		t->eintr_shortened = true;
	}
	r.rip -= 2;
	r.rax = r.orig_rax;
	if (tracee_set_regs(&t->t, &r) < 0) {
		put_back(t);
		return false;
	}
	t->eintr_again = true;
	mrr_debug("pid %d: rt_sigtimedwait woken by mrr, made again (%lld ns "
		  "left)",
		  t->t.tid, (long long)left);
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
}
