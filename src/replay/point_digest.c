/* Checking memory digests of preemption points at replay
 * (point_digest.h). */
#include "replay/point_digest.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "core/memdigest.h"
#include "replay/ptask.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TASKS 1024

static struct {
	unsigned long checked, differed;
	uint64_t pages, bytes, ns;
} stats;

int replay_point_digest(struct replayer *rp, struct ptask *t)
{
	static struct mem_digest_task tasks[MAX_TASKS];
	const struct mrr_event *ev = &rp->ev;
	struct mem_digest d;
	int n = 0, err;

	if (!ev->result)
		return 0;
	memset(tasks, 0, sizeof(tasks));
	tasks[n++].tid = t->t.tid;
	for (struct ptask *o = rp->tasks; o && n < MAX_TASKS; o = o->next) {
		if (o == t || o->dead ||
		    (o->tgid != t->tgid &&
		     !mem_digest_same_vm(t->t.tid, o->t.tid)))
			continue;
		tasks[n++].tid = o->t.tid;
	}
	err = mem_digest(tasks, n, &d);
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
		return 0;
	stats.differed++;
	diverge(rp, t,
		"at the preemption point at 0x%" PRIx64
		", found by its registers and stack, the process's memory "
		"differs from the recording's (%" PRIu64
		" pages hashed): the thread's loop changes memory but no "
		"register, and the replay stopped it at another turn than the "
		"recording did",
		ev->ip, d.pages);
	return -1;
}

void replay_point_digest_print_stats(void)
{
	const char *v = getenv("MRR_PREEMPT_STATS");

	if (!v || strcmp(v, "1") || !stats.checked)
		return;
	fprintf(stderr,
		"mrr: replay memory digests: %lu checked (%llu pages hashed, "
		"%llu bytes read, %.1f ms), %lu differed\n",
		stats.checked, (unsigned long long)stats.pages,
		(unsigned long long)stats.bytes, (double)stats.ns / 1e6,
		stats.differed);
}
