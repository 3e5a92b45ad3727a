/* map_secret FILE: maps FILE (private, read-only, so the trace stores a
 * copy of it) and reads it (so its bytes are in the trace's events too),
 * then prints its length. trace_dir.sh records it as root on a root-only
 * file and checks that no other user can read any of the trace. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	struct stat st;
	ssize_t n;
	void *p;
	int fd;

	if (argc != 2)
		return 64;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0)
		return 1;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	n = read(fd, buf, sizeof(buf));
	if (n <= 0)
		return 1;
	printf("read %zd bytes, mapped %lld\n", n, (long long)st.st_size);
	return 0;
}
