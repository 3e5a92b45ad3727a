/* shared_anon_child: a parent and its child share an anonymous MAP_SHARED
 * page. The child writes a message into it and says so on stdout; the
 * parent reads the message after reaping the child. (Also the program the
 * divergence_shared test breaks on purpose, to check that a divergence in
 * a process that shares writable memory says so.) */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/wait.h>

int main(void)
{
	char *page;
	pid_t pid;
	int st;

	mt_init();
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MT_CHECK(page != MAP_FAILED, "mmap: %s", strerror(errno));
	pid = MT_SYS(fork());
	if (pid == 0) {
		strcpy(page, "written by the child");
		printf("child wrote into the shared page\n");
		fflush(stdout);
		_exit(0);
	}
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	MT_CHECK(!strcmp(page, "written by the child"), "page holds '%.32s'",
		 page);
	printf("parent read: %s\n", page);
	mt_pass();
	return 0;
}
