/* sbuf_fork: buffered calls on both sides of fork and in a vfork child.
 * A fork child keeps a copy of its parent's syscall buffer at the same
 * address and goes on buffering into it, interleaved with the parent's; a
 * vfork child borrows the parent's very buffer (shared memory, shared
 * thread-local state) until it exits. Each process's records must be
 * replayed to that process only. Prints per-process checksums. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#define READS	 1200
#define FILE_LEN 8192

static int fd;

static unsigned char pattern(size_t off)
{
	return (unsigned char)(off * 7 + (off >> 8));
}

/* READS preads at offsets that depend on who reads, with clock and id
 * reads in between. */
static uint64_t reads(int who)
{
	unsigned char buf[64];
	struct timespec ts;
	uint64_t sum = 0;
	int pid = getpid();

	for (int i = 0; i < READS; i++) {
		off_t off = (off_t)(i * 61 + who * 977) % (FILE_LEN - 64);

		MT_CHECK(pread(fd, buf, sizeof(buf), off) == sizeof(buf),
			 "%d: pread", who);
		for (int k = 0; k < 64; k++) {
			MT_CHECK(buf[k] == pattern(off + k), "%d: byte %lld",
				 who, (long long)(off + k));
			sum = sum * 31 + buf[k];
		}
		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &ts));
		MT_CHECK(getpid() == pid && gettid() == pid, "%d: ids", who);
	}
	return sum;
}

static void wait_ok(pid_t child, const char *what)
{
	int status;

	MT_SYS(waitpid(child, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "%s exited with status %#x", what, status);
}

int main(void)
{
	unsigned char data[FILE_LEN];
	volatile uint64_t vfork_sum = 0;
	char path[64];
	pid_t child;
	int p[2];

	mt_init();
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = pattern(i);
	snprintf(path, sizeof(path), "/tmp/mrr-sbuf_fork-%d", getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_SYS(unlink(path));
	MT_CHECK(MT_SYS(write(fd, data, sizeof(data))) == sizeof(data), "w");
	printf("parent before fork: %016llx\n", (unsigned long long)reads(0));

	/* The child reports through a pipe so that its output comes in a
	 * fixed place, after the parent's. */
	MT_SYS(pipe(p));
	child = MT_SYS(fork());
	if (child == 0) {
		uint64_t s = reads(1);

		MT_CHECK(write(p[1], &s, sizeof(s)) == sizeof(s), "pipe");
		_exit(0);
	}
	printf("parent beside child: %016llx\n", (unsigned long long)reads(2));
	{
		uint64_t s;

		MT_CHECK(read(p[0], &s, sizeof(s)) == sizeof(s), "pipe read");
		printf("fork child: %016llx\n", (unsigned long long)s);
	}
	wait_ok(child, "the fork child");

	/* The vfork child runs on the parent's memory until _exit. */
	child = vfork();
	if (child == 0) {
		vfork_sum = reads(3);
		_exit(0);
	}
	MT_CHECK(child > 0, "vfork: %s", strerror(errno));
	wait_ok(child, "the vfork child");
	printf("vfork child: %016llx\n", (unsigned long long)vfork_sum);
	printf("parent after: %016llx\n", (unsigned long long)reads(4));
	MT_SYS(close(fd));
	mt_pass();
	return 0;
}
