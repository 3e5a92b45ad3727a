/* mrr-test: args=8 */
/* hostile_urandom [MiB]: reads MiB mebibytes (default 8) of /dev/urandom in
 * 64 KiB reads, so that the trace grows by about as much as the program
 * reads (random bytes do not compress). Checks every read is full and that
 * the bytes look random (each byte value turns up), and prints a checksum
 * of everything read, so the replay must hand back the same bytes. The
 * disk-full hardening test records it onto a small file system. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>

#define CHUNK (64 * 1024)

int main(int argc, char **argv)
{
	static unsigned char buf[CHUNK];
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 8;
	uint64_t total = mib << 20, done = 0, sum = 0;
	uint64_t seen[4] = {0, 0, 0, 0};
	int fd, values = 0;

	mt_init();
	MT_CHECK(mib > 0, "bad size %s", argv[1]);
	fd = MT_SYS(open("/dev/urandom", O_RDONLY | O_CLOEXEC));
	while (done < total) {
		ssize_t n = MT_SYS(read(fd, buf, CHUNK));

		MT_CHECK(n == CHUNK, "read %zd of %d bytes at %llu", n, CHUNK,
			 (unsigned long long)done);
		for (ssize_t i = 0; i < n; i++) {
			sum = sum * 1099511628211ull + buf[i];
			seen[buf[i] >> 6] |= 1ull << (buf[i] & 63);
		}
		done += n;
	}
	MT_SYS(close(fd));
	for (int i = 0; i < 4; i++)
		values += __builtin_popcountll(seen[i]);
	MT_CHECK(values == 256, "only %d byte values in %llu random bytes",
		 values, (unsigned long long)total);
	printf("read %llu MiB of /dev/urandom, checksum %016llx\n",
	       (unsigned long long)mib, (unsigned long long)sum);
	mt_pass();
	return 0;
}
