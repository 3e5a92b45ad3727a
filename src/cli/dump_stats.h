/* mrr dump -s: counts of a trace's events by kind and syscall, buffered
 * calls, thread switches, stream sizes, and the stored files with the
 * paths they were executed or mapped from at record. */
#ifndef MRR_CLI_DUMP_STATS_H
#define MRR_CLI_DUMP_STATS_H

#include "cli/dump_tasks.h"
#include "mrr/trace.h"

#include <stdbool.h>

struct dump_stats;

/* Empty statistics, or NULL (out of memory). dump_stats_free accepts
 * NULL. */
struct dump_stats *dump_stats_new(void);
void dump_stats_free(struct dump_stats *s);

/* Counts ev (one of the events the user selected). */
void dump_stats_add(struct dump_stats *s, const struct mrr_event *ev);

/* Notes the stored files' paths that ev gives (every event of the trace,
 * selected or not: a file is named where it was mapped). Returns 0 or
 * -ENOMEM. */
int dump_stats_note_paths(struct dump_stats *s, const mrr_trace_reader *r,
			  const struct mrr_event *ev)
	__attribute__((warn_unused_result));

/* Prints the statistics, as text or as one JSON object, with the per-task
 * counts of tasks (dump_tasks.h; d gives their processes) when tasks is not
 * NULL: in JSON always, in text for more than one task. */
void dump_stats_print(const struct dump_stats *s, const mrr_trace_reader *r,
		      bool json, const struct dump_tasks *tasks,
		      struct mrr_dump *d);

#endif
