/* sbuf_open_lease: a child's open of a file on which its parent holds a
 * write lease waits until the parent, told by SIGIO, gives the lease up
 * (LTP fcntl33). The syscall buffer opens regular files untraced, with
 * O_NONBLOCK so that nothing can block there; the lease then makes that
 * open fail with EWOULDBLOCK, which the program must never see: the
 * buffer takes the traced path, where the open waits as natively. */
#include "mrr_test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t broken;

static void on_sigio(int sig)
{
	(void)sig;
	broken = 1;
}

int main(void)
{
	char path[] = "/tmp/mrr-lease-XXXXXX";
	struct sigaction sa;
	sigset_t none, io;
	int fd, status;
	pid_t pid;

	mt_init();
	fd = MT_SYS(mkstemp(path));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigio;
	MT_SYS(sigaction(SIGIO, &sa, NULL));
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	MT_SYS(sigprocmask(SIG_BLOCK, &io, &none));
	if (fcntl(fd, F_SETLEASE, F_WRLCK) < 0) {
		/* no leases here (a file system without them) */
		printf("no lease: %s\n", strerror(errno));
		unlink(path);
		mt_pass();
		return 0;
	}
	pid = MT_SYS(fork());
	if (pid == 0) {
		int cfd = open(path, O_RDONLY);

		if (cfd < 0) {
			printf("child: open failed: %s\n", strerror(errno));
			_exit(1);
		}
		printf("child: open waited for the lease\n");
		_exit(0);
	}
	while (!broken)
		sigsuspend(&none);
	printf("parent: the lease is being broken\n");
	MT_SYS(fcntl(fd, F_SETLEASE, F_UNLCK));
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child status 0x%x", status);
	unlink(path);
	mt_pass();
	return 0;
}
