/* mprotect_loop [ROUNDS]: ROUNDS (default 100,000) of "make a 10-page
 * region read-only, then read-write again, then write to it", the hot loop
 * of LTP signal06's second thread. The mprotect workload of
 * bench/tracedcalls.sh: under mrr each call is either a traced syscall
 * (ptrace stops) or a buffered one. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 10

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100000;
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
		if (mprotect(p, PAGES * pg, PROT_READ) != 0 ||
		    mprotect(p, PAGES * pg, PROT_READ | PROT_WRITE) != 0) {
			perror("mprotect");
			return 1;
		}
		p[(r % PAGES) * pg] = (char)r;
		sum += (unsigned char)p[(r % PAGES) * pg];
	}
	printf("%ld rounds of 2 mprotects (%lu)\n", rounds, sum);
	return 0;
}
