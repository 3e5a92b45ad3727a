/* shared_fork_wait: a parent with a writable MAP_SHARED region forks
 * children one after another and waits for each at once, as stress-ng
 * does for its workers. Processes that share writable memory run one at a
 * time under mrr, so each child joins its parent's group; the child's
 * first stop often reaches mrr before the parent's fork event, and the
 * child must then start as a new task, not as one that took a signal
 * (the replay diverged there: "expected signal SIGTRAP"). Each child
 * adds its index to a counter in the region. A busy process that does
 * not share the region keeps mrr handling its stops, so that the parent's
 * fork event and the child's first stop are often both pending when mrr
 * looks (it then sees the newer task, the child, first). */
#include "mrr_test.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define CHILDREN 40

int main(void)
{
	volatile long *sum;
	long want = 0;
	int i, status;
	struct utsname u;
	pid_t pid, busy;

	mt_init();
	busy = MT_SYS(fork());
	if (busy == 0)
		for (;;)
			uname(&u); /* a traced call, again and again */
	sum = MT_SYS(mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	for (i = 1; i <= CHILDREN; i++) {
		pid = MT_SYS(fork());
		if (pid == 0) {
			*sum += i;
			_exit(getpid() > 0 ? 0 : 1);
		}
		MT_SYS(waitpid(pid, &status, 0));
		MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "child %d exited with status 0x%x", i, status);
		want += i;
	}
	MT_SYS(kill(busy, SIGKILL));
	MT_SYS(waitpid(busy, &status, 0));
	MT_CHECK(*sum == want, "sum %ld, expected %ld", *sum, want);
	printf("children added up to %ld\n", *sum);
	mt_pass();
	return 0;
}
