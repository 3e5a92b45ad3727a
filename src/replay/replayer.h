/* The replayer: re-runs a recorded program, feeding it the trace's inputs
 * and checking it does what it did at record. */
#ifndef MRR_REPLAY_REPLAYER_H
#define MRR_REPLAY_REPLAYER_H

#include <stdbool.h>

struct replay_opts {
	const char *trace_dir;
	bool quiet; /* do not echo the program's stdout/stderr */
	bool force; /* replay the valid prefix of an incomplete trace */
	const char *divergence_json; /* write the report here too, or NULL */
	/* seconds a waited-for task may stay blocked before the replay is
	 * reported stuck (watchdog.h); 0: MRR_STALL_TIMEOUT_DEFAULT, -1: never
	 */
	int stall_timeout_s;
};

#define MRR_STALL_TIMEOUT_DEFAULT 10

/* Returns 0 when the whole recording was reproduced, else an MRR_EXIT_*
 * code after a message or divergence report on stderr. */
int mrr_replay(const struct replay_opts *opts);

#endif
