/* signal_parent: a program that sends SIGINT, SIGTERM and SIGHUP to its
 * parent. Under `mrr record` the parent is mrr, which must neither end the
 * recording (as the user's Ctrl-C would) nor let the program see anything
 * it would not see natively from a parent that ignores those signals:
 * kill and pidfd_send_signal succeed, and nothing else happens. Natively
 * the parent is the test harness, which such signals would stop, so the
 * program signals its parent only when that parent is mrr, and prints the
 * same lines either way.
 */
#include "mrr_test.h"

#include <signal.h>
#include <sys/syscall.h>

static int parent_is_mrr(pid_t ppid)
{
	char path[64], comm[32] = {0};
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)ppid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return strcmp(comm, "mrr\n") == 0;
}

int main(void)
{
	pid_t ppid = getppid();
	int mrr = parent_is_mrr(ppid), fd;

	mt_init();
	if (mrr) {
		MT_SYS(kill(ppid, SIGINT));
		MT_SYS(kill(ppid, SIGTERM));
		MT_SYS(syscall(SYS_tgkill, ppid, ppid, SIGHUP));
		fd = (int)syscall(SYS_pidfd_open, ppid, 0);
		if (fd >= 0) {
			MT_SYS(syscall(SYS_pidfd_send_signal, fd, SIGINT, NULL,
				       0));
			close(fd);
		}
	}
	printf("signalled the parent: SIGINT, SIGTERM, SIGHUP\n");
	for (int i = 0; i < 200; i++)
		getppid();
	printf("still running\n");
	mt_pass();
	return 0;
}
