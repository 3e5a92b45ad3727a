/* madv_loop [ROUNDS]: ROUNDS (default 20,000) of "touch 64 pages, then
 * madvise(MADV_DONTNEED) them", checking each time that the pages came back
 * zeroed. The madvise workload of bench/syscallbuf.sh: under mrr every
 * DONTNEED either goes through the syscall buffer (after its MADV_COLD
 * probe) or stops the recorder for a pagemap diff. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 64

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long sum = 0;
	char *p;

	p = mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < PAGES; i++) {
			sum += (unsigned char)p[i * pg];
			p[i * pg] = (char)(r + i + 1);
		}
		if (madvise(p, PAGES * pg, MADV_DONTNEED) != 0) {
			perror("madvise");
			return 1;
		}
	}
	if (sum != 0) {
		fprintf(stderr, "madv_loop: dropped pages did not read zero\n");
		return 1;
	}
	printf("%ld rounds of %d pages dropped\n", rounds, PAGES);
	return 0;
}
