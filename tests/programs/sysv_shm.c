/* sysv_shm: a SysV shared memory segment attached before fork is shared
 * with the child; IPC_STAT, a read-only attach, and shmdt. */
#include "mrr_test.h"

#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>

int main(void)
{
	struct shmid_ds ds;
	int id, status;
	char *p, *ro;
	pid_t pid;

	mt_init();
	id = MT_SYS(shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600));
	p = MT_SYS(shmat(id, NULL, 0));
	strcpy(p, "parent");
	pid = MT_SYS(fork());
	if (pid == 0) {
		MT_CHECK(strcmp(p, "parent") == 0, "child sees '%s'", p);
		strcpy(p + 4096, "child");
		_exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %x",
		 status);
	MT_CHECK(strcmp(p + 4096, "child") == 0, "parent sees '%s'", p + 4096);
	MT_SYS(shmctl(id, IPC_STAT, &ds));
	MT_CHECK(ds.shm_segsz == 8192, "size %zu", (size_t)ds.shm_segsz);
	ro = MT_SYS(shmat(id, NULL, SHM_RDONLY));
	MT_CHECK(strcmp(ro + 4096, "child") == 0, "read-only attach sees '%s'",
		 ro + 4096);
	printf("segment of %zu bytes: '%s' and '%s'\n", (size_t)ds.shm_segsz, p,
	       p + 4096);
	MT_SYS(shmdt(ro));
	MT_SYS(shmdt(p));
	MT_SYS(shmctl(id, IPC_RMID, NULL));
	mt_pass();
	return 0;
}
