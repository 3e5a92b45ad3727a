/* rdtsc without a working PR_SET_TSC trap.
 *
 * Some virtual machines ignore CR4.TSD, so PR_TSC_SIGSEGV never faults. mrr
 * therefore also rewrites each rdtsc/rdtscp instruction in the program's
 * executable file mappings into ud2 (padded with nop), at record and replay
 * alike, and emulates it on the SIGILL. Sites are found in the ELF's
 * executable segments and confirmed by disassembling from the nearest
 * preceding function symbol. */
#ifndef MRR_CORE_TSC_PATCH_H
#define MRR_CORE_TSC_PATCH_H

#include <stdint.h>
#include <sys/types.h>

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
