/* vmsplice from a pipe's read end copies the pipe's bytes into the
 * program's vectors, like readv (LTP vmsplice03 diverged at replay: the
 * bytes were not recorded, and the program wrote another count). */
#define _GNU_SOURCE
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/uio.h>

int main(void)
{
	char a[8], b[32], msg[64];
	struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
	int fds[2], n, len;
	ssize_t got;

	mt_init();
	MT_SYS(pipe(fds));
	len = snprintf(msg, sizeof(msg), "pid-free bytes %d", 12345);
	MT_CHECK(write(fds[1], msg, (size_t)len) == len, "write: %s",
		 strerror(errno));
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	got = vmsplice(fds[0], iov, 2, 0);
	MT_CHECK(got == len, "vmsplice read %zd bytes, expected %d", got, len);
	/* the program acts on the bytes it got */
	n = (int)strnlen(b, sizeof(b));
	printf("first vector: %.8s; second: %s (%d bytes)\n", a, b, n);
	MT_CHECK(memcmp(a, msg, sizeof(a)) == 0 &&
			 memcmp(b, msg + sizeof(a), (size_t)len - sizeof(a)) ==
				 0,
		 "vmsplice gave other bytes");
	/* and from user memory into a pipe: nothing to record */
	iov[0].iov_base = msg;
	iov[0].iov_len = (size_t)len;
	MT_CHECK(vmsplice(fds[1], iov, 1, 0) == len, "vmsplice to the pipe");
	MT_CHECK(read(fds[0], b, sizeof(b)) == len, "read back");
	printf("PASS\n");
	return 0;
}
