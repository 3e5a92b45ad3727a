/* mprotect_none_munmap: mprotect(PROT_NONE) on the middle of a mapping
 * (anonymous, and of a file), then munmap of the whole and of parts; a
 * touch of a PROT_NONE page gives SIGSEGV, caught. */
#include "mrr_test.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

static int peek(volatile const char *p)
{
	if (sigsetjmp(env, 1) == 0)
		return *p;
	return -1;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_segv};
	long pg = sysconf(_SC_PAGESIZE);
	char path[64], *a, *f, *b;
	int fd;

	mt_init();
	sigaction(SIGSEGV, &sa, NULL);
	a = MT_SYS(mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	memset(a, 'a', 8 * pg);
	MT_SYS(mprotect(a + 2 * pg, 3 * pg, PROT_NONE));
	MT_CHECK(peek(a + 3 * pg) == -1, "PROT_NONE page readable");
	MT_CHECK(peek(a + 5 * pg) == 'a', "page after PROT_NONE");
	MT_SYS(munmap(a, 8 * pg));
	printf("anonymous: PROT_NONE middle, whole unmapped\n");

	snprintf(path, sizeof(path), "/tmp/mrr-prot_none-%d", (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_SYS(unlink(path));
	MT_SYS(ftruncate(fd, 6 * pg));
	MT_CHECK(pwrite(fd, "file", 4, 4 * pg) == 4, "pwrite");
	f = MT_SYS(mmap(NULL, 6 * pg, PROT_READ, MAP_PRIVATE, fd, 0));
	MT_SYS(mprotect(f + pg, pg, PROT_NONE));
	MT_CHECK(peek(f + pg) == -1, "file PROT_NONE page readable");
	MT_CHECK(peek(f + 4 * pg) == 'f', "file page 4");
	MT_SYS(munmap(f, 3 * pg)); /* part, through the PROT_NONE page */
	MT_CHECK(peek(f + 4 * pg) == 'f', "file page 4 after partial munmap");
	MT_SYS(munmap(f + 3 * pg, 3 * pg));
	printf("file: PROT_NONE page, unmapped in two parts\n");

	/* PROT_NONE first, then back to readable, then unmap */
	b = MT_SYS(mmap(NULL, 4 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0));
	MT_SYS(mprotect(b + pg, pg, PROT_READ | PROT_WRITE));
	b[pg] = 'b';
	MT_SYS(mprotect(b, 4 * pg, PROT_NONE));
	MT_CHECK(peek(b + pg) == -1, "reprotected page readable");
	MT_SYS(munmap(b + pg, 2 * pg));
	MT_SYS(munmap(b, 4 * pg));
	printf("PROT_NONE reservation: unmapped\n");

	/* mprotect over a hole fails with ENOMEM, yet protects the pages
	 * before the hole */
	b = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	memset(b, 'c', 4 * pg);
	MT_SYS(munmap(b + 2 * pg, pg));
	MT_CHECK(mprotect(b, 4 * pg, PROT_NONE) == -1 && errno == ENOMEM,
		 "mprotect over a hole");
	MT_CHECK(peek(b) == -1, "page before the hole still readable");
	MT_CHECK(peek(b + 3 * pg) == 'c', "page after the hole");
	MT_SYS(munmap(b, 4 * pg));
	printf("mprotect over a hole: ENOMEM, pages before it protected\n");
	mt_pass();
	return 0;
}
