/* memfd_versions: a parent and a child map one memfd at different times,
 * the file having changed in between (so the trace stores two versions of
 * it); a store through the parent's mapping must show in the child's, as
 * both map one file. Two pipes order the two processes. */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/wait.h>

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd, up[2], down[2], status;
	char *mine, *theirs, c;
	pid_t pid;

	mt_init();
	fd = MT_SYS(memfd_create("mrr-versions", 0));
	MT_SYS(ftruncate(fd, pg));
	MT_CHECK(pwrite(fd, "one", 3, 0) == 3, "pwrite");
	MT_SYS(pipe(up));
	MT_SYS(pipe(down));
	pid = MT_SYS(fork());
	if (pid == 0) {
		theirs = MT_SYS(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0));
		MT_CHECK(memcmp(theirs, "one", 3) == 0, "child maps '%.3s'",
			 theirs);
		/* No traced call between the load above and the pipe write:
		 * the parent's pwrite into the memfd the child maps makes mrr
		 * run the two one at a time (src/record/shared_groups.c),
		 * ordering the pwrite after this load. */
		MT_CHECK(write(up[1], "m", 1) == 1, "child write");
		MT_CHECK(read(down[0], &c, 1) == 1, "child read");
		printf("child sees '%.3s' and '%.5s'\n", theirs, theirs + 100);
		MT_CHECK(memcmp(theirs, "two", 3) == 0 &&
				 memcmp(theirs + 100, "store", 5) == 0,
			 "child sees '%.3s' '%.5s'", theirs, theirs + 100);
		_exit(0);
	}
	MT_CHECK(read(up[0], &c, 1) == 1, "parent read");
	MT_CHECK(pwrite(fd, "two", 3, 0) == 3, "pwrite");
	mine = MT_SYS(
		mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	memcpy(mine + 100, "store", 5);
	/* No traced call between the store and the pipe write: once both
	 * map the memfd, mrr runs the two processes one at a time
	 * (src/record/shared_groups.c), so the store is recorded in order
	 * with the child's read of the pipe. */
	MT_CHECK(write(down[1], "s", 1) == 1, "parent write");
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %x",
		 status);
	mt_pass();
	return 0;
}
