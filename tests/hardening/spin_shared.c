/* spin_shared FILE N: maps FILE (created, one page) shared and writable,
 * writes to it, then spins N million empty loop iterations without a
 * syscall, so that a replay of it sits in user code with its temporary
 * directory (the private copy of FILE) made. Prints "spin_shared ok". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile unsigned long i;
	unsigned long n;
	char *p;
	int fd;

	if (argc != 3)
		return 2;
	n = strtoul(argv[2], NULL, 10) * 1000000ul;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, "spin", 4);
	for (i = 0; i < n; i++)
		;
	printf("spin_shared ok\n");
	return 0;
}
