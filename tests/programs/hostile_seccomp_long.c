/* hostile_seccomp_long: installs a seccomp filter of 4000 instructions (the
 * kernel allows 4096), too long for the scratch space mrr rewrites filters
 * in, that makes getppid fail with EPERM after a long chain of checks, and
 * then makes buffered and traced calls, in this process and after an
 * execve of itself. */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#define LEN 4000

static void install_filter(void)
{
	static struct sock_filter code[LEN];
	struct sock_fprog prog = {.len = LEN, .filter = code};
	int n = 0;

	code[n++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	/* many checks for numbers no kernel has, each skipping nothing */
	while (n < LEN - 3)
		code[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, 100000 + n, 0, 0);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						 SYS_getppid, 0, 1);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						 SECCOMP_RET_ERRNO | EPERM);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						 SECCOMP_RET_ALLOW);
	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	MT_SYS(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

int main(int argc, char **argv)
{
	struct timespec ts;
	char buf[16];
	int fd;

	mt_init();
	if (argc < 2) {
		install_filter();
		printf("filter of %d instructions installed\n", LEN);
	}
	errno = 0;
	MT_CHECK(syscall(SYS_getppid) == -1 && errno == EPERM,
		 "getppid was not refused: errno %d", errno);
	for (int i = 0; i < 20000; i++)
		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &ts));
	fd = MT_SYS(open("/proc/self/stat", O_RDONLY | O_CLOEXEC));
	MT_CHECK(MT_SYS(read(fd, buf, sizeof(buf))) > 0, "empty read");
	MT_SYS(close(fd));
	printf("%s: getppid refused, 20000 clock_gettime calls\n",
	       argc < 2 ? "first image" : "after execve");
	if (argc < 2) {
		char *args[] = {argv[0], "again", NULL};

		execv("/proc/self/exe", args);
		MT_CHECK(0, "execv: %s", strerror(errno));
	}
	mt_pass();
	return 0;
}
