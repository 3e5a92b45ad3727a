/* big_pipe [MiB]: the parent writes MiB mebibytes (default 64; 1024 for a
 * GiB) of known bytes through a pipe to a child, which checks every byte,
 * counts them and sends back the count and a checksum over a second pipe. */
#include "mrr_test.h"

#include <stdint.h>
#include <sys/wait.h>

#define CHUNK (64 * 1024)

static unsigned char pattern(uint64_t off)
{
	return (unsigned char)(off ^ (off >> 11) ^ (off >> 23));
}

struct report {
	uint64_t bytes;
	uint64_t sum;
	uint64_t bad; /* offset of the first wrong byte + 1, or 0 */
};

static int child(int in, int out)
{
	static unsigned char buf[CHUNK];
	struct report r = {0, 0, 0};
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (!r.bad && buf[i] != pattern(r.bytes + i))
				r.bad = r.bytes + i + 1;
			r.sum += buf[i];
		}
		r.bytes += n;
	}
	if (n < 0)
		return 2;
	return write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 3;
}

int main(int argc, char **argv)
{
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 64;
	uint64_t total = mib << 20, sent = 0, sum = 0;
	static unsigned char buf[CHUNK];
	struct report r;
	int data[2], back[2], st;
	pid_t pid;

	mt_init();
	MT_CHECK(mib > 0, "bad size %s", argv[1]);
	MT_SYS(pipe(data));
	MT_SYS(pipe(back));
	pid = MT_SYS(fork());
	if (pid == 0) {
		close(data[1]);
		close(back[0]);
		_exit(child(data[0], back[1]));
	}
	MT_SYS(close(data[0]));
	MT_SYS(close(back[1]));
	while (sent < total) {
		for (size_t i = 0; i < CHUNK; i++) {
			buf[i] = pattern(sent + i);
			sum += buf[i];
		}
		size_t done = 0;
		while (done < CHUNK) {
			ssize_t n = MT_SYS(
				write(data[1], buf + done, CHUNK - done));
			done += n;
		}
		sent += CHUNK;
	}
	MT_SYS(close(data[1]));
	MT_CHECK(MT_SYS(read(back[0], &r, sizeof(r))) == sizeof(r),
		 "short report from the child");
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	MT_CHECK(r.bad == 0, "child saw a wrong byte at offset %llu",
		 (unsigned long long)(r.bad - 1));
	MT_CHECK(r.bytes == total, "child counted %llu of %llu bytes",
		 (unsigned long long)r.bytes, (unsigned long long)total);
	MT_CHECK(r.sum == sum, "checksum %llx, sent %llx",
		 (unsigned long long)r.sum, (unsigned long long)sum);
	printf("%llu MiB through a pipe, byte sum %llu\n",
	       (unsigned long long)mib, (unsigned long long)sum);
	mt_pass();
	return 0;
}
