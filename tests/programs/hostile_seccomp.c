/* hostile_seccomp: installs its own seccomp filter on top of whatever
 * filter it already runs under (mrr's), which makes getppid fail with
 * EPERM, uname fail with ENOSYS, and allows the rest. Checks that the
 * filter works, in this process and in a forked child (filters are
 * inherited), and that other syscalls are untouched. Such failures never
 * reach a tracer (SECCOMP_RET_ERRNO beats SECCOMP_RET_TRACE), so a replay
 * must reproduce them by installing the same filter. */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static void install_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_uname, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	MT_SYS(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

/* Returns 0 when the filter is in force, else the failed step. */
static int check_filter(void)
{
	struct utsname u;
	long r;

	errno = 0;
	r = syscall(SYS_getppid);
	if (r != -1 || errno != EPERM)
		return 1;
	errno = 0;
	r = syscall(SYS_uname, &u);
	if (r != -1 || errno != ENOSYS)
		return 2;
	if (syscall(SYS_getpid) <= 0)
		return 3;
	return 0;
}

int main(void)
{
	char buf[16];
	long parent;
	int fd, st, step;
	pid_t pid;

	mt_init();
	parent = syscall(SYS_getppid);
	MT_CHECK(parent > 0, "getppid before the filter returned %ld", parent);
	install_filter();
	printf("filter installed\n");

	step = check_filter();
	MT_CHECK(step == 0, "the filter is not in force: step %d, errno %d",
		 step, errno);
	for (int i = 0; i < 100; i++)
		MT_CHECK(check_filter() == 0, "round %d", i);

	/* Unfiltered calls still work, buffered or not. */
	fd = MT_SYS(open("/proc/self/stat", O_RDONLY | O_CLOEXEC));
	MT_CHECK(MT_SYS(read(fd, buf, sizeof(buf))) > 0, "empty read");
	MT_SYS(close(fd));

	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(10 + check_filter());
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 10,
		 "child: status %#x (10 + the failed step)", st);
	printf("getppid -> EPERM and uname -> ENOSYS, in parent and child\n");
	mt_pass();
	return 0;
}
