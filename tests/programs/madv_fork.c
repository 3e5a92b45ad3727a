/* madv_fork: advice that acts at fork. A MADV_WIPEONFORK region reads as
 * zeroes in the child while the parent keeps its data; MADV_KEEPONFORK
 * undoes it. A MADV_DONTFORK region is not mapped in the child, which dies
 * of SIGSEGV when it touches it; MADV_DOFORK undoes it. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* Runs fn in a child and returns its wait status. */
static int in_child(void (*fn)(char *, long), char *p, long pg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = MT_SYS(fork());
	if (pid == 0) {
		fn(p, pg);
		fflush(stdout);
		_exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	return status;
}

static void child_reads_wiped(char *p, long pg)
{
	printf("child: wiped region reads %d %d, kept region reads %d\n", p[0],
	       p[pg], p[2 * pg]);
	MT_CHECK(p[0] == 0 && p[pg] == 0, "wiped region holds data");
	MT_CHECK(p[2 * pg] == 42, "region after KEEPONFORK was wiped");
}

static void child_touches_unforked(char *p, long pg)
{
	struct rlimit no_core = {0, 0};

	setrlimit(RLIMIT_CORE, &no_core);
	*(volatile char *)(p + 3 * pg) = 1;
	fprintf(stderr, "FAIL: child survived a store into a DONTFORK "
			"region\n");
	_exit(1);
}

static void child_reads_refork(char *p, long pg)
{
	printf("child: region after DOFORK reads %d\n", p[3 * pg]);
	MT_CHECK(p[3 * pg] == 7, "DOFORK region reads %d", p[3 * pg]);
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int status;
	char *p;

	mt_init();
	/* Pages 0-1 wipe on fork, page 2 wiped then kept, page 3 not
	 * forked. */
	p = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 42;
	p[pg] = 42;
	p[2 * pg] = 42;
	p[3 * pg] = 7;
	MT_SYS(madvise(p, 3 * pg, MADV_WIPEONFORK));
	MT_SYS(madvise(p + 2 * pg, pg, MADV_KEEPONFORK));
	MT_SYS(madvise(p + 3 * pg, pg, MADV_DONTFORK));
	printf("parent: advice given\n");

	status = in_child(child_reads_wiped, p, pg);
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "wipe child status %#x", status);
	printf("parent: after fork reads %d %d %d %d\n", p[0], p[pg], p[2 * pg],
	       p[3 * pg]);
	MT_CHECK(p[0] == 42 && p[pg] == 42 && p[2 * pg] == 42 && p[3 * pg] == 7,
		 "parent lost data");

	status = in_child(child_touches_unforked, p, pg);
	printf("parent: DONTFORK child %s %s\n",
	       WIFSIGNALED(status) ? "killed by" : "exited",
	       WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : "");
	MT_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		 "status %#x", status);

	MT_SYS(madvise(p + 3 * pg, pg, MADV_DOFORK));
	status = in_child(child_reads_refork, p, pg);
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "DOFORK child status %#x", status);

	/* Only private anonymous memory can be wiped on fork. */
	{
		char *s = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0));
		int ret = madvise(s, pg, MADV_WIPEONFORK), err = errno;

		printf("MADV_WIPEONFORK on shared memory: ret=%d errno=%s\n",
		       ret, ret ? strerrorname_np(err) : "0");
		MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret,
			 err);
		MT_SYS(munmap(s, pg));
	}
	MT_SYS(munmap(p, 4 * pg));
	mt_pass();
	return 0;
}
