/* job_orphan: a child stops itself with SIGSTOP and its parent, the
 * program's first process, exits without continuing it. Natively the
 * child's process group is then orphaned, and the kernel sends it SIGHUP
 * and SIGCONT, which kill it. Under mrr the child is in mrr's own process
 * group, which never becomes orphaned while mrr runs: mrr must notice
 * that nothing left in the recording can continue the child and do what
 * the kernel would, instead of waiting for it for ever.
 */
#include "mrr_test.h"

#include <signal.h>
#include <time.h>

int main(void)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	pid_t pid;

	mt_init();
	pid = MT_SYS(fork());
	if (pid == 0) {
		raise(SIGSTOP);
		/* SIGHUP ends it before it gets here */
		printf("the orphaned child went on\n");
		_exit(0);
	}
	nanosleep(&ts, NULL);
	printf("the parent leaves its child stopped\n");
	mt_pass();
	return 0;
}
