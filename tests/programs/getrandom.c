/* getrandom: random bytes from getrandom(2) (blocking and GRND_NONBLOCK)
 * and from reading /dev/urandom; checks the counts and that independent
 * draws differ, and prints them in hex. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/random.h>

static void hex(const char *what, const unsigned char *p, size_t n)
{
	printf("%-20s ", what);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

int main(void)
{
	unsigned char a[32], b[16], c[32], big[4096];
	ssize_t n;
	int fd;

	mt_init();
	n = MT_SYS(getrandom(a, sizeof(a), 0));
	MT_CHECK(n == sizeof(a), "getrandom returned %zd", n);
	n = MT_SYS(getrandom(b, sizeof(b), GRND_NONBLOCK));
	MT_CHECK(n == sizeof(b), "getrandom(GRND_NONBLOCK) returned %zd", n);
	n = MT_SYS(getrandom(big, sizeof(big), 0));
	MT_CHECK(n == sizeof(big), "getrandom of 4096 returned %zd", n);

	fd = MT_SYS(open("/dev/urandom", O_RDONLY | O_CLOEXEC));
	n = MT_SYS(read(fd, c, sizeof(c)));
	MT_CHECK(n == sizeof(c), "read of /dev/urandom returned %zd", n);
	MT_SYS(close(fd));

	/* 2^-128 odds of a false failure. */
	MT_CHECK(memcmp(a, b, sizeof(b)) != 0, "two draws are equal");
	MT_CHECK(memcmp(a, c, sizeof(a)) != 0, "getrandom equals urandom");
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof(big); i++)
		sum += big[i];
	/* Mean 522240, standard deviation about 4700: 20 sigma either way. */
	MT_CHECK(sum > 522240 - 94000 && sum < 522240 + 94000,
		 "byte sum %u of 4096 random bytes", sum);

	hex("getrandom", a, sizeof(a));
	hex("getrandom nonblock", b, sizeof(b));
	hex("/dev/urandom", c, sizeof(c));
	printf("sum of 4096 bytes    %u\n", sum);
	mt_pass();
	return 0;
}
