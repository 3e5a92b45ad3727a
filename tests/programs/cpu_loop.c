/* cpu_loop [N]: N steps (default 150 million) of a 64-bit linear
 * congruential generator, with no syscalls in the loop. Checks the result
 * against the same N steps computed by repeated squaring, and prints it. */
#include "mrr_test.h"

#include <stdint.h>

#define MUL 6364136223846793005ull
#define ADD 1442695040888963407ull

/* x -> MUL^n x + ADD (MUL^(n-1) + ... + 1), composed by squaring. */
static uint64_t jump(uint64_t x, uint64_t n)
{
	uint64_t m = MUL, a = ADD, acc_m = 1, acc_a = 0;

	while (n) {
		if (n & 1) {
			acc_m *= m;
			acc_a = acc_a * m + a;
		}
		a = a * m + a;
		m *= m;
		n >>= 1;
	}
	return acc_m * x + acc_a;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 150000000ull;
	uint64_t x = 42;

	mt_init();
	for (uint64_t i = 0; i < n; i++) {
		x = x * MUL + ADD;
		__asm__ volatile("" : "+r"(x));
	}
	uint64_t want = jump(42, n);
	MT_CHECK(x == want, "loop gave %016llx, squaring %016llx",
		 (unsigned long long)x, (unsigned long long)want);
	printf("%llu steps: %016llx\n", (unsigned long long)n,
	       (unsigned long long)x);
	mt_pass();
	return 0;
}
