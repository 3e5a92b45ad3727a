/* shared_after_fork: a parent and its child map the same memory only
 * after the fork, and race on it (issue 10): a memfd both map MAP_SHARED,
 * then a SysV segment both attach by id. The child polls a flag there with
 * sched_yield until the parent, which waited (polling too) for the child
 * to map it, raises it between two syscalls; how many
 * times it yields depends on how the two ran. mrr runs the two one at a
 * time from the second mapping on (src/record/shared_groups.c), so that
 * the replay gives the child the flag at the same yield. */
#include "mrr_test.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

struct shared {
	volatile int flag;
	volatile int answer;
	volatile int ready;
};

/* The child's side: say it is there, poll, answer. */
static void child(struct shared *s)
{
	s->ready = 1;
	while (!s->flag)
		sched_yield();
	s->answer = s->flag * 10;
	_exit(0);
}

static void parent(struct shared *s, pid_t pid, int round)
{
	int status;

	while (!s->ready) /* the child has mapped it too */
		sched_yield();
	for (volatile int i = 0; i < 20000 * round; i++)
		;
	s->flag = round;
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %x",
		 status);
	MT_CHECK(s->answer == round * 10, "round %d: answer %d", round,
		 s->answer);
	printf("round %d: the child answered %d\n", round, s->answer);
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct shared *s;
	int fd, id;
	pid_t pid;

	mt_init();
	/* a memfd, mapped by each after the fork */
	fd = MT_SYS(memfd_create("mrr-after-fork", 0));
	MT_SYS(ftruncate(fd, pg));
	pid = MT_SYS(fork());
	if (pid == 0) {
		s = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		MT_CHECK(s != MAP_FAILED, "child mmap: %s", strerror(errno));
		child(s);
	}
	s = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	parent(s, pid, 1);
	MT_SYS(munmap(s, pg));
	close(fd);

	/* a SysV segment, attached by each after the fork */
	id = MT_SYS(shmget(IPC_PRIVATE, pg, IPC_CREAT | 0600));
	pid = MT_SYS(fork());
	if (pid == 0) {
		s = shmat(id, NULL, 0);
		MT_CHECK(s != (void *)-1, "child shmat: %s", strerror(errno));
		child(s);
	}
	s = shmat(id, NULL, 0);
	MT_CHECK(s != (void *)-1, "shmat: %s", strerror(errno));
	parent(s, pid, 2);
	MT_SYS(shmdt(s));
	MT_SYS(shmctl(id, IPC_RMID, NULL));
	mt_pass();
	return 0;
}
