/* static_rdtsc: rdtsc and rdtscp in a statically linked program (no loader,
 * no shared libraries: in mrr's rewrite mode only the executable's own
 * sites are rewritten). Checks that the counter never goes back and prints
 * how many reads it made, not the values, so its output is the same in
 * every run. */
#include "mrr_test.h"

#include <cpuid.h>
#include <stdint.h>

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return (uint64_t)hi << 32 | lo;
}

int main(void)
{
	unsigned int a, b, c, d;
	uint64_t prev = 0, now;
	int i, has_rdtscp;

	mt_init();
	has_rdtscp =
		__get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
	for (i = 0; i < 100; i++) {
		now = (i % 2 && has_rdtscp) ? rdtscp() : rdtsc();
		MT_CHECK(now >= prev, "read %d: %llu after %llu", i,
			 (unsigned long long)now, (unsigned long long)prev);
		prev = now;
	}
	printf("100 reads, the counter never went back\n");
	mt_pass();
	return 0;
}
