/* Syscall user dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH), emulated by
 * the recorder. Natively the kernel checks each syscall of a task that
 * turned it on, before seccomp: a call from outside the allowed region
 * (inside it, in the inclusive mode), with the program's selector byte at
 * BLOCK or without a selector, does not run; the task gets SIGSYS
 * (si_code SYS_USER_DISPATCH) with rax holding the syscall number. Left to
 * the kernel, that check would also catch mrr's own calls and those of
 * the syscall buffer, and the replay, which does not turn it on, would not
 * see the signals. So mrr keeps the setting per task (not inherited by
 * fork or clone, cleared by exec, as the kernel does), answers the prctl
 * itself, turns the task's syscall buffer off, and at each traced syscall
 * makes the kernel's check: a dispatched call is recorded as a skipped call
 * whose result is its number, followed by the SIGSYS, delivered at its
 * exit with the kernel's siginfo. The replay needs nothing new: it emulates
 * the skipped call and delivers the recorded signal there.
 *
 * A call that the preload library makes on behalf of a libc function the
 * program called comes from the library's code, where natively it would
 * come from libc's: such a call counts as made from libc's text (allowed
 * when the whole of libc's code is). */
#define _GNU_SOURCE
#include "core/exitcodes.h"
#include "core/proc.h"
#include "record/rtask.h"

#include <errno.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#define SUD_OFF		  0
#define SUD_EXCLUSIVE_ON  1
#define SUD_INCLUSIVE_ON  2
#define SUD_FILTER_ALLOW  0
#define SUD_FILTER_BLOCK  1
#define SUD_SYS_USER_DISP 2		    /* si_code */
#define SUD_TASK_SIZE	  0x7ffffffff000ULL /* x86-64's TASK_SIZE_MAX */

static unsigned long long events(struct recorder *rec)
{
	return (unsigned long long)mrr_trace_writer_events(rec->w);
}

/* The code ranges of libc and of mrr's preload library in t's process. */
static void find_libs(struct rtask *t)
{
	struct proc_vma *v;
	long n = proc_read_vmas(t->t.tid, false, &v), i;
	struct rec_sud *s = &t->sud;

	s->libc_lo = s->libc_hi = s->preload_lo = s->preload_hi = 0;
	for (i = 0; i < n; i++) {
		const char *base = strrchr(v[i].name, '/');

		if (!(v[i].prot & PROT_EXEC) || !base)
			continue;
		if (!strncmp(base, "/libc.so", 8) ||
		    !strncmp(base, "/libc-", 6)) {
			if (!s->libc_lo || v[i].start < s->libc_lo)
				s->libc_lo = v[i].start;
			if (v[i].end > s->libc_hi)
				s->libc_hi = v[i].end;
		} else if (!strcmp(base, "/libmrr_preload.so")) {
			if (!s->preload_lo || v[i].start < s->preload_lo)
				s->preload_lo = v[i].start;
			if (v[i].end > s->preload_hi)
				s->preload_hi = v[i].end;
		}
	}
	if (n > 0)
		free(v);
}

bool rec_sud_prctl(struct recorder *rec, struct rtask *t)
{
	uint64_t mode = t->args[1], off = t->args[2], len = t->args[3];
	uint64_t sel = t->args[4];
	struct capture c = {0};
	int64_t result = 0;

	(void)rec;
	if (t->nr != SYS_prctl || t->args[0] != PR_SET_SYSCALL_USER_DISPATCH)
		return false;
	switch (mode) {
	case SUD_OFF:
		if (off || len || sel)
			result = -EINVAL;
		break;
	case SUD_EXCLUSIVE_ON:
		if (off && off + len <= off)
			result = -EINVAL;
		break;
	case SUD_INCLUSIVE_ON:
		if (len == 0 || off + len <= off)
			result = -EINVAL;
		/* the complement: allowed from off + len on, round to off */
		off = off + len;
		len = -len;
		break;
	default:
		result = -EINVAL;
	}
	if (!result && mode != SUD_OFF && sel && sel >= SUD_TASK_SIZE)
		result = -EFAULT;
	if (!result) {
		t->sud.on = mode != SUD_OFF;
		t->sud.off = off;
		t->sud.len = len;
		t->sud.sel = sel;
		if (t->sud.on)
			find_libs(t);
	}
	rec_skip_syscall(rec, t, result, &c);
	return true;
}

/* Whether the kernel lets a call from ip run (the allowed region). */
static bool allowed_at(const struct rec_sud *s, uint64_t ip)
{
	if (s->preload_lo && ip >= s->preload_lo && ip < s->preload_hi &&
	    s->libc_lo)
		return s->libc_lo - s->off < s->len &&
		       (s->libc_hi - 1) - s->off < s->len;
	return ip - s->off < s->len;
}

bool rec_sud_entry(struct recorder *rec, struct rtask *t)
{
	struct rec_sud *s = &t->sud;
	uint64_t ip = t->entry_regs.rip;
	struct capture c = {0};
	siginfo_t si;
	uint8_t state;

	if (!s->on || allowed_at(s, ip))
		return false;
	if (s->sel) {
		if (tracee_read_all(&t->t, s->sel, &state, 1) < 0) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d made a syscall at event %llu with a "
				 "syscall user dispatch selector at 0x%llx it "
				 "cannot read, for which the kernel kills it; "
				 "mrr does not reproduce that",
				 t->t.tid, events(rec),
				 (unsigned long long)s->sel);
			return true;
		}
		if (state == SUD_FILTER_ALLOW)
			return false;
		if (state != SUD_FILTER_BLOCK) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d made a syscall at event %llu with its "
				 "syscall user dispatch selector at %u, for "
				 "which the kernel kills it; mrr does not "
				 "reproduce that",
				 t->t.tid, events(rec), state);
			return true;
		}
	}
	if (t->injecting || rec_sig_blocked_or_ignored(t->t.tid, SIGSYS)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d made a syscall that syscall user dispatch "
			 "turns into SIGSYS at event %llu while %s; mrr does "
			 "not reproduce that",
			 t->t.tid, events(rec),
			 t->injecting ? "another signal is being delivered"
				      : "SIGSYS is blocked or ignored");
		return true;
	}
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSYS;
	si.si_code = SUD_SYS_USER_DISP;
	si.si_errno = 0;
	si.si_call_addr = (void *)ip;
	si.si_syscall = (int)t->nr;
	si.si_arch = AUDIT_ARCH_X86_64;
	/* queued now, delivered as the skipped call returns, where the
	 * signal stop (signals.c) gives it this siginfo */
	t->injecting = true;
	t->injecting_info = si;
	syscall(SYS_tgkill, t->t.tid, t->t.tid, SIGSYS);
	rec_skip_syscall(rec, t, t->nr, &c);
	return true;
}

bool rec_sud_signal(const siginfo_t *si)
{
	return si->si_signo == SIGSYS && si->si_code == SUD_SYS_USER_DISP;
}
