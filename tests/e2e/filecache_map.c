/* filecache_map FILE: maps FILE (private, read-only) and prints its first
 * line from the mapping, so that a replay prints whatever the trace's
 * stored copy of FILE holds. filecache.sh uses it to catch a stale copy. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *p;
	struct stat st;
	size_t n;
	int fd;

	if (argc != 2)
		return 64;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0)
		return 1;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	for (n = 0; n < (size_t)st.st_size && n < 200 && p[n] != '\n'; n++)
		;
	printf("mapped: %.*s\n", (int)n, p);
	return 0;
}
