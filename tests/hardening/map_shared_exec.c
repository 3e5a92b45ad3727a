/* map_shared_exec FILE: maps FILE shared, readable, writable and
 * executable, prints its first line and writes "changed by the program\n"
 * over its start. trace_dir.sh checks that the trace keeps what was
 * mapped (a copy, never a link to FILE) and that replaying it never writes
 * to FILE. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char msg[] = "changed by the program\n";
	char *p, *nl;
	int fd;

	if (argc != 2)
		return 64;
	fd = open(argv[1], O_RDWR);
	if (fd < 0)
		return 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED, fd,
		 0);
	if (p == MAP_FAILED)
		return 1;
	nl = memchr(p, '\n', 4096);
	printf("mapped: %.*s\n", nl ? (int)(nl - p) : 0, p);
	memcpy(p, msg, sizeof(msg) - 1);
	if (msync(p, 4096, MS_SYNC))
		return 1;
	printf("wrote it\n");
	return 0;
}
