/* What a replayed clone3 must not ask of the kernel. clone3's struct
 * clone_args can name things that belong to the recording's machine and
 * moment: a cgroup by an fd (CLONE_INTO_CGROUP), and the child's pid
 * itself (set_tid). At replay the fd is not open (the open that made it was
 * emulated) and the pid may be taken, so the fork would fail where it
 * succeeded at record. Neither changes what the program sees: the child's
 * pid is the recorded one by mrr's pid mapping, and its cgroup is read
 * only through files whose contents the trace holds. So the replay takes
 * both out of the arguments while the kernel reads them, and puts them
 * back for the program. */
#ifndef MRR_REPLAY_CLONE_ARGS_H
#define MRR_REPLAY_CLONE_ARGS_H

#include "core/tracee.h"

#include <stdbool.h>
#include <stdint.h>

/* The fields taken out, to put back. */
struct clone_args_saved {
	uint64_t addr;	     /* the program's struct clone_args */
	uint64_t flags;	     /* its flags before, when changed */
	uint64_t set_tid[2]; /* its set_tid and set_tid_size before */
	bool flags_changed;
	bool set_tid_changed;
};

/* At the entry stop of a replayed clone3 whose struct clone_args (size
 * bytes, the call's second argument) is at addr: clears CLONE_INTO_CGROUP,
 * set_tid and set_tid_size in the tracee's copy, where the size covers them,
 * and fills *s. Returns 0 (also when nothing needed a change) or -errno. */
int clone_args_strip(struct tracee *t, uint64_t addr, uint64_t size,
		     struct clone_args_saved *s)
	__attribute__((warn_unused_result));

/* After the kernel read the arguments (the fork event stop): writes back
 * what clone_args_strip took out. Returns 0 or -errno. */
int clone_args_restore(struct tracee *t, const struct clone_args_saved *s)
	__attribute__((warn_unused_result));

#endif
