/* clock_floor [N]: what one call of each way to read the time costs, in
 * nanoseconds per call (median of 5 runs of N calls, default 200000),
 * timed with clock_gettime(CLOCK_MONOTONIC) around each run:
 *   vdso     clock_gettime through libc (the vDSO natively; under mrr
 *            record the preload library's buffered syscall)
 *   syscall  clock_gettime as a raw syscall (never buffered: under mrr,
 *            a traced call, two ptrace stops)
 *   getpid   getpid through libc (a real syscall natively; buffered under
 *            mrr)
 *   rdtsc    the rdtsc instruction alone (under mrr it traps: a SIGSEGV
 *            stop and an event each; skipped there unless asked for)
 * Used by bench/clockfloor.sh to explain the clock loop's floor (issue
 * 14). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	const char *only = argc > 2 ? argv[2] : "vdso syscall getpid";
	static const char *const ways[] = {"vdso", "syscall", "getpid",
					   "rdtsc"};
	unsigned long sink = 0;

	for (int w = 0; w < 4; w++) {
		double t[5];

		if (!strstr(only, ways[w]))
			continue;
		for (int r = 0; r < 5; r++) {
			struct timespec ts;
			double t0 = now_ns();

			for (long i = 0; i < n; i++) {
				switch (w) {
				case 0:
					clock_gettime(CLOCK_MONOTONIC, &ts);
					sink += (unsigned long)ts.tv_nsec;
					break;
				case 1:
					syscall(SYS_clock_gettime,
						CLOCK_MONOTONIC, &ts);
					sink += (unsigned long)ts.tv_nsec;
					break;
				case 2:
					sink += (unsigned long)getpid();
					break;
				default:
					sink += __rdtsc();
				}
			}
			t[r] = (now_ns() - t0) / (double)n;
		}
		qsort(t, 5, sizeof(t[0]), cmp);
		printf("%s %.1f\n", ways[w], t[2]);
	}
	return sink == 42; /* keeps the loops */
}
