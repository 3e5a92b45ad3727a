/* job_control: stop signals between the program's own processes.
 *   1. A child blocked in read(2) on a pipe gets SIGTSTP from its parent:
 *      the parent's waitpid(WUNTRACED) sees it stopped by SIGTSTP, SIGCONT
 *      makes waitpid(WCONTINUED) see it continued, and its read, restarted
 *      by the kernel, returns what the parent then writes.
 *   2. The same through a pidfd: pidfd_open, pidfd_send_signal(SIGTTIN),
 *      waitid(P_PIDFD, WSTOPPED), pidfd_send_signal(SIGCONT),
 *      waitid(P_PIDFD, WCONTINUED), poll on the pidfd for the exit and
 *      waitid(P_PIDFD, WEXITED).
 *   3. A child that stops itself with SIGSTOP, seen with WNOHANG polling.
 * Each child moves to a process group of its own, whose parent (the
 * program) is in another group of the same session: the group is not
 * orphaned, so the kernel does not discard SIGTSTP and SIGTTIN.
 */
#include "mrr_test.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

struct kid {
	pid_t pid;
	int to_kid, from_kid;
};

/* The child: tells the parent it runs, then blocks in read until the
 * parent writes its exit status. */
static struct kid spawn(void)
{
	int down[2], up[2];
	struct kid k;
	char c;

	MT_SYS(pipe(down));
	MT_SYS(pipe(up));
	k.pid = MT_SYS(fork());
	if (k.pid == 0) {
		close(down[1]);
		close(up[0]);
		MT_SYS(setpgid(0, 0));
		MT_SYS(write(up[1], "r", 1));
		MT_CHECK(read(down[0], &c, 1) == 1, "child read: %s",
			 strerror(errno));
		_exit(c - '0');
	}
	close(down[0]);
	close(up[1]);
	k.to_kid = down[1];
	k.from_kid = up[0];
	MT_CHECK(read(k.from_kid, &c, 1) == 1 && c == 'r', "child start");
	return k;
}

static void by_kill(void)
{
	struct kid k = spawn();
	int st;

	MT_SYS(kill(k.pid, SIGTSTP));
	MT_CHECK(MT_SYS(waitpid(k.pid, &st, WUNTRACED)) == k.pid, "waitpid");
	MT_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTSTP,
		 "expected a stop by SIGTSTP, status %#x", st);
	printf("kill: child stopped by SIGTSTP\n");
	MT_SYS(kill(k.pid, SIGCONT));
	MT_CHECK(MT_SYS(waitpid(k.pid, &st, WCONTINUED)) == k.pid, "waitpid");
	MT_CHECK(WIFCONTINUED(st), "expected continued, status %#x", st);
	printf("kill: child continued\n");
	MT_SYS(write(k.to_kid, "3", 1));
	MT_CHECK(MT_SYS(waitpid(k.pid, &st, 0)) == k.pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3,
		 "expected exit 3, status %#x", st);
	printf("kill: child exited 3\n");
}

static void by_pidfd(void)
{
	struct kid k = spawn();
	struct pollfd p;
	siginfo_t si;
	int fd;

	fd = (int)syscall(SYS_pidfd_open, k.pid, 0);
	if (fd < 0 && errno == ENOSYS) {
		printf("pidfd: no pidfd_open here\n");
		kill(k.pid, SIGKILL);
		waitpid(k.pid, NULL, 0);
		return;
	}
	MT_CHECK(fd >= 0, "pidfd_open: %s", strerror(errno));
	MT_SYS(syscall(SYS_pidfd_send_signal, fd, SIGTTIN, NULL, 0));
	memset(&si, 0, sizeof(si));
	MT_SYS(syscall(SYS_waitid, P_PIDFD, fd, &si, WSTOPPED, NULL));
	MT_CHECK(si.si_pid == k.pid && si.si_code == CLD_STOPPED &&
			 si.si_status == SIGTTIN,
		 "waitid(WSTOPPED): pid %d code %d status %d", si.si_pid,
		 si.si_code, si.si_status);
	printf("pidfd: child stopped by SIGTTIN\n");
	MT_SYS(syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0));
	memset(&si, 0, sizeof(si));
	MT_SYS(syscall(SYS_waitid, P_PIDFD, fd, &si, WCONTINUED, NULL));
	MT_CHECK(si.si_code == CLD_CONTINUED, "waitid(WCONTINUED): code %d",
		 si.si_code);
	printf("pidfd: child continued\n");
	MT_SYS(write(k.to_kid, "4", 1));
	p.fd = fd;
	p.events = POLLIN;
	MT_CHECK(MT_SYS(poll(&p, 1, 10000)) == 1 && (p.revents & POLLIN),
		 "poll on the pidfd: revents %#x", p.revents);
	memset(&si, 0, sizeof(si));
	MT_SYS(syscall(SYS_waitid, P_PIDFD, fd, &si, WEXITED, NULL));
	MT_CHECK(si.si_code == CLD_EXITED && si.si_status == 4,
		 "waitid(WEXITED): code %d status %d", si.si_code,
		 si.si_status);
	printf("pidfd: child exited 4\n");
	close(fd);
}

static void self_stop(void)
{
	pid_t pid, got;
	int st, polls = 0;

	pid = MT_SYS(fork());
	if (pid == 0) {
		raise(SIGSTOP);
		_exit(6);
	}
	/* WNOHANG until the stop shows (it can take a moment) */
	while ((got = MT_SYS(waitpid(pid, &st, WUNTRACED | WNOHANG))) == 0) {
		MT_CHECK(++polls < 100000, "the child never stopped");
		usleep(100);
	}
	MT_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
		 "expected a stop by SIGSTOP, status %#x", st);
	printf("self: child stopped by SIGSTOP\n");
	MT_SYS(kill(pid, SIGCONT));
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 6,
		 "expected exit 6, status %#x", st);
	printf("self: child exited 6\n");
}

int main(void)
{
	mt_init();
	by_kill();
	by_pidfd();
	self_stop();
	mt_pass();
	return 0;
}
