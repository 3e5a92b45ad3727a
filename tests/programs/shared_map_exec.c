/* shared_map_exec: a file mapped shared and writable is changed through
 * the mapping and through write(2), closed, and then executed (a shell
 * script: "Text file busy" if any writer is left). The program also maps
 * its own executable shared, while it runs. */
/* mrr-test: timeout=90 */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>

int main(void)
{
	static const char script[] = "#!/bin/sh\necho from-script: XX\n";
	long pg = sysconf(_SC_PAGESIZE);
	char path[64], *p;
	int fd, status;
	pid_t pid;

	mt_init();
	fd = MT_SYS(open("/proc/self/exe", O_RDONLY));
	p = MT_SYS(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0));
	MT_CHECK(memcmp(p, "\177ELF", 4) == 0, "own executable");
	MT_SYS(munmap(p, pg));
	MT_SYS(close(fd));
	printf("own executable mapped shared\n");
	snprintf(path, sizeof(path), "/tmp/mrr-shared_map_exec-%d",
		 (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0700));
	MT_CHECK(write(fd, script, sizeof(script) - 1) ==
			 (ssize_t)sizeof(script) - 1,
		 "write");
	p = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	memcpy(strstr(p, "XX"), "ok", 2); /* through the mapping */
	MT_CHECK(pwrite(fd, "!", 1, sizeof(script) - 2) == 1, "pwrite");
	MT_SYS(msync(p, pg, MS_SYNC));
	MT_SYS(munmap(p, pg));
	MT_SYS(close(fd));
	printf("script written through a shared mapping\n");

	pid = MT_SYS(fork());
	if (pid == 0) {
		execl(path, path, (char *)NULL);
		fprintf(stderr, "FAIL: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_SYS(unlink(path));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "script status %x", status);
	mt_pass();
	return 0;
}
