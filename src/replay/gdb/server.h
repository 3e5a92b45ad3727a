/* mrr replay as a gdb target (gdb remote protocol, issue 13). */
#ifndef MRR_REPLAY_GDB_SERVER_H
#define MRR_REPLAY_GDB_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct replay_opts;

struct gdb_opts {
	int port;	     /* -s PORT: serve on 127.0.0.1:PORT; 0 with -g */
	bool run_gdb;	     /* -g: start gdb from PATH on the replay */
	uint64_t goto_event; /* -e EVENT: start stopped before it (0: at the
				program's first instruction) */
	pid_t pid;	     /* -p PID: debug this recorded process (0: the
				first one) */
	const char *onexec;  /* --onexec NAME: the first process that execs
				a program of this name */
};

/* Serves one gdb session on the replay of o. Returns mrr's exit status:
 * the replay's status when gdb ran it to its end or detached (then the
 * replay finishes on its own and is verified), 0 when gdb killed it or
 * went away, 71 when the port is in use. */
int gdb_serve(const struct replay_opts *o, const struct gdb_opts *g);

#endif
