/* map_past_eof: file mappings longer than their file (by mmap, and by
 * mremap of a shorter one), read after the file grew: by ftruncate, by
 * pwrite past the end, and by fallocate. Where the recording read data
 * the replay must not get SIGBUS. Reading a page wholly past the end
 * before it grew gives SIGBUS, caught, in both runs. */
#include "mrr_test.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

/* The byte at p, or -1 for SIGBUS. */
static int peek(volatile const char *p)
{
	if (sigsetjmp(env, 1) == 0)
		return *p;
	return -1;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_bus};
	long pg = sysconf(_SC_PAGESIZE);
	char path[64], *shr, *prv, *rem;
	int fd;

	mt_init();
	sigaction(SIGBUS, &sa, NULL);
	snprintf(path, sizeof(path), "/tmp/mrr-map_past_eof-%d", (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_SYS(unlink(path));
	MT_CHECK(pwrite(fd, "first", 5, 0) == 5, "pwrite");

	/* one page of file, four pages of mapping */
	shr = MT_SYS(
		mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	prv = MT_SYS(mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE, fd, 0));
	rem = MT_SYS(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0));
	rem = MT_SYS(mremap(rem, pg, 4 * pg, MREMAP_MAYMOVE));
	MT_CHECK(peek(shr + pg) == -1, "page 1 before growing");
	MT_CHECK(peek(prv + 2 * pg) == -1, "page 2 before growing");
	printf("before growing: pages past the end give SIGBUS\n");

	MT_SYS(ftruncate(fd, 2 * pg));
	MT_CHECK(peek(shr + pg) == 0 && peek(prv + pg) == 0 &&
			 peek(rem + pg) == 0,
		 "page 1 after ftruncate");
	shr[pg] = 's'; /* reaches the file and the other mappings */
	MT_CHECK(peek(prv + pg) == 's' && peek(rem + pg) == 's',
		 "store through the shared mapping");
	printf("ftruncate: page 1 reads %c through all three\n", prv[pg]);

	MT_CHECK(pwrite(fd, "third", 5, 2 * pg) == 5, "pwrite past the end");
	MT_CHECK(peek(shr + 2 * pg) == 't' && peek(prv + 2 * pg) == 't' &&
			 peek(rem + 2 * pg + 1) == 'h',
		 "page 2 after pwrite");
	printf("pwrite: page 2 reads %.5s\n", rem + 2 * pg);

	MT_SYS(fallocate(fd, 0, 3 * pg, pg));
	MT_CHECK(peek(shr + 3 * pg) == 0 && peek(rem + 4 * pg - 1) == 0,
		 "page 3 after fallocate");
	printf("fallocate: page 3 reads zero\n");

	MT_SYS(ftruncate(fd, pg));
	MT_CHECK(peek(shr + 2 * pg) == -1 && peek(prv + pg) == -1,
		 "shrunk again");
	printf("shrunk: pages past the end give SIGBUS again\n");
	mt_pass();
	return 0;
}
