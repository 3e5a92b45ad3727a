/* shared_mprotect_fork: a MAP_SHARED anonymous mapping inherited by a
 * child; the child mprotects part of it read-only and exits, the parent
 * mprotects its own view, and both keep seeing each other's stores where
 * they can write. The parent waits on the child before each step: the
 * order is fixed. */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/wait.h>

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int status;
	char *p;
	pid_t pid;

	mt_init();
	p = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	strcpy(p, "parent");
	pid = MT_SYS(fork());
	if (pid == 0) {
		MT_SYS(mprotect(p + 2 * pg, 2 * pg, PROT_READ));
		MT_CHECK(strcmp(p, "parent") == 0, "child sees '%s'", p);
		strcpy(p + pg, "child");
		MT_SYS(mprotect(p, pg, PROT_NONE));
		_exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %x",
		 status);
	MT_CHECK(strcmp(p + pg, "child") == 0, "parent sees '%s'", p + pg);
	strcpy(p + 2 * pg, "still writable here");
	MT_SYS(mprotect(p, 4 * pg, PROT_READ));
	printf("child wrote '%s'; parent '%s'\n", p + pg, p + 2 * pg);

	pid = MT_SYS(fork());
	if (pid == 0) {
		/* inherits the read-only view */
		MT_CHECK(strcmp(p + pg, "child") == 0, "child 2 sees '%s'",
			 p + pg);
		MT_SYS(mprotect(p + 3 * pg, pg, PROT_READ | PROT_WRITE));
		strcpy(p + 3 * pg, "child 2");
		_exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child 2 %x",
		 status);
	MT_CHECK(strcmp(p + 3 * pg, "child 2") == 0, "parent sees '%s'",
		 p + 3 * pg);
	printf("second child wrote '%s'\n", p + 3 * pg);
	MT_SYS(munmap(p, 4 * pg));
	mt_pass();
	return 0;
}
