/* hostile_nondumpable: makes itself non-dumpable (PR_SET_DUMPABLE 0), as
 * programs that hold secrets do, which as an unprivileged user hides its
 * /proc files from mrr. Then it writes to stdout, maps and reads a file,
 * checks that a forked child inherits the setting, and that an execve of
 * itself makes it dumpable again. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	char *p;
	int fd, st;
	pid_t pid;

	mt_init();
	if (argc > 1) {
		MT_CHECK(prctl(PR_GET_DUMPABLE) == 1,
			 "not dumpable after execve");
		printf("dumpable again after execve\n");
		mt_pass();
		return 0;
	}
	MT_CHECK(prctl(PR_GET_DUMPABLE) == 1, "not dumpable at start");
	MT_SYS(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
	MT_CHECK(prctl(PR_GET_DUMPABLE) == 0, "still dumpable");
	printf("not dumpable any more\n");

	fd = MT_SYS(open(argv[0], O_RDONLY | O_CLOEXEC));
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	MT_CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	MT_CHECK(memcmp(p, "\177ELF", 4) == 0, "the mapping is no ELF file");
	printf("mapped its own executable: %.3s\n", p + 1);
	MT_SYS(munmap(p, 4096));
	MT_SYS(close(fd));

	pid = MT_SYS(fork());
	if (pid == 0) {
		printf("child: dumpable %d\n", prctl(PR_GET_DUMPABLE));
		_exit(prctl(PR_GET_DUMPABLE) == 0 ? 0 : 1);
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "the child is dumpable: status %#x", st);
	execl("/proc/self/exe", argv[0], "again", (char *)NULL);
	MT_CHECK(0, "execl: %s", strerror(errno));
	return 1;
}
