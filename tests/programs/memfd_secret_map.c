/* memfd_secret_map: memory from memfd_secret(2), which only the program
 * can read (stress-ng's secretmem stressor): sized with ftruncate, mapped
 * shared, filled and checked, shared with a forked child that adds its
 * own bytes, and unmapped a page at a time.
 * mrr cannot read that memory; the replay maps zeros in its place (the
 * first mapping of such a file holds nothing else) and the program's own
 * writes fill it again. Without memfd_secret (ENOSYS, or disabled) the
 * program says so and passes. What mrr refuses (a traced syscall that
 * writes into such memory, a second mapping of the file) is in
 * tests/hardening/hostile_cmds.c.
 */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define NPAGES 4

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE), fd, i;
	int st;
	unsigned char *p;
	pid_t pid;

	mt_init();
	fd = syscall(SYS_memfd_secret, 0);
	if (fd < 0) {
		printf("memfd_secret: %s\n", strerror(errno));
		mt_pass();
		return 0;
	}
	MT_SYS(ftruncate((int)fd, NPAGES * pg));
	p = mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd,
		 0);
	if (p == MAP_FAILED) { /* over RLIMIT_MEMLOCK, say */
		printf("mmap of a memfd_secret: %s\n", strerror(errno));
		mt_pass();
		return 0;
	}
	MT_SYS(close((int)fd));
	for (i = 0; i < NPAGES * pg; i++)
		MT_CHECK(p[i] == 0, "byte %ld of a new secret mapping is %d", i,
			 p[i]);
	for (i = 0; i < NPAGES * pg; i++)
		p[i] = (unsigned char)(i * 7);
	printf("filled %ld secret bytes\n", NPAGES * pg);

	pid = MT_SYS(fork());
	if (pid == 0) {
		for (i = 0; i < pg; i++)
			MT_CHECK(p[i] == (unsigned char)(i * 7),
				 "the child sees byte %ld as %d", i, p[i]);
		memset(p + pg, 'c', pg); /* shared: the parent sees it */
		_exit(0);
	}
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child 0x%x", st);
	for (i = 0; i < pg; i++)
		MT_CHECK(p[pg + i] == 'c', "the child's byte %ld is %d", i,
			 p[pg + i]);
	printf("the child's writes are shared\n");
	for (i = NPAGES - 1; i >= 0; i--)
		MT_SYS(munmap(p + i * pg, pg));
	mt_pass();
	return 0;
}
