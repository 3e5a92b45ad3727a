/* hostile_procmem: changes its own memory by writing /proc/self/mem (as
 * debuggers and some JITs do), then acts on the new value: it makes as many
 * getpid calls as the value says, and prints it and PASS. A recorder must
 * either carry such a write into the replay or stop the recording with an
 * error (as it does for process_vm_writev); a replay that runs on with the
 * old value diverges. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int value = 3;

int main(void)
{
	int fd, v = 11, calls = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
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
