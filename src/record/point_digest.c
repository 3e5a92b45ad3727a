/* Memory digests of searched preemption points at record
 * (point_digest.h). */
#include "record/point_digest.h"

#include "core/log.h"
#include "core/memdigest.h"
#include "record/rtask.h"
#include "syscalls/table.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#define MAX_TASKS 1024

static struct {
	unsigned long taken, skipped, failed, altstack;
	uint64_t pages, bytes, ns;
} stats;

/* Whether the call may write the process's memory, given its arguments
 * (upper bounds: the result is not known while it runs). */
static bool call_writes(long nr, const uint64_t args[6])
{
	const struct mrr_syscall_desc *d = mrr_syscall_lookup(nr);

	if (nr == SYS_futex || nr == SYS_sched_yield)
		return false;
	if (!d || (d->cls != MRR_SC_EMULATE && d->cls != MRR_SC_EXECUTE))
		return true;
	for (int i = 0; i < MRR_SC_MAX_OUT; i++)
		if (d->out[i].kind != MRR_OUT_NONE &&
		    mrr_out_rule_len(&d->out[i], args, INT64_MAX, UINT32_MAX,
				     UINT32_MAX))
			return true;
	return false;
}

/* The alternate signal stacks set (rec_point_digest_note_syscall). */
static struct mem_digest_altstacks altstacks;

void rec_point_digest_note_syscall(struct rtask *t, long nr, uint64_t arg0,
				   int64_t result)
{
	stack_t ss;

	if (nr != SYS_sigaltstack || !arg0 || result != 0)
		return;
	if (tracee_read_all(&t->t, arg0, &ss, sizeof(ss)) < 0) {
		altstacks.overflow = true; /* where it is is not known */
		return;
	}
	if (!(ss.ss_flags & SS_DISABLE))
		mem_digest_note_altstack(&altstacks, (uint64_t)ss.ss_sp,
					 ss.ss_size);
}

uint64_t rec_point_digest(struct recorder *rec, struct rtask *t)
{
	static struct mem_digest_task tasks[MAX_TASKS];
	const char *off = getenv("MRR_NO_MEM_DIGEST");
	struct mem_digest d;
	int n = 0, err;

	if (off && strcmp(off, "1") == 0)
		return 0;
	if (altstacks.overflow) {
		stats.altstack++;
		return 0;
	}
	memset(tasks, 0, sizeof(tasks));
	tasks[n++].tid = t->t.tid;
	for (struct rtask *o = rec->tasks; o; o = o->next) {
		if (o == t || o->exit_written ||
		    (o->tgid != t->tgid &&
		     !mem_digest_same_vm(t->t.tid, o->t.tid)))
			continue;
		if (o->exiting ||
		    (o->in_syscall && call_writes(o->nr, o->args))) {
			stats.skipped++;
			mrr_debug(
				"pid %d: no memory digest at the point: thread "
				"%d is in syscall %ld",
				t->t.tid, o->t.tid, o->nr);
			return 0;
		}
		if (n == MAX_TASKS) {
			stats.skipped++;
			return 0;
		}
		/* its stack pointer read where it stands (registers, or
		 * /proc/TID/syscall when blocked), as the replay reads it:
		 * entry_regs may be an earlier call's (a task parked at the
		 * entry of a call made lower in its stack) */
		tasks[n].tid = o->t.tid;
		n++;
	}
	err = mem_digest(tasks, n,
			 MEM_DIGEST_SHARED_ANON | MEM_DIGEST_LIB_WHOLE_STACK |
				 MEM_DIGEST_SP_EXACT,
			 &altstacks, &d);
	stats.ns += d.ns;
	if (err) {
		stats.failed++;
		mrr_debug("pid %d: no memory digest: %s", t->t.tid,
			  strerror(-err));
		return 0;
	}
	stats.taken++;
	stats.pages += d.pages;
	stats.bytes += d.bytes_read;
	return d.hash;
}

void rec_point_digest_print_stats(void)
{
	const char *v = getenv("MRR_PREEMPT_STATS");

	if (!v || strcmp(v, "1") ||
	    !(stats.taken || stats.skipped || stats.failed || stats.altstack))
		return;
	fprintf(stderr,
		"mrr: record memory digests: %lu taken (%llu pages hashed, "
		"%llu bytes read, %.1f ms), %lu skipped (another thread in a "
		"call that writes memory), %lu left out (an alternate signal "
		"stack not known), %lu failed\n",
		stats.taken, (unsigned long long)stats.pages,
		(unsigned long long)stats.bytes, (double)stats.ns / 1e6,
		stats.skipped, stats.altstack, stats.failed);
}
