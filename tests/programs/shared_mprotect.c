/* shared_mprotect: a parent and its child share a MAP_SHARED anonymous
 * region and race on it (issue 10). The child polls a flag in the region
 * with sched_yield; the parent mprotects another page of it read-only and
 * back, then raises the flag without a syscall in between; the child sees
 * it, writes its answer into the region and exits. How many times the
 * child yields depends on how the two ran: mrr must record that order
 * (it runs processes that share writable memory one at a time, as it runs
 * threads) so that the replay gives the child the same flag at the same
 * yield. Three rounds, the parent working a little longer each time. */
#include "mrr_test.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define ROUNDS 3

struct shared {
	volatile int flag;
	volatile int answer;
	volatile long yields;
};

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct shared *s;
	char *region;
	int round, status;
	pid_t pid;

	mt_init();
	region = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	s = (struct shared *)region;
	for (round = 1; round <= ROUNDS; round++) {
		s->flag = 0;
		s->answer = 0;
		s->yields = 0;
		pid = MT_SYS(fork());
		if (pid == 0) {
			while (!s->flag) {
				sched_yield();
				s->yields++;
			}
			s->answer = s->flag * 10;
			_exit(0);
		}
		/* a little work, then the protection change, then the flag:
		 * the child may have yielded any number of times meanwhile */
		for (volatile int i = 0; i < 1000 * round; i++)
			;
		MT_SYS(mprotect(region + 2 * pg, pg, PROT_READ));
		MT_SYS(mprotect(region + 2 * pg, pg, PROT_READ | PROT_WRITE));
		region[2 * pg] = (char)round;
		s->flag = round;
		MT_SYS(waitpid(pid, &status, 0));
		MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			 "child %x", status);
		MT_CHECK(s->answer == round * 10, "round %d: answer %d", round,
			 s->answer);
		printf("round %d: the child answered %d\n", round, s->answer);
	}
	MT_SYS(munmap(region, 4 * pg));
	mt_pass();
	return 0;
}
