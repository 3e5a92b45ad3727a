/* sigtimedwait_ignored: signals the program ignores do not cut a
 * rt_sigtimedwait or an epoll_wait short (LTP rt_sigtimedwait01). SIGUSR2
 * is set to SIG_IGN and a child sends it to the parent every 10 ms while
 * the parent waits 300 ms for a signal of an empty set, then 150 ms in
 * epoll_wait on an empty epoll set; the child then exits (its SIGCHLD is
 * ignored by default). Natively the kernel discards both signals and the wait
 * times out (EAGAIN, 0); under ptrace they wake the waiting task, and mrr must
 * not let that show as EINTR. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

int main(void)
{
	struct timespec ts = {.tv_nsec = 300000000};
	sigset_t none;
	siginfo_t si;
	pid_t parent = getpid(), pid;
	long r;
	struct epoll_event ev;
	int st, i, ep;

	mt_init();
	signal(SIGUSR2, SIG_IGN);
	sigemptyset(&none);
	pid = fork();
	MT_CHECK(pid >= 0, "fork");
	if (pid == 0) {
		struct timespec d = {.tv_nsec = 10000000};

		for (i = 0; i < 60; i++) {
			nanosleep(&d, NULL);
			kill(parent, SIGUSR2);
		}
		_exit(0);
	}
	r = syscall(SYS_rt_sigtimedwait, &none, &si, &ts, 8);
	MT_CHECK(r == -1 && errno == EAGAIN,
		 "rt_sigtimedwait returned %ld, errno %d (%s)", r, errno,
		 strerror(errno));
	MT_CHECK(ts.tv_sec == 0 && ts.tv_nsec == 300000000,
		 "the timeout changed to %ld.%09ld", (long)ts.tv_sec,
		 ts.tv_nsec);
	printf("rt_sigtimedwait timed out: EAGAIN\n");
	ep = epoll_create1(EPOLL_CLOEXEC);
	MT_CHECK(ep >= 0, "epoll_create1");
	r = epoll_wait(ep, &ev, 1, 150);
	MT_CHECK(r == 0, "epoll_wait returned %ld, errno %d (%s)", r, errno,
		 strerror(errno));
	printf("epoll_wait timed out: 0\n");
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x",
		 st);
	mt_pass();
	return 0;
}
