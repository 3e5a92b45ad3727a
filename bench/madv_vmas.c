/* madv_vmas VMAS [CALLS]: fractures a region into VMAS VMAs (advising
 * every other page MADV_NOHUGEPAGE, as allocators do), then makes CALLS
 * (default 2,000) madvise(MADV_DONTNEED) calls, each on one touched page,
 * spread over the region. The cost of one madvise under mrr should not
 * grow with the number of VMAs (bench/madv_vmas.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long vmas = argc > 1 ? atol(argv[1]) : 1000;
	long calls = argc > 2 ? atol(argv[2]) : 2000;
	long pg = sysconf(_SC_PAGESIZE), npages = 2 * vmas, i;
	unsigned long sum = 0;
	char *p;

	p = mmap(NULL, (size_t)(npages * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("madv_vmas: mmap");
		return 1;
	}
	for (i = 0; i < npages; i += 2)
		if (madvise(p + i * pg, (size_t)pg, MADV_NOHUGEPAGE) < 0) {
			perror("madv_vmas: madvise NOHUGEPAGE");
			return 1;
		}
	for (i = 0; i < calls; i++) {
		char *page = p + ((i * 7919) % npages) * pg;

		*page = 1;
		/* MADV_DONTNEED_LOCKED: the same drop, and never through the
		 * syscall buffer, so each call stops the recorder */
		if (madvise(page, (size_t)pg, 24 /* MADV_DONTNEED_LOCKED */) <
			    0 &&
		    madvise(page, (size_t)pg, MADV_DONTNEED) < 0) {
			perror("madv_vmas: madvise");
			return 1;
		}
		sum += (unsigned char)*page;
	}
	printf("madv_vmas: %ld VMAs, %ld calls, sum %lu\n", vmas, calls, sum);
	return sum != 0;
}
