/* The replay's temporary directory (private copies of files mapped shared)
 * and its removal on every way out: a normal end, exit(), and the signals
 * that end a process and can be caught. Private to src/replay. */
#ifndef MRR_REPLAY_CLEANUP_H
#define MRR_REPLAY_CLEANUP_H

#include <stddef.h>
#include <sys/types.h>

/* Prefix of every replay directory's name in $TMPDIR (else /tmp); the
 * creating process's pid and a random suffix follow: mrr-replay-PID-XXXXXX. */
#define REPLAY_TMPDIR_PREFIX "mrr-replay-"

/* Installs handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM,
 * SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM and SIGPROF that remove the
 * directory (if one was made), then let the signal end mrr as it would have
 * (the tracees die with it through PTRACE_O_EXITKILL). Also removes it at
 * exit(). Call once, before the first tracee is started. Children of mrr
 * that have not exec'd yet leave the directory alone. */
void replay_cleanup_install(void);

/* Removes the stale replay directories of the calling user in $TMPDIR (else
 * /tmp): those whose creating pid is no longer alive. Then creates a new one
 * with mode 0700 and writes its path into buf. Returns 0 or -errno. */
int replay_tmpdir_create(char *buf, size_t buflen);

/* Removes the directory made by replay_tmpdir_create, if any. */
void replay_tmpdir_remove(void);

/* For tests and the sweep: whether name (a directory entry of $TMPDIR) is a
 * replay directory made by a pid that is gone, owned by uid. Returns 1 and
 * the pid, or 0. */
int replay_tmpdir_is_stale(int dir_fd, const char *name, uid_t uid);

#endif
