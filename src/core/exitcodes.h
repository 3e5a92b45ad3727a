/* mrr's documented exit codes (README.md, `mrr --help`). */
#ifndef MRR_CORE_EXITCODES_H
#define MRR_CORE_EXITCODES_H

#define MRR_EXIT_OK	     0
#define MRR_EXIT_USAGE	     64 /* bad command line */
#define MRR_EXIT_DATAERR     65 /* trace unreadable, incomplete or corrupt */
#define MRR_EXIT_NOINPUT     66 /* program or trace not found / not runnable */
#define MRR_EXIT_SOFTWARE    70 /* replay diverged from the recording */
#define MRR_EXIT_OSERR	     71 /* the system refused (ptrace, fork, ...) */
#define MRR_EXIT_CANTCREAT   73 /* cannot write the trace (disk full, perms) */
#define MRR_EXIT_IOERR	     74 /* replay cannot echo the program's output */
#define MRR_EXIT_UNSUPPORTED 69 /* recording stopped: unsupported feature */
#define MRR_EXIT_NOPERM	     77 /* replay refused: another user's trace */

#endif
