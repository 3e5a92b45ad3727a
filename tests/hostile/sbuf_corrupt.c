/* sbuf_corrupt: finds its own syscall buffer (a 1 MiB anonymous mapping that
 * starts with the buffer magic), makes a few buffered calls, then scribbles
 * over the header and makes a traced call so mrr flushes the buffer. mrr
 * must stop recording with a clear error, never crash, and leave a trace
 * that reads up to that point. Without mrr it finds no buffer and exits 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "find_sbuf.h"

int main(void)
{
	uint32_t *hdr = find_buffer();
	char buf[64];
	int fd = open("/proc/self/exe", O_RDONLY);

	for (int i = 0; i < 10; i++)
		if (pread(fd, buf, sizeof(buf), i * 64) != sizeof(buf))
			return 2;
	if (!hdr) {
		printf("no syscall buffer\n");
		return 0;
	}
	printf("syscall buffer found; corrupting it\n");
	fflush(stdout);
	hdr[2] = 0xfffffff0u; /* used: far past the end */
	syscall(SYS_getppid); /* traced: mrr flushes here */
	printf("still running after the corruption\n");
	return 0;
}
