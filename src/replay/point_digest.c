/* Checking memory digests of preemption points at replay
 * (point_digest.h). */
#include "replay/point_digest.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "core/memdigest.h"
#include "replay/ptask.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#define MAX_TASKS 1024

static struct {
	unsigned long checked, differed;
	uint64_t pages, bytes, ns;
} stats;

/* The alternate signal stacks set (replay_point_digest_note_syscall), as
 * the recorder notes them. */
static struct mem_digest_altstacks altstacks;

void replay_point_digest_note_syscall(struct ptask *t,
				      const struct mrr_event *ev)
{
	stack_t ss;

	if (ev->nr != SYS_sigaltstack || !ev->args[0] || ev->result != 0)
		return;
	if (tracee_read_all(&t->t, ev->args[0], &ss, sizeof(ss)) < 0) {
		altstacks.overflow = true;
		return;
	}
	if (!(ss.ss_flags & SS_DISABLE))
		mem_digest_note_altstack(&altstacks, (uint64_t)ss.ss_sp,
					 ss.ss_size);
}

int replay_point_digest(struct replayer *rp, struct ptask *t)
{
	static struct mem_digest_task tasks[MAX_TASKS];
	const struct mrr_event *ev = &rp->ev;
	unsigned flags =
		(rp->info->flags & MRR_INFO_DIGEST_SHARED
			 ? MEM_DIGEST_SHARED_ANON
			 : 0) |
		(rp->info->format_version >= 4 ? MEM_DIGEST_LIB_WHOLE_STACK
					       : 0) |
		(rp->info->flags & MRR_INFO_DIGEST_SP_EXACT
			 ? MEM_DIGEST_SP_EXACT
			 : 0);
	struct mem_digest d;
	int n = 0, err;

	if (!ev->result)
		return 1;
	memset(tasks, 0, sizeof(tasks));
	tasks[n++].tid = t->t.tid;
	for (struct ptask *o = rp->tasks; o && n < MAX_TASKS; o = o->next) {
		if (o == t || o->dead ||
		    (o->tgid != t->tgid &&
		     !mem_digest_same_vm(t->t.tid, o->t.tid)))
			continue;
		tasks[n++].tid = o->t.tid;
	}
	if (altstacks.overflow) {
		/* the recording noted a stack that the replay cannot see */
		diverge(rp, t,
			"at the preemption point at 0x%" PRIx64 ", the memory "
			"cannot be checked: an alternate signal stack of the "
			"program cannot be read",
			ev->ip);
		return -1;
	}
	err = mem_digest(tasks, n, flags, &altstacks, &d);
	stats.ns += d.ns;
	stats.checked++;
	stats.pages += d.pages;
	stats.bytes += d.bytes_read;
	if (err) {
		diverge(rp, t,
			"cannot hash the process's memory at the preemption "
			"point at 0x%" PRIx64 " to check it: %s",
			ev->ip, strerror(-err));
		return -1;
	}
	if (d.hash == (uint64_t)ev->result)
		return 1;
	stats.differed++;
	return 0;
}

void replay_point_digest_print_stats(void)
{
	const char *v = getenv("MRR_PREEMPT_STATS");

	if (!v || strcmp(v, "1") || !stats.checked)
		return;
	fprintf(stderr,
		"mrr: replay memory digests: %lu checked (%llu pages hashed, "
		"%llu bytes read, %.1f ms), %lu differed (the search went "
		"on)\n",
		stats.checked, (unsigned long long)stats.pages,
		(unsigned long long)stats.bytes, (double)stats.ns / 1e6,
		stats.differed);
}
