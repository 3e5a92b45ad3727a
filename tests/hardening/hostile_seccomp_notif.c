/* hostile_seccomp_notif: a seccomp filter with a user-space supervisor.
 * The process installs a filter that hands getppid to a listener
 * (SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER); a forked
 * child supervises it and answers 777. The parent checks the answer and
 * prints PASS. mrr cannot replay a supervisor's answers: it must refuse
 * cleanly (refused.sh), not record a trace whose replay never ends. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void supervise(int fd)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		_exit(2);
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.val = req.data.nr == SYS_getppid ? 777 : -1;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		_exit(3);
	_exit(0);
}

int main(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
	int fd, st;
	long r;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("installing a filter with a supervisor\n");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return 1;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0) {
		fprintf(stderr, "FAIL: seccomp: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0)
		supervise(fd);
	close(fd);
	r = syscall(SYS_getppid);
	if (r != 777 || waitpid(pid, &st, 0) != pid || st != 0) {
		fprintf(stderr, "FAIL: getppid %ld, supervisor %#x\n", r, st);
		return 1;
	}
	printf("the supervisor answered getppid with %ld\nPASS\n", r);
	return 0;
}
