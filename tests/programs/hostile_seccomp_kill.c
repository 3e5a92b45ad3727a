/* hostile_seccomp_kill: installs a seccomp filter that kills the process
 * on any syscall numbered 1000 or more (no kernel has such numbers; mrr's
 * own buffer-control calls do), then makes enough buffered calls to fill
 * the syscall buffer several times over, and re-executes itself under the
 * filter (filters survive execve), where the new image registers its own
 * syscall buffer. The program must not notice mrr's calls. */
#include "mrr_test.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

static void install_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	MT_SYS(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

int main(int argc, char **argv)
{
	struct timespec ts;
	long sum = 0;

	mt_init();
	if (argc < 2) {
		install_filter();
		printf("filter installed\n");
	}
	/* about 48 bytes a record: 60000 calls fill 1 MiB nearly 3 times */
	for (int i = 0; i < 60000; i++) {
		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &ts));
		sum += ts.tv_nsec & 1;
	}
	printf("%s: 60000 clock_gettime calls\n",
	       argc < 2 ? "first image" : "after execve");
	if (argc < 2) {
		char *args[] = {argv[0], "again", NULL};

		execv("/proc/self/exe", args);
		MT_CHECK(0, "execv: %s", strerror(errno));
	}
	(void)sum;
	mt_pass();
	return 0;
}
