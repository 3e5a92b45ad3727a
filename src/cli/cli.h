/* The verbs of the mrr command line. Each returns the process exit code. */
#ifndef MRR_CLI_CLI_H
#define MRR_CLI_CLI_H

#include <stddef.h>

int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_ls(int argc, char **argv);

/* The directory traces go to by default ($MRR_TRACE_DIR, else
 * ${XDG_DATA_HOME:-$HOME/.local/share}/mrr). Returns 0 or -ENAMETOOLONG. */
int default_trace_root(char *buf, size_t buflen);

/* Resolves the TRACE argument of replay/dump: NULL means the latest trace
 * in the default directory. Returns 0, or -ENOENT with a message printed. */
int resolve_trace_arg(const char *arg, char *buf, size_t buflen);

/* Path of the preload library next to this mrr binary, or NULL. */
const char *preload_library_path(void);

/* Prints "mrr: unknown option X for VERB; see mrr VERB --help" and returns
 * the usage exit code. */
int usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
