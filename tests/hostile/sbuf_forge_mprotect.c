/* sbuf_forge_mprotect: makes one buffered mprotect(PROT_READ) of a page of
 * its own, then rewrites that record in its syscall buffer to claim
 * PROT_READ|PROT_WRITE, and makes a traced call so mrr flushes the buffer.
 * The map says read-only: mrr must stop recording with a clear error
 * rather than believe the record. Without mrr (or with -n) it finds no
 * record and exits 0. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "find_sbuf.h"

struct rec { /* struct mrr_syscallbuf_rec */
	uint32_t size, nr;
	int64_t result;
	uint64_t args[3];
	uint32_t data_len, pad;
};

int main(void)
{
	uint32_t *hdr = find_buffer();
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rec *r;

	if (p == MAP_FAILED)
		return 2;
	/* stdout's first use makes traced calls, which flush: before */
	printf("looking for a buffered mprotect\n");
	fflush(stdout);
	syscall(SYS_getppid); /* traced: the buffer is empty after it */
	if (mprotect(p, 4096, PROT_READ) != 0)
		return 2;
	r = hdr ? (struct rec *)(hdr + 8) : NULL; /* after the 32-byte header */
	if (!hdr || hdr[2] != sizeof(*r) || r->nr != SYS_mprotect) {
		printf("no buffered mprotect\n");
		return 0;
	}
	r->args[2] = PROT_READ | PROT_WRITE;
	syscall(SYS_getppid); /* traced: mrr flushes here */
	printf("still running after the forgery\n");
	return 0;
}
