/* sysv_shm_separate: two processes attach one SysV segment separately (the
 * child attaches after the fork, by id), write into it in turn, and each
 * sees the other's writes (issue 10: at replay each attach got a mapping of
 * its own).
 *
 * Each side tells the other through a pipe right after its store, with no
 * other syscall in between: once both have attached the segment, mrr runs
 * the two processes one at a time (src/record/shared_groups.c), so the
 * store is recorded in order with the other's read of the pipe. */
#include "mrr_test.h"

#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>

int main(void)
{
	int id, st, to_parent[2], to_child[2];
	char *p, c;
	pid_t pid;

	mt_init();
	id = MT_SYS(shmget(IPC_PRIVATE, 3 * 4096, IPC_CREAT | 0600));
	MT_SYS(pipe(to_parent));
	MT_SYS(pipe(to_child));
	pid = MT_SYS(fork());
	if (pid == 0) {
		char *q = shmat(id, NULL, 0);

		if (q == (void *)-1)
			_exit(2);
		strcpy(q + 4096, "from the child");
		if (write(to_parent[1], "w", 1) != 1)
			_exit(3);
		/* wait for the parent's answer in the segment */
		if (read(to_child[0], &c, 1) != 1)
			_exit(4);
		if (strcmp(q + 8192, "from the parent"))
			_exit(6);
		if (shmdt(q))
			_exit(5);
		q = shmat(id, NULL, SHM_RDONLY);
		if (q == (void *)-1)
			_exit(5);
		_exit(strcmp(q + 8192, "from the parent") ? 6 : 0);
	}
	p = MT_SYS(shmat(id, NULL, 0));
	MT_SYS(read(to_parent[0], &c, 1));
	MT_CHECK(!strcmp(p + 4096, "from the child"), "parent sees '%.20s'",
		 p + 4096);
	printf("parent sees the child's write: %s\n", p + 4096);
	strcpy(p + 8192, "from the parent");
	MT_SYS(write(to_child[1], "p", 1));
	MT_SYS(shmdt(p));
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	printf("the child saw the parent's write\n");
	MT_SYS(shmctl(id, IPC_RMID, NULL));
	mt_pass();
	return 0;
}
