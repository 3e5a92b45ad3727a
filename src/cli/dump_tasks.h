/* mrr dump -s: per-task counts, and which process each task belongs to. */
#ifndef MRR_CLI_DUMP_TASKS_H
#define MRR_CLI_DUMP_TASKS_H

#include "dump/dump.h"
#include "mrr/trace.h"

#include <stdbool.h>
#include <stddef.h>

struct dump_tasks;

/* Empty counts, or NULL (out of memory). dump_tasks_free accepts NULL. */
struct dump_tasks *dump_tasks_new(void);
void dump_tasks_free(struct dump_tasks *s);

/* Counts ev (one of the events the user selected) for its task: events,
 * syscalls (traced events and the records of buffer flushes), sched
 * events (times it let another thread run) and preempt events. */
void dump_tasks_add(struct dump_tasks *s, const struct mrr_event *ev);

/* Tasks counted so far (0 for NULL). */
size_t dump_tasks_count(const struct dump_tasks *s);

/* Prints a table (text: "tasks: N in P processes", then one row per task:
 * tid, pid, events, syscalls, switches, preemptions) or the elements of
 * the JSON "tasks" array. d, fed every event of the trace, gives each
 * task's process (mrr_dump_task_pid) and the names --stable prints. */
void dump_tasks_print(const struct dump_tasks *s, struct mrr_dump *d,
		      bool json);

#endif
