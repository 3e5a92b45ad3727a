/* rdtsc: reads the time-stamp counter with rdtsc and (where the CPU has it)
 * rdtscp, checks that the values never go back, and prints them and the
 * TSC_AUX value rdtscp returns, so the output depends on when it ran. */
#include "mrr_test.h"

#include <cpuid.h>
#include <stdint.h>

#define ROUNDS 1000

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t rdtscp(uint32_t *aux)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(*aux));
	return (uint64_t)hi << 32 | lo;
}

int main(void)
{
	unsigned int a, b, c, d;
	uint64_t first, prev, now = 0;
	uint32_t aux = 0;
	int have_rdtscp;

	mt_init();
	have_rdtscp =
		__get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));

	first = prev = rdtsc();
	MT_CHECK(first != 0, "rdtsc returned 0");
	for (int i = 0; i < ROUNDS; i++) {
		now = rdtsc();
		MT_CHECK(now >= prev, "rdtsc went back: %llu after %llu",
			 (unsigned long long)now, (unsigned long long)prev);
		prev = now;
	}
	printf("rdtsc first %llu last %llu (%d reads)\n",
	       (unsigned long long)first, (unsigned long long)now, ROUNDS + 1);

	if (have_rdtscp) {
		for (int i = 0; i < ROUNDS; i++) {
			now = rdtscp(&aux);
			MT_CHECK(now >= prev,
				 "rdtscp went back: %llu after %llu",
				 (unsigned long long)now,
				 (unsigned long long)prev);
			prev = now;
		}
		printf("rdtscp last %llu aux %u\n", (unsigned long long)now,
		       aux);
	} else {
		printf("this CPU has no rdtscp\n");
	}
	MT_CHECK(now > first, "the counter did not advance");
	mt_pass();
	return 0;
}
