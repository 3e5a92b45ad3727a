/* shared_maps: MAP_SHARED memory shared with a child: anonymous, /dev/zero,
 * a memfd, and a memfd written with write(2) after mapping. The child
 * writes, the parent reads after waiting: correct within the recorded
 * process tree. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int zero, mfd, status;
	char *anon, *dz, *mem;
	pid_t pid;

	mt_init();
	anon = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	zero = MT_SYS(open("/dev/zero", O_RDWR));
	dz = MT_SYS(
		mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, zero, 0));
	mfd = MT_SYS(memfd_create("mrr-shared", 0));
	MT_SYS(ftruncate(mfd, 2 * pg));
	mem = MT_SYS(
		mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0));
	MT_CHECK(dz[0] == 0 && mem[0] == 0 && anon[0] == 0, "not zeroed");

	pid = MT_SYS(fork());
	if (pid == 0) {
		strcpy(anon, "child-anon");
		strcpy(dz, "child-devzero");
		strcpy(mem, "child-memfd");
		_exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %x",
		 status);
	MT_CHECK(strcmp(anon, "child-anon") == 0, "anon holds '%s'", anon);
	MT_CHECK(strcmp(dz, "child-devzero") == 0, "devzero holds '%s'", dz);
	MT_CHECK(strcmp(mem, "child-memfd") == 0, "memfd holds '%s'", mem);
	printf("child wrote: %s %s %s\n", anon, dz, mem);

	/* write(2) into the memfd shows through the mapping */
	MT_CHECK(pwrite(mfd, "via-pwrite", 10, pg) == 10, "pwrite");
	MT_CHECK(memcmp(mem + pg, "via-pwrite", 10) == 0,
		 "mapping misses pwrite: '%.10s'", mem + pg);
	printf("memfd page 1 after pwrite: %.10s\n", mem + pg);
	mt_pass();
	return 0;
}
