/* mrr-test: timeout=120 */
/* sbuf_pipe: reads of pipes, which the syscall buffer takes only when the
 * pipe holds data (a read that would wait stays traced, so that signals
 * still reach a blocked reader). One process writes and reads its own pipe
 * 1000 times (every read finds data: buffered), reads and readv's parts of
 * what is there, gets EAGAIN from an empty O_NONBLOCK pipe and 0 at end of
 * file; then a child writes in bursts with pauses while the parent reads
 * until end of file, so that some reads find data and some wait. Prints
 * checksums of everything read. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#define ROUNDS 1000

static uint64_t sum;

static void mix(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		sum = (sum ^ b[i]) * 1099511628211ull;
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 131 + i * 7);
}

int main(void)
{
	unsigned char out[256], in[256], a[40], b[24];
	struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
	int p[2], fl, status;
	long total = 0;
	pid_t child;

	mt_init();
	MT_SYS(pipe(p));
	for (unsigned r = 0; r < ROUNDS; r++) {
		fill(out, 64, r);
		MT_CHECK(write(p[1], out, 64) == 64, "short write");
		if (r % 2) {
			MT_CHECK(read(p[0], in, 64) == 64, "short read");
			MT_CHECK(!memcmp(in, out, 64), "read other bytes");
			mix(in, 64);
		} else {
			MT_CHECK(readv(p[0], iov, 2) == 64, "short readv");
			MT_CHECK(!memcmp(a, out, 40) &&
					 !memcmp(b, out + 40, 24),
				 "readv read other bytes");
			mix(a, 40);
			mix(b, 24);
		}
	}
	/* less than asked for: what is there */
	fill(out, 100, 7);
	MT_CHECK(write(p[1], out, 100) == 100, "short write");
	MT_CHECK(read(p[0], in, sizeof(in)) == 100, "read of 100 bytes");
	mix(in, 100);
	/* empty and O_NONBLOCK: EAGAIN, as natively */
	fl = MT_SYS(fcntl(p[0], F_GETFL));
	MT_SYS(fcntl(p[0], F_SETFL, fl | O_NONBLOCK));
	errno = 0;
	MT_CHECK(read(p[0], in, 8) == -1 && errno == EAGAIN,
		 "empty O_NONBLOCK pipe: errno %d", errno);
	MT_SYS(fcntl(p[0], F_SETFL, fl));
	MT_SYS(close(p[1]));
	MT_CHECK(read(p[0], in, 8) == 0, "no end of file");
	MT_SYS(close(p[0]));

	/* a writer in another process, with pauses */
	MT_SYS(pipe(p));
	child = MT_SYS(fork());
	if (child == 0) {
		struct timespec pause = {0, 2 * 1000 * 1000};

		close(p[0]);
		for (unsigned r = 0; r < 60; r++) {
			fill(out, 200, r);
			if (write(p[1], out, 200) != 200)
				_exit(2);
			if (r % 10 == 0)
				nanosleep(&pause, NULL);
		}
		_exit(0);
	}
	MT_SYS(close(p[1]));
	for (;;) {
		ssize_t n = MT_SYS(read(p[0], in, 150));

		if (n == 0)
			break;
		mix(in, (size_t)n);
		total += n;
	}
	MT_SYS(close(p[0]));
	MT_SYS(waitpid(child, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child status %#x", status);
	MT_CHECK(total == 60 * 200, "read %ld bytes from the child", total);
	printf("sbuf_pipe: %d rounds, %ld bytes from the child, checksum "
	       "%016llx\n",
	       ROUNDS, total, (unsigned long long)sum);
	mt_pass();
	return 0;
}
