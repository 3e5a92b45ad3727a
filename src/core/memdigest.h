/* A digest of the memory a process's user code can change, taken at a
 * searched preemption point (trace-format/FORMAT.md 7.9): a loop that
 * changes memory but no register or stack byte passes the same registers
 * and stacks at every turn, so only its memory tells the turns apart. The
 * recorder and the replayer compute it the same way, at the same point.
 *
 * What is hashed: the pages of the process's private writable mappings
 * that hold a byte other than zero, read now: anonymous pages, and pages of
 * private file mappings that the process wrote (copied on write; the
 * others read as the file, which the replay maps too). Each page is hashed
 * with its address; pages of zeroes are left out, so that a page present
 * at record and absent at replay (never touched, or dropped) hashes alike.
 * Left out, as they differ at replay: mrr's page, the syscall buffer
 * library's mappings, every syscall buffer (1 MiB from a page that starts
 * with the buffer's magic and ABI version), and each task's stack
 * below its stack pointer, rounded out to pages (where the library's
 * frames leave other bytes), the alternate signal stacks (below), and, for
 * a task that stands in the library
 * or in mrr's page, its stack up to 1 KiB above the highest word that
 * holds an address in the library (its frames), or with
 * MEM_DIGEST_LIB_WHOLE_STACK its whole stack mapping. Shared mappings are not
 * hashed, except, with MEM_DIGEST_SHARED_ANON, the shared anonymous ones
 * (MAP_SHARED | MAP_ANONYMOUS, which a fork's child shares with its parent:
 * the recorder runs the processes that share one a task at a time, so the
 * replay has the same bytes there at the point): their pages present in the
 * process's page tables, left out when all zero, as the private ones.
 * Programs keep counters there that tell the turns of a loop apart when
 * nothing else does (stress-ng's bogo-op counters).
 */
#ifndef MRR_CORE_MEMDIGEST_H
#define MRR_CORE_MEMDIGEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One task of the address space. When sp is 0, its stack and instruction
 * pointers are read from its registers (a ptrace-stop) or from
 * /proc/TID/syscall (a task blocked in a call); when neither can be read,
 * its stack is hashed whole (a task that never ran has only zeroes
 * there). */
struct mem_digest_task {
	pid_t tid;
	uint64_t sp, pc; /* where it stands in user code, if known */
};

struct mem_digest {
	uint64_t hash;	     /* never 0 (0 means "none" in a trace) */
	uint64_t pages;	     /* pages hashed (not all zero) */
	uint64_t bytes_read; /* bytes read from the process */
	uint64_t ns;	     /* time taken (CLOCK_MONOTONIC) */
};

/* The alternate signal stacks the program set (sigaltstack), left out of
 * digests: a signal frame the kernel writes there stays after its handler
 * returns, and its sigcontext holds the task's last fault (trapno, err,
 * cr2), which differs at replay, where mrr's breakpoints and another
 * page-fault history came before it. The recorder and the replayer note
 * each stack from the same sigaltstack events, so that both leave out the
 * same pages; a stack disabled later stays left out (leaving out more only
 * makes the digest weaker). */
#define MEM_DIGEST_MAX_ALTSTACKS 64

struct mem_digest_altstacks {
	int n;
	bool overflow; /* more than the table holds: no digest at all */
	uint64_t start[MEM_DIGEST_MAX_ALTSTACKS], end[MEM_DIGEST_MAX_ALTSTACKS];
};

/* Notes the stack [sp, sp + size). */
void mem_digest_note_altstack(struct mem_digest_altstacks *a, uint64_t sp,
			      uint64_t size);

/* mem_digest flags */
#define MEM_DIGEST_SHARED_ANON 0x1u /* hash shared anonymous mappings too */
/* a task that stands in the library or mrr's page: its whole stack
 * mapping left out, not only up to 1 KiB above its library frames (trace
 * format 4: how high those reach differs at replay) */
#define MEM_DIGEST_LIB_WHOLE_STACK 0x2u
/* the task at the point (tasks[0], in the program's code): its stack left
 * out below its stack pointer only, the rest of that pointer's page hashed
 * (the bytes below it as zeroes). Rounded out to the page, the digest left
 * out the frames just above the pointer, where a caller's loop counter
 * saved by its callee may be all that tells two turns of a loop apart
 * (stress-ng regs: the turns of a 1000-turn loop around a function that
 * saves the counter looked the same, and the replay's search took the
 * first one). */
#define MEM_DIGEST_SP_EXACT 0x4u

/* Hashes the memory of the process of tasks[0] (which must be stopped, as
 * must every task that can run user code; tasks blocked in a syscall may
 * be listed too). tasks lists every task of the address space (its threads
 * and CLONE_VM children: mem_digest_same_vm). flags: MEM_DIGEST_*. alt
 * (may be NULL): the alternate signal stacks to leave out (not
 * overflowed).
 * Returns 0, or
 * -errno when its maps, pagemap or memory cannot be read. */
int mem_digest(const struct mem_digest_task *tasks, int ntasks, unsigned flags,
	       const struct mem_digest_altstacks *alt, struct mem_digest *out)
	__attribute__((warn_unused_result));

/* Makes the digests tell the syscall buffer library's mappings by the
 * paths namer gives them (NULL: the path itself, or no name). The library
 * is told by its file name, "libmrr_preload"; a replay maps copies of the
 * recorded files under other names, and namer gives it their recorded
 * paths, so that both leave out the same mappings and stacks. Without
 * that, a task standing in the library at record was in the library's
 * code (its stack left out) but, at replay, in unknown code (its stack
 * hashed), and the replay's search never found the point. */
void mem_digest_set_file_namer(const char *(*namer)(void *ctx,
						    const char *path),
			       void *ctx);

/* Leaves [start, end) out of the digests from now on (0, 0: nothing):
 * mrr's own pages in the process while the replay uses them (a patched
 * search's trampoline, replay/fastsearch.h). */
void mem_digest_set_own_range(uint64_t start, uint64_t end);

/* Whether tasks a and b share one address space (kcmp KCMP_VM): the
 * threads of a process, and a CLONE_VM child and its parent, whose stacks
 * lie in the memory hashed (so each must be listed in tasks). False when
 * the kernel cannot tell. */
bool mem_digest_same_vm(pid_t a, pid_t b);

#endif
