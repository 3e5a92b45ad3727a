/* remap_protect: mremap grow/shrink/move and MREMAP_DONTUNMAP, mprotect
 * across several VMAs, the SIGSEGV that follows a mprotect, and SIGBUS past
 * the end of a mapped file. Each fault is caught and recovered. */
#include "mrr_test.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static sigjmp_buf env;
static volatile int last_sig;

static void on_fault(int sig)
{
	last_sig = sig;
	siglongjmp(env, 1);
}

static int touch(volatile char *p)
{
	last_sig = 0;
	if (sigsetjmp(env, 1) == 0)
		*p = 1;
	return last_sig;
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct sigaction sa = {.sa_handler = on_fault};
	char *a, *b, *c, *f, path[64];
	int fd;

	mt_init();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	a = MT_SYS(mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	memset(a, 'a', 2 * pg);
	b = MT_SYS(mremap(a, 2 * pg, 8 * pg, MREMAP_MAYMOVE)); /* grow */
	MT_CHECK(b[pg] == 'a' && b[7 * pg] == 0, "grow kept data");
	b = MT_SYS(mremap(b, 8 * pg, 3 * pg, 0)); /* shrink */
	c = MT_SYS(
		mremap(b, 3 * pg, 3 * pg, MREMAP_MAYMOVE | MREMAP_DONTUNMAP));
	MT_CHECK(c != b && c[0] == 'a', "DONTUNMAP moved the data");
	MT_CHECK(b[0] == 0, "the old range reads zero after DONTUNMAP");
	printf("mremap: grow, shrink, DONTUNMAP ok\n");

	/* split the mapping into three VMAs, then protect across them */
	MT_SYS(mprotect(c + pg, pg, PROT_READ));
	MT_SYS(mprotect(c, 3 * pg, PROT_READ));
	MT_CHECK(touch(c) == SIGSEGV && touch(c + 2 * pg) == SIGSEGV,
		 "writes fault after mprotect");
	MT_SYS(mprotect(c, 3 * pg, PROT_READ | PROT_WRITE));
	MT_CHECK(touch(c + pg) == 0, "write works again");
	printf("mprotect across VMAs: SIGSEGV then ok\n");

	snprintf(path, sizeof(path), "/tmp/mrr-remap-%d", (int)getpid());
	fd = MT_SYS(open(path, O_RDWR | O_CREAT | O_TRUNC, 0600));
	MT_SYS(unlink(path));
	MT_SYS(ftruncate(fd, pg / 2));
	f = MT_SYS(
		mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	MT_CHECK(touch(f) == 0, "inside the file");
	MT_CHECK(touch(f + pg) == SIGBUS, "past the end: SIGBUS (got %d)",
		 last_sig);
	MT_SYS(msync(f, pg, MS_SYNC));
	printf("SIGBUS past end of file ok\n");
	mt_pass();
	return 0;
}
