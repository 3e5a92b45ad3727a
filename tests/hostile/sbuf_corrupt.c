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

static uint32_t *find_buffer(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	uint32_t *found = NULL;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end, a;
		char perms[8];
		int name = 0;

		/* anonymous read-write mappings; the kernel may have merged
		 * the buffer with its neighbours, so look at every page */
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end,
			   perms, &name) < 3 ||
		    strncmp(perms, "rw", 2) ||
		    (name && line[name] && line[name] != '\n'))
			continue;
		for (a = start; a < end && !found; a += 4096)
			if (((uint32_t *)a)[0] == 0x4642524du && /* "MRBF" */
			    ((uint32_t *)a)[1] >= 1)
				found = (uint32_t *)a;
		if (found)
			break;
	}
	if (f)
		fclose(f);
	return found;
}

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
