/* mrr dump -s: per-task counts (events, syscalls, thread switches,
 * preemption points) and which process each task belongs to. */
#include "cli/dump_tasks.h"

#include "core/sbuf_records.h"
#include "core/tid_index.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct task_stats {
	int32_t tid;
	uint64_t events, syscalls, switches, preemptions;
};

/* per task, in order of first appearance, and a tid -> index map */
struct dump_tasks {
	struct task_stats *tasks;
	size_t ntasks, tasks_cap;
	struct tid_index ix;
};

struct dump_tasks *dump_tasks_new(void)
{
	return calloc(1, sizeof(struct dump_tasks));
}

void dump_tasks_free(struct dump_tasks *s)
{
	if (!s)
		return;
	free(s->tasks);
	tid_index_free(&s->ix);
	free(s);
}

/* The counts of task tid, created at its first event; NULL without memory
 * (its events then go uncounted per task). */
static struct task_stats *task_of(struct dump_tasks *s, int32_t tid)
{
	struct task_stats *t;
	long i = tid_index_get(&s->ix, tid);

	if (i >= 0)
		return &s->tasks[i];
	/* tid 0 is never indexed: look for it the slow way */
	for (size_t k = 0; !tid && k < s->ntasks; k++)
		if (s->tasks[k].tid == tid)
			return &s->tasks[k];
	if (s->ntasks == s->tasks_cap) {
		size_t ncap = s->tasks_cap ? s->tasks_cap * 2 : 16;

		t = realloc(s->tasks, ncap * sizeof(*t));
		if (!t)
			return NULL;
		s->tasks = t;
		s->tasks_cap = ncap;
	}
	if (tid_index_put(&s->ix, tid, (uint32_t)s->ntasks))
		return NULL;
	t = &s->tasks[s->ntasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* Buffered calls in one flush. */
static uint64_t flush_calls(const struct mrr_event *ev)
{
	const struct mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	uint8_t *recs;
	size_t off = 0;
	char err[128];
	uint64_t n = 0;

	if (!ev->extra_len)
		return 0;
	recs = malloc(ev->extra_len); /* 8-aligned, as the walker wants */
	if (!recs)
		return 0;
	memcpy(recs, ev->extra, ev->extra_len);
	while (sbuf_next(recs, ev->extra_len, &off, &rec, &data, err,
			 sizeof(err)) > 0)
		n++;
	free(recs);
	return n;
}

void dump_tasks_add(struct dump_tasks *s, const struct mrr_event *ev)
{
	struct task_stats *t = task_of(s, ev->tid);

	if (!t)
		return;
	t->events++;
	if (ev->kind == MRR_EV_SYSCALL)
		t->syscalls++;
	if (ev->kind == MRR_EV_BUFFER)
		t->syscalls += flush_calls(ev);
	t->switches += ev->kind == MRR_EV_SCHED;
	t->preemptions += ev->kind == MRR_EV_PREEMPT;
}

size_t dump_tasks_count(const struct dump_tasks *s)
{
	return s ? s->ntasks : 0;
}

/* Per task: its process, events, syscalls (traced and buffered), the
 * times it let another thread run (sched events) and its preemption
 * points. Text prints it for traces of more than one task. */
void dump_tasks_print(const struct dump_tasks *s, struct mrr_dump *d, bool json)
{
	size_t i, nproc = 0;

	for (i = 0; i < s->ntasks; i++) {
		int32_t tid = s->tasks[i].tid;
		int32_t pid = mrr_dump_task_pid(d, tid, NULL);

		nproc += pid == tid || !pid;
	}
	if (!json)
		printf("tasks: %zu in %zu process%s (a thread's pid is its "
		       "process's)\n"
		       "  %-10s %-10s %10s %10s %10s %12s\n",
		       s->ntasks, nproc, nproc == 1 ? "" : "es", "tid", "pid",
		       "events", "syscalls", "switches", "preemptions");
	for (i = 0; i < s->ntasks; i++) {
		const struct task_stats *t = &s->tasks[i];
		bool thread;
		int32_t pid = mrr_dump_task_pid(d, t->tid, &thread);
		int32_t tid_name = mrr_dump_tid_name(d, t->tid);
		int32_t pid_name = pid ? mrr_dump_tid_name(d, pid) : 0;

		if (json) {
			printf("%s{\"tid\":%d,\"pid\":%d,\"thread\":%s,"
			       "\"events\":%" PRIu64 ",\"syscalls\":%" PRIu64
			       ",\"switches\":%" PRIu64
			       ",\"preemptions\":%" PRIu64 "}",
			       i ? "," : "", tid_name, pid_name,
			       thread ? "true" : "false", t->events,
			       t->syscalls, t->switches, t->preemptions);
			continue;
		}
		printf("  %-10d %-10d %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %12" PRIu64 "\n",
		       tid_name, pid_name, t->events, t->syscalls, t->switches,
		       t->preemptions);
	}
}
