/* pipes: pipe, pipe2 flags, write, read, poll readiness and hang-up, a
 * non-blocking read on an empty pipe, and bytes from a child process. */
#include "mrr_test.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

int main(void)
{
	struct pollfd pfd;
	char buf[64];
	int p[2], q[2], st;
	ssize_t n;
	pid_t pid;

	mt_init();
	MT_SYS(pipe(p));
	pfd.fd = p[0];
	pfd.events = POLLIN;
	n = MT_SYS(poll(&pfd, 1, 0));
	MT_CHECK(n == 0, "poll on an empty pipe returned %zd", n);

	n = MT_SYS(write(p[1], "ping", 4));
	MT_CHECK(n == 4, "write returned %zd", n);
	n = MT_SYS(poll(&pfd, 1, 1000));
	MT_CHECK(n == 1 && (pfd.revents & POLLIN), "poll %zd revents %#x", n,
		 pfd.revents);
	n = MT_SYS(read(p[0], buf, sizeof(buf)));
	MT_CHECK(n == 4 && memcmp(buf, "ping", 4) == 0, "read %zd bytes", n);
	printf("read back \"%.4s\" after poll said POLLIN\n", buf);

	MT_SYS(close(p[1]));
	n = MT_SYS(poll(&pfd, 1, 1000));
	MT_CHECK(n == 1 && (pfd.revents & POLLHUP), "poll %zd revents %#x", n,
		 pfd.revents);
	n = MT_SYS(read(p[0], buf, sizeof(buf)));
	MT_CHECK(n == 0, "read after hang-up returned %zd", n);
	MT_SYS(close(p[0]));
	printf("POLLHUP and EOF after the write end closed\n");

	MT_SYS(pipe2(q, O_NONBLOCK | O_CLOEXEC));
	MT_CHECK(MT_SYS(fcntl(q[0], F_GETFD)) & FD_CLOEXEC, "no FD_CLOEXEC");
	MT_CHECK(MT_SYS(fcntl(q[0], F_GETFL)) & O_NONBLOCK, "no O_NONBLOCK");
	n = read(q[0], buf, sizeof(buf));
	MT_CHECK(n == -1 && errno == EAGAIN, "empty non-blocking read gave %zd",
		 n);
	printf("non-blocking read on an empty pipe: EAGAIN\n");

	/* A child writes; the parent waits for it with poll. */
	pid = MT_SYS(fork());
	if (pid == 0) {
		static const char msg[] = "hello from the child";
		_exit(write(q[1], msg, sizeof(msg)) == sizeof(msg) ? 0 : 1);
	}
	MT_SYS(close(q[1]));
	pfd.fd = q[0];
	pfd.events = POLLIN;
	n = MT_SYS(poll(&pfd, 1, 10000));
	MT_CHECK(n == 1 && (pfd.revents & POLLIN), "poll %zd revents %#x", n,
		 pfd.revents);
	n = MT_SYS(read(q[0], buf, sizeof(buf)));
	MT_CHECK(n == 21 && strcmp(buf, "hello from the child") == 0,
		 "read %zd bytes from the child", n);
	printf("child said: %s\n", buf);
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	MT_SYS(close(q[0]));
	mt_pass();
	return 0;
}
