/* time: the clocks a program reads without a real syscall (vDSO) and with
 * one: clock_gettime REALTIME, MONOTONIC, BOOTTIME and PROCESS_CPUTIME_ID,
 * gettimeofday and time(). Checks that each clock never goes back over many
 * reads and that the wall clocks agree; prints the values, so the output
 * depends on the time it ran. */
#include "mrr_test.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#define ROUNDS 2000

static long long ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

int main(void)
{
	struct timespec rt, mono, boot, cpu, prev_mono, prev_boot, raw;
	long long prev_rt_us = 0, prev_us = 0;
	struct timeval tv;
	time_t t, prev_t = 0;

	mt_init();
	MT_SYS(clock_gettime(CLOCK_MONOTONIC, &prev_mono));
	MT_SYS(clock_gettime(CLOCK_BOOTTIME, &prev_boot));
	for (int i = 0; i < ROUNDS; i++) {
		MT_SYS(clock_gettime(CLOCK_REALTIME, &rt));
		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &mono));
		MT_SYS(clock_gettime(CLOCK_BOOTTIME, &boot));
		MT_SYS(gettimeofday(&tv, NULL));
		t = time(NULL);
		MT_CHECK(ns(&mono) >= ns(&prev_mono), "MONOTONIC went back");
		MT_CHECK(ns(&boot) >= ns(&prev_boot), "BOOTTIME went back");
		long long us = tv.tv_sec * 1000000LL + tv.tv_usec;
		MT_CHECK(us >= prev_us, "gettimeofday went back");
		MT_CHECK(t >= prev_t, "time() went back");
		/* Read in this order, gettimeofday cannot be earlier than
		 * CLOCK_REALTIME (same clock, coarser unit). time() reads the
		 * clock as of the last tick, so it may lag by one second. */
		MT_CHECK(us >= ns(&rt) / 1000,
			 "gettimeofday %lld before REALTIME %lld", us,
			 ns(&rt) / 1000);
		MT_CHECK(t >= rt.tv_sec - 1, "time() %lld before REALTIME %lld",
			 (long long)t, (long long)rt.tv_sec);
		MT_CHECK(ns(&rt) / 1000 >= prev_rt_us || i == 0,
			 "REALTIME went back");
		prev_mono = mono;
		prev_boot = boot;
		prev_us = us;
		prev_t = t;
		prev_rt_us = ns(&rt) / 1000;
	}
	/* 2020-01-01: a clock before that is not being read. */
	MT_CHECK(rt.tv_sec > 1577836800, "REALTIME %lld", (long long)rt.tv_sec);
	MT_CHECK(ns(&boot) >= ns(&mono), "BOOTTIME behind MONOTONIC");

	/* The CPU-time clock always takes a real syscall. */
	MT_CHECK(syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &cpu) ==
			 0,
		 "clock_gettime(PROCESS_CPUTIME_ID): %s", strerror(errno));
	MT_CHECK(ns(&cpu) > 0, "no CPU time used");
	MT_SYS(clock_getres(CLOCK_MONOTONIC, &raw));
	MT_CHECK(ns(&raw) > 0 && ns(&raw) <= 1000000000, "resolution %lld",
		 ns(&raw));

	printf("REALTIME  %lld.%09ld\n", (long long)rt.tv_sec, rt.tv_nsec);
	printf("MONOTONIC %lld.%09ld\n", (long long)mono.tv_sec, mono.tv_nsec);
	printf("BOOTTIME  %lld.%09ld\n", (long long)boot.tv_sec, boot.tv_nsec);
	printf("gettimeofday %lld.%06ld\n", (long long)tv.tv_sec,
	       (long)tv.tv_usec);
	printf("time %lld\n", (long long)t);
	printf("process CPU time %lld ns\n", ns(&cpu));
	printf("%d rounds, every clock monotonic\n", ROUNDS);
	mt_pass();
	return 0;
}
