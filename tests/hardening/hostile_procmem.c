/* hostile_procmem [HOW]: changes its own memory by writing /proc/self/mem
 * (as debuggers and some JITs do), then acts on the new value: it makes as
 * many getpid calls as the value says, and prints it and PASS. A recorder
 * must either carry such a write into the replay or stop the recording with
 * an error (as it does for process_vm_writev); a replay that runs on with
 * the old value diverges. HOW names the file in another way:
 *   double-slash  //proc/self/mem
 *   symlink       a symbolic link to /proc/self/mem in a temp directory
 *   chdir         chdir("/proc/self") then open("mem")
 *   long-path     /proc/./././.../self/mem, longer than 64 bytes
 *   dup           the plain path, written through a dup'd fd */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int value = 3;

static int open_mem(const char *how)
{
	char dir[] = "/tmp/mrr-procmem.XXXXXX", link[64], path[256];
	int fd;

	if (!strcmp(how, "plain") || !strcmp(how, "dup")) {
		fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !strcmp(how, "dup")) {
			int fd2 = dup(fd);

			close(fd);
			fd = fd2;
		}
		return fd;
	}
	if (!strcmp(how, "double-slash"))
		return open("//proc/self/mem", O_RDWR | O_CLOEXEC);
	if (!strcmp(how, "symlink")) {
		if (!mkdtemp(dir))
			return -1;
		snprintf(link, sizeof(link), "%s/m", dir);
		if (symlink("/proc/self/mem", link) < 0)
			return -1;
		fd = open(link, O_RDWR | O_CLOEXEC);
		unlink(link);
		rmdir(dir);
		return fd;
	}
	if (!strcmp(how, "chdir"))
		return chdir("/proc/self") < 0
			       ? -1
			       : open("mem", O_RDWR | O_CLOEXEC);
	if (!strcmp(how, "long-path")) {
		strcpy(path, "/proc");
		for (int i = 0; i < 40; i++)
			strcat(path, "/.");
		strcat(path, "/self/mem");
		return open(path, O_RDWR | O_CLOEXEC);
	}
	fprintf(stderr, "unknown HOW %s\n", how);
	exit(2);
}

int main(int argc, char **argv)
{
	int fd, v = 11, calls = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open_mem(argc > 1 ? argv[1] : "plain");
	if (fd < 0 ||
	    pwrite(fd, &v, sizeof(v), (off_t)(uintptr_t)&value) != sizeof(v)) {
		fprintf(stderr, "FAIL: write to /proc/self/mem: %m\n");
		return 1;
	}
	close(fd);
	if (value != 11) {
		fprintf(stderr, "FAIL: value is %d, not 11\n", value);
		return 1;
	}
	for (int i = 0; i < value; i++)
		calls += syscall(SYS_getpid) > 0;
	printf("value %d after writing /proc/self/mem, %d getpid calls\n",
	       value, calls);
	printf("PASS\n");
	return 0;
}
