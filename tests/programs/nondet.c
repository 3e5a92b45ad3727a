/* nondet: prints the time, the pid and 16 random bytes, and a hash of all
 * three. A replay that prints the same lines reproduced all three inputs. */
#include "mrr_test.h"

#include <stdint.h>
#include <sys/random.h>
#include <time.h>

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

int main(void)
{
	unsigned char rnd[16];
	struct timespec ts;
	uint64_t h = 0xcbf29ce484222325ull;
	pid_t pid;
	ssize_t n;

	mt_init();
	MT_SYS(clock_gettime(CLOCK_REALTIME, &ts));
	pid = getpid();
	n = MT_SYS(getrandom(rnd, sizeof(rnd), 0));
	MT_CHECK(n == sizeof(rnd), "getrandom returned %zd", n);
	MT_CHECK(pid > 1, "pid %d", (int)pid);

	h = fnv1a(h, &ts, sizeof(ts));
	h = fnv1a(h, &pid, sizeof(pid));
	h = fnv1a(h, rnd, sizeof(rnd));
	printf("time %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	printf("pid %d\n", (int)pid);
	printf("random ");
	for (size_t i = 0; i < sizeof(rnd); i++)
		printf("%02x", rnd[i]);
	printf("\nhash %016llx\n", (unsigned long long)h);
	mt_pass();
	return 0;
}
