/* checkpoint_heap [MIB] [STEPS]: fills MIB MiB (default 256) of heap, then
 * makes STEPS (default 20,000) getppid calls, writing one byte of a
 * different page of the heap after each. The workload of
 * bench/checkpoint.sh: a checkpoint taken after the fill shares the heap
 * with the replayed process copy-on-write, and the steps replayed after it
 * are the span a restore goes back over. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	long steps = argc > 2 ? atol(argv[2]) : 20000;
	size_t size = mib << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long sum = 0;
	char *p = malloc(size);

	if (!p) {
		perror("malloc");
		return 1;
	}
	memset(p, 1, size);
	for (long i = 0; i < steps; i++) {
		size_t at = ((size_t)i * 7 * pg) % size;

		sum += (unsigned long)getppid() & 1;
		p[at]++;
	}
	for (size_t at = 0; at < size; at += pg)
		sum += (unsigned char)p[at];
	printf("checkpoint_heap: %zu MiB, %ld steps, sum %lu\n", mib, steps,
	       sum);
	return 0;
}
