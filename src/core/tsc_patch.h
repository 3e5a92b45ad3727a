/* rdtsc with and without a working PR_SET_TSC trap.
 *
 * mrr asks the kernel to fault rdtsc/rdtscp (PR_TSC_SIGSEGV). Some virtual
 * machines ignore CR4.TSD, so the trap never comes. A probe at record start
 * tells the two apart. Where rdtsc traps, the program's code is left alone
 * ("trap" mode). Where it does not, mrr rewrites each rdtsc/rdtscp
 * instruction in the program's executable file mappings into ud2 (padded
 * with nop) and emulates it on the SIGILL ("rewrite" mode); the rewrites are
 * recorded as memory writes, so the replay gets the same bytes. Sites are
 * found in the ELF's executable segments and confirmed by disassembling from
 * the nearest preceding function symbol. */
#ifndef MRR_CORE_TSC_PATCH_H
#define MRR_CORE_TSC_PATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum tsc_mode {
	TSC_MODE_TRAP = 1,    /* rdtsc faults by itself; code is not changed */
	TSC_MODE_REWRITE = 2, /* rdtsc sites are rewritten to ud2 */
};

/* Whether rdtsc faults under PR_TSC_SIGSEGV here: forks a child that sets
 * it and executes rdtsc. False when the probe cannot run, and when the
 * environment variable MRR_TSC_NO_TRAP is 1 (for tests: it stands for a
 * machine that ignores PR_SET_TSC). */
bool tsc_trap_works(void);

/* The mode to record with. The environment variable MRR_TSC_MODE (trap,
 * rewrite or auto; unset means auto) can force one, for tests; auto probes.
 * Returns the mode, or -EINVAL when MRR_TSC_MODE holds something else, or
 * -ENOTSUP when it asks for trap and rdtsc does not trap here. */
int tsc_choose_mode(void);

struct tsc_site {
	uint64_t offset; /* file offset of the instruction */
	uint8_t len;	 /* 2 (rdtsc) or 3 (rdtscp) */
};

/* Finds the sites in the ELF file at path. Returns the count and a malloc'd
 * array in *out (NULL when 0), or -errno. Not an ELF file: 0. */
long tsc_find_sites(const char *path, struct tsc_site **out);

/* The bytes a site is rewritten to (len bytes). */
const uint8_t *tsc_patch_bytes(unsigned len);

/* If the instruction at ip in task pid is a rewritten rdtsc/rdtscp (ud2 in
 * a file mapping whose file has rdtsc/rdtscp there), returns 1 (rdtsc) or
 * 2 (rdtscp) and its length in *len; else 0. */
int tsc_patched_insn(pid_t pid, uint64_t ip, unsigned *len);

#endif
