/* The recorder: runs a program under ptrace and writes its trace. */
#ifndef MRR_RECORD_RECORDER_H
#define MRR_RECORD_RECORDER_H

#include <stdbool.h>

struct mrr_trace_writer;

struct record_opts {
	/* from mrr_trace_writer_open(); mrr_record starts it, and frees it
	 * on every path */
	struct mrr_trace_writer *writer;
	const char *trace_dir; /* its path, for messages */
	const char *exe;       /* resolved program path */
	char **argv;	       /* argv[0] as the user gave it */
	bool sync;	       /* fsync the trace before committing */
	bool syscallbuf;       /* inject the syscall buffer */
	bool backtrace;	       /* store stacks at memory syscalls */
	bool no_cache;	       /* do not use the user's file cache */
	const char *preload;   /* path of the preload library, or NULL */
};

/* Records until every recorded process has exited. Returns the exit code for
 * `mrr record`: the program's status (128+N when killed by signal N), or one
 * of MRR_EXIT_* when recording itself failed (after one sentence on stderr).
 */
int mrr_record(const struct record_opts *opts);

#endif
