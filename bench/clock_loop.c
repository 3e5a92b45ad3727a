/* clock_loop [N]: N rounds of clock_gettime(CLOCK_MONOTONIC) + getpid()
 * (default 500000), the calls a program that times itself makes most.
 * Prints a checksum that depends on the pid and that time never went back,
 * not on the times themselves. Used by bench/fastcalls.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500000;
	struct timespec last = {0, 0}, now;
	unsigned long sum = 0, back = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec < last.tv_sec ||
		    (now.tv_sec == last.tv_sec && now.tv_nsec < last.tv_nsec))
			back++;
		last = now;
		sum += (unsigned long)getpid();
	}
	printf("%ld rounds, pid sum %lu, went back %lu times\n", n,
	       sum / (unsigned long)n, back);
	return back != 0;
}
