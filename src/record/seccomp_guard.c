/* The recorder's guards on what a program does to seccomp and to mrr's
 * page at a syscall's seccomp stop: the filters it installs are rewritten
 * so that they never see mrr's own calls (src/core/seccomp_filter.h), and
 * what mrr cannot record is refused. */
#define _GNU_SOURCE
#include "core/exitcodes.h"
#include "core/seccomp_filter.h"
#include "record/rtask.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/syscall.h>

static unsigned long long events(struct recorder *rec)
{
	return (unsigned long long)mrr_trace_writer_events(rec->w);
}

bool rec_seccomp_entry(struct recorder *rec, struct rtask *t)
{
	const uint64_t *a = t->args;
	uint64_t ip = t->entry_regs.rip;
	int err;

	/* Only mrr's injections run from the page's traced instruction, and
	 * the untraced one never stops mrr unless the program's own filter
	 * asks for a tracer: either way the program jumped into mrr's page. */
	if (ip == MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL + 2 ||
	    ip == MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL + 2) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d made syscall %ld from mrr's page at 0x%llx at "
			 "event %llu; the recording stops here",
			 t->t.tid, t->nr, (unsigned long long)ip, events(rec));
		return false;
	}
	if ((t->nr == SYS_seccomp && a[0] == SECCOMP_SET_MODE_STRICT) ||
	    (t->nr == SYS_prctl && a[0] == PR_SET_SECCOMP &&
	     a[1] == SECCOMP_MODE_STRICT)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d asked for seccomp strict mode at event %llu, "
			 "which cannot be combined with mrr's seccomp filter",
			 t->t.tid, events(rec));
		return false;
	}
	if (!mrr_seccomp_installs_filter(t->nr, a))
		return true;
	if (t->nr == SYS_seccomp && (a[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d installed a seccomp filter with a user-space "
			 "supervisor (SECCOMP_FILTER_FLAG_NEW_LISTENER) at "
			 "event %llu; mrr cannot replay a supervisor's answers",
			 t->t.tid, events(rec));
		return false;
	}
	err = mrr_seccomp_rewrite(&t->t, &t->entry_regs);
	if (err == -E2BIG) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d installed a seccomp filter of more than %d "
			 "instructions at event %llu; mrr can only take in "
			 "shorter ones",
			 t->t.tid, (int)MRR_SECCOMP_MAX_REWRITE, events(rec));
		return false;
	}
	if (err < 0) {
		rec_stop(rec, MRR_EXIT_OSERR,
			 "cannot rewrite the seccomp filter pid %d installs at "
			 "event %llu: %s",
			 t->t.tid, events(rec), strerror(-err));
		return false;
	}
	t->filter_rewritten = err == 1;
	return true;
}

void rec_seccomp_exit(struct rtask *t, struct user_regs_struct *regs)
{
	if (!t->filter_rewritten)
		return;
	t->filter_rewritten = false;
	regs->rdx = t->args[2];
	if (tracee_set_regs(&t->t, regs) < 0)
		return;
}
