/* Calls that mrr itself would cut short with EINTR (eintr.h). */
#include "record/eintr.h"

#include "core/log.h"
#include "core/proc.h"
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

/* How a call's timeout is given: a struct timespec at an argument (NULL:
 * none), or milliseconds in an int argument (negative: none). */
enum timeout_kind { TIMEOUT_TS, TIMEOUT_MS };

static bool eintr_call(long nr, int *arg, enum timeout_kind *kind)
{
	switch (nr) {
	case SYS_rt_sigtimedwait:
		*arg = 2;
		*kind = TIMEOUT_TS;
		return true;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		*arg = 3;
		*kind = TIMEOUT_MS;
		return true;
	case SYS_epoll_pwait2:
		*arg = 3;
		*kind = TIMEOUT_TS;
		return true;
	}
	return false;
}

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
	unsigned long long pnd, blk, ign, cgt, dfl_ign, left;
	struct proc_sigmasks m;

	if (proc_sigmasks(tid, &m) < 0)
		return false;
	pnd = m.pending;
	blk = m.blocked;
	ign = m.ignored;
	cgt = m.caught;
	dfl_ign = (1ull << (SIGCHLD - 1)) | (1ull << (SIGURG - 1)) |
		  (1ull << (SIGWINCH - 1)) | (1ull << (SIGCONT - 1));
	left = pnd & ~blk & ~ign & ~(dfl_ign & ~cgt);
	return left == 0;
}

static void set_arg(struct user_regs_struct *r, int arg, uint64_t v)
{
	if (arg == 3)
		r->r10 = v;
}

void rec_eintr_entry(struct rtask *t)
{
	enum timeout_kind kind;
	struct timespec ts;
	uint64_t a;
	int arg;

	if (!eintr_call(t->nr, &arg, &kind))
		return;
	if (t->eintr_again) {
		/* recorded as the program made it */
		if (kind == TIMEOUT_MS) {
			t->args[arg] = t->eintr_saved_arg;
			set_arg(&t->entry_regs, arg, t->eintr_saved_arg);
		}
		return;
	}
	a = t->args[arg];
	t->eintr_saved_arg = a;
	t->eintr_start_ns = mono_ns();
	t->eintr_timeout_ns = -1; /* none: wait for ever */
	if (kind == TIMEOUT_MS) {
		if ((int)a >= 0)
			t->eintr_timeout_ns = (int64_t)(int)a * 1000000;
	} else if (a && tracee_read_all(&t->t, a, &ts, sizeof(ts)) == 0 &&
		   ts.tv_sec >= 0 && ts.tv_nsec >= 0 &&
		   ts.tv_nsec < 1000000000) {
		t->eintr_timeout_ns =
			(int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	} else if (a) {
		t->eintr_timeout_ns = 0; /* the kernel fails it: no wait */
	}
}

/* Puts back the program's timeout that a call made again had in its
 * place: its timespec, or its argument register (in *r, set by the
 * caller). */
static void put_back(struct rtask *t, struct user_regs_struct *r, int arg,
		     enum timeout_kind kind)
{
	if (t->eintr_shortened && kind == TIMEOUT_TS &&
	    tracee_write_all(&t->t, t->args[arg], &t->eintr_saved_ts,
			     sizeof(t->eintr_saved_ts)) < 0)
		mrr_debug("pid %d: cannot put the timeout of %ld back",
			  t->t.tid, t->nr);
	if (t->eintr_shortened && kind == TIMEOUT_MS)
		set_arg(r, arg, t->eintr_saved_arg);
	t->eintr_shortened = false;
	t->eintr_again = false;
}

bool rec_eintr_again(struct recorder *rec, struct rtask *t)
{
	struct user_regs_struct r;
	struct timespec left_ts;
	enum timeout_kind kind;
	bool timed_out = false;
	int64_t left = 0;
	int arg;

	(void)rec;
	if (!eintr_call(t->nr, &arg, &kind) || tracee_get_regs(&t->t, &r) < 0)
		return false;
	if ((int64_t)r.rax != -EINTR || t->deferred || t->injecting ||
	    t->nqueued || t->eintr_timeout_ns == 0 ||
	    !only_ignored_pending(t->t.tid))
		goto record;
	if (t->eintr_timeout_ns > 0) {
		left = t->eintr_start_ns + t->eintr_timeout_ns - mono_ns();
		if (left <= 0) { /* natively it timed out by now */
			timed_out = true;
			r.rax = kind == TIMEOUT_MS ||
						t->nr != SYS_rt_sigtimedwait
					? 0
					: (uint64_t)-EAGAIN;
			goto record;
		}
		if (kind == TIMEOUT_MS) {
			set_arg(&r, arg, (uint64_t)((left + 999999) / 1000000));
		} else {
			if (!t->eintr_shortened &&
			    tracee_read_all(&t->t, t->args[arg],
					    &t->eintr_saved_ts,
					    sizeof(t->eintr_saved_ts)) < 0)
				goto record;
			left_ts.tv_sec = left / 1000000000;
			left_ts.tv_nsec = left % 1000000000;
			if (tracee_write_all(&t->t, t->args[arg], &left_ts,
					     sizeof(left_ts)) < 0)
				goto record;
		}
		t->eintr_shortened = true;
	}
	r.rip -= 2;
	r.rax = r.orig_rax;
	if (tracee_set_regs(&t->t, &r) < 0)
		goto record;
	t->eintr_again = true;
	mrr_debug("pid %d: %ld woken by mrr, made again (%lld ns left)",
		  t->t.tid, t->nr, (long long)left);
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
record:
	if (!t->eintr_again && !timed_out)
		return false; /* nothing of mrr's to undo */
	put_back(t, &r, arg, kind);
	if (tracee_set_regs(&t->t, &r) < 0)
		mrr_debug("pid %d: cannot set the registers of %ld's exit",
			  t->t.tid, t->nr);
	return false;
}
