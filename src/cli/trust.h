/* Whose trace is it, and does it hang together: the checks replay, dump and
 * ls make before they use a trace. Private to src/cli. */
#ifndef MRR_CLI_TRUST_H
#define MRR_CLI_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Finds who owns the trace at path: the link itself when path is a symbolic
 * link (latest-trace), the directory it leads to, and that directory's
 * header and events files. Returns 0 when all are the caller's (effective
 * uid), 1 when one is not, with its uid in *owner and a one-line description
 * ("trace T belongs to user NAME (uid N)") in desc, or -errno when path
 * cannot be examined (the reader then says why). */
int trace_owner_check(const char *path, uid_t *owner, char *desc,
		      size_t desclen);

/* The checks before a replay runs anything of the trace at path: refuses
 * (message printed, returns the exit code) a trace of another user unless
 * allow_foreign; then refuses (65) a trace whose first event does not exec
 * the program its header names. Returns 0 when the replay may go on. */
int replay_preflight(const char *path, bool allow_foreign, bool force);

#endif
