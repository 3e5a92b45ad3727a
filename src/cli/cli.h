/* The verbs of the mrr command line. Each returns the process exit code. */
#ifndef MRR_CLI_CLI_H
#define MRR_CLI_CLI_H

#include <stddef.h>

int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_ls(int argc, char **argv);

/* The directory traces go to by default ($MRR_TRACE_DIR, else
 * ${XDG_DATA_HOME:-$HOME/.local/share}/mrr, with the passwd entry's home
 * when HOME is unset). Returns 0, -ENAMETOOLONG, or -ENOENT when there is
 * no home directory. Prints nothing: trace_root_error() says why. */
int default_trace_root(char *buf, size_t buflen);

/* Prints the one-sentence error for a failed default_trace_root(). */
void trace_root_error(int err);

/* The link in the default directory to the newest trace. */
#define LATEST_TRACE "latest-trace"

/* Opens the default trace directory root (O_PATH) into *fd_out after
 * checking that no other user can change what is in it: it must be owned
 * by the caller or root and writable by no one else, unless it is sticky
 * (like /tmp); in every case a latest-trace in it must be the caller's.
 * for_record names the action in the message. Returns 0, or a negative
 * errno with one sentence printed. */
int open_trace_root(const char *root, int for_record, int *fd_out);

/* Resolves the TRACE argument of replay/dump: NULL means the latest trace
 * in the default directory. Returns 0, or a negative errno with a message
 * printed. */
int resolve_trace_arg(const char *arg, char *buf, size_t buflen);

/* Path of the preload library next to this mrr binary, or NULL. */
const char *preload_library_path(void);

/* Prints "mrr: unknown option X for VERB; see mrr VERB --help" and returns
 * the usage exit code. */
int usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
