/* fill_fs DIR: fills the file system of DIR for a while, as stress-ng
 * resources fills /tmp (it fallocates terabytes there and closes the file
 * a moment later): fallocates a file in DIR until ENOSPC and asks for a
 * terabyte more, then, while the file system is full, maps three memfds
 * of new content (each a file the recording must store), writes lines and
 * sleeps past a chunk flush (events the recording must write), and only
 * then frees the space. Natively it passes on any file system; recorded
 * onto the same file system it must pass too. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STEP (1L << 20)

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct timespec ts = {0, 300 * 1000 * 1000};
	char path[4096], *m;
	long held = 0, step;
	int fd, mfd, i;

	if (argc != 2) {
		fprintf(stderr, "usage: fill_fs DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/fill_fs.%d", argv[1], (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		die("open");
	for (step = STEP; step >= 4096; step /= 16)
		while (fallocate(fd, 0, held, step) == 0)
			held += step;
	if (errno != ENOSPC)
		die("fallocate");
	if (fallocate(fd, 0, held, 1L << 40) == 0)
		die("a terabyte fitted");
	printf("filled: %ld MiB held\n", held >> 20);
	fflush(stdout);
	for (i = 0; i < 3; i++) {
		mfd = memfd_create("fill_fs", 0);
		if (mfd < 0 || ftruncate(mfd, 8192) < 0)
			die("memfd");
		if (dprintf(mfd, "memfd %d of pid %d", i, (int)getpid()) < 0)
			die("memfd write");
		m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, mfd, 0);
		if (m == MAP_FAILED)
			die("mmap");
		printf("mapped '%s'\n", m);
		fflush(stdout);
		nanosleep(&ts, NULL);
		munmap(m, 8192);
		close(mfd);
	}
	unlink(path);
	close(fd);
	printf("PASS\n");
	return 0;
}
