/* hostile_rlimits: runs in three stages, each an exec of itself, under odd
 * resource limits that change what the kernel does:
 *   stage 0: RLIMIT_NOFILE soft 16 (opens fail with EMFILE at fd 16),
 *            RLIMIT_FSIZE 4096 with SIGXFSZ ignored (a write past it is cut
 *            short, the next fails with EFBIG), then RLIMIT_STACK soft
 *            unlimited (the next exec gets the legacy bottom-up mmap layout)
 *            and exec;
 *   stage 1: checks the limits survived the exec, sets RLIMIT_STACK soft to
 *            1 MiB (a top-down layout with a small stack gap) and execs;
 *   stage 2: checks that limit, uses 512 KiB of stack, and prints PASS.
 * Limits that are set cannot be raised back by an unprivileged user, so
 * each is only lowered below its hard limit (or left when that is lower). */
#include "mrr_test.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

static void set_soft(int res, rlim_t soft)
{
	struct rlimit rl;

	MT_SYS(getrlimit(res, &rl));
	if (rl.rlim_max != RLIM_INFINITY && soft > rl.rlim_max)
		soft = rl.rlim_max;
	rl.rlim_cur = soft;
	MT_SYS(setrlimit(res, &rl));
}

static rlim_t get_soft(int res)
{
	struct rlimit rl;

	MT_SYS(getrlimit(res, &rl));
	return rl.rlim_cur;
}

static void reexec(char **argv, const char *stage)
{
	char *const args[] = {argv[0], (char *)stage, NULL};

	fflush(stdout);
	execv("/proc/self/exe", args);
	MT_CHECK(0, "exec of stage %s failed: %s", stage, strerror(errno));
}

static void nofile_check(void)
{
	int fds[64], n = 0, fd;

	set_soft(RLIMIT_NOFILE, 16);
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		MT_CHECK(n < 64, "more than 64 fds under RLIMIT_NOFILE 16");
		fds[n++] = fd;
	}
	MT_CHECK(errno == EMFILE, "open failed with %s, not EMFILE",
		 strerror(errno));
	MT_CHECK(fds[n - 1] == 15, "the last fd opened was %d, not 15",
		 fds[n - 1]);
	while (n > 0)
		MT_SYS(close(fds[--n]));
	printf("RLIMIT_NOFILE 16: EMFILE after fd 15\n");
}

static void fsize_check(void)
{
	static char buf[8192];
	char path[64];
	ssize_t n;
	int fd;

	MT_CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR, "signal(SIGXFSZ)");
	set_soft(RLIMIT_FSIZE, 4096);
	snprintf(path, sizeof(path), "/tmp/mrr-rlimits-%d", (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600));
	MT_SYS(unlink(path));
	memset(buf, 'x', sizeof(buf));
	n = MT_SYS(write(fd, buf, sizeof(buf)));
	MT_CHECK(n == 4096, "write under RLIMIT_FSIZE 4096 wrote %zd", n);
	errno = 0;
	n = write(fd, buf, 1);
	MT_CHECK(n == -1 && errno == EFBIG, "write past the limit: %zd, %s", n,
		 strerror(errno));
	MT_SYS(close(fd));
	set_soft(RLIMIT_FSIZE, RLIM_INFINITY); /* back, for stdout files */
	printf("RLIMIT_FSIZE 4096: short write, then EFBIG\n");
}

/* Touches about kib KiB of stack. */
static __attribute__((noinline)) unsigned long deep(int kib)
{
	volatile char frame[1024];

	frame[0] = (char)kib;
	frame[1023] = (char)(kib >> 8);
	if (kib <= 1)
		return frame[0];
	return deep(kib - 1) + frame[1023];
}

int main(int argc, char **argv)
{
	int stage = argc > 1 ? atoi(argv[1]) : 0;
	void *p;

	mt_init();
	p = MT_SYS(mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	printf("stage %d: mmap below %s\n", stage,
	       (uintptr_t)p > 0x7f0000000000ull ? "the stack" : "the heap");
	MT_SYS(munmap(p, 4096));

	switch (stage) {
	case 0:
		nofile_check();
		fsize_check();
		set_soft(RLIMIT_STACK, RLIM_INFINITY);
		reexec(argv, "1");
		break;
	case 1:
		MT_CHECK(get_soft(RLIMIT_NOFILE) == 16, "RLIMIT_NOFILE is %llu",
			 (unsigned long long)get_soft(RLIMIT_NOFILE));
		set_soft(RLIMIT_STACK, 1 << 20);
		reexec(argv, "2");
		break;
	case 2:
		MT_CHECK(get_soft(RLIMIT_STACK) == 1 << 20,
			 "RLIMIT_STACK is %llu",
			 (unsigned long long)get_soft(RLIMIT_STACK));
		printf("512 KiB of stack: %lu\n", deep(512));
		mt_pass();
		break;
	default:
		MT_CHECK(0, "bad stage %s", argv[1]);
	}
	return 0;
}
