/* mrr-test: timeout=120 */
/* sbuf_open: the calls the syscall buffer took on for issue 14, each many
 * times, succeeding and failing: open/openat of regular files (buffered),
 * of nothing (ENOENT, buffered), with O_CREAT, and of what must stay traced
 * (a directory, a FIFO, /dev/null, O_TRUNC, O_PATH); access; readlink and
 * readlinkat; getuid, getgid, geteuid, getegid. Checks that a buffered
 * open leaves the file status flags the program asked for (the library
 * opens with O_NONBLOCK and takes it back), and prints checksums of what it
 * read, which the replay must reproduce. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#define ITERS 2000

static uint64_t sum;

static void mix(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		sum = (sum ^ b[i]) * 1099511628211ull;
}

static void mix_long(long v)
{
	mix(&v, sizeof(v));
}

int main(void)
{
	char dir[64], file[96], link_path[96], fifo[96], missing[96];
	char buf[256];
	int dfd, fd, fl;

	mt_init();
	snprintf(dir, sizeof(dir), "/tmp/mrr-sbuf_open-%d", (int)getpid());
	MT_SYS(mkdir(dir, 0700));
	dfd = MT_SYS(open(dir, O_RDONLY | O_DIRECTORY));
	snprintf(file, sizeof(file), "%s/data", dir);
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);

	/* O_CREAT of a new file, then of an existing one */
	fd = MT_SYS(open(file, O_CREAT | O_WRONLY | O_EXCL, 0600));
	MT_CHECK(write(fd, "0123456789abcdef", 16) == 16, "short write");
	MT_SYS(close(fd));
	errno = 0;
	MT_CHECK(open(file, O_CREAT | O_EXCL | O_RDONLY, 0600) == -1 &&
			 errno == EEXIST,
		 "O_EXCL of an existing file: errno %d", errno);
	MT_SYS(symlink("data", link_path));
	MT_SYS(mkfifo(fifo, 0600));

	for (int i = 0; i < ITERS; i++) {
		/* regular files, by path and relative to a directory fd */
		fd = MT_SYS(open(file, O_RDONLY | O_CLOEXEC));
		fl = MT_SYS(fcntl(fd, F_GETFL));
		MT_CHECK(!(fl & O_NONBLOCK), "O_NONBLOCK left on: %#x", fl);
		MT_CHECK(pread(fd, buf, 16, i % 16) == 16 - i % 16,
			 "short pread");
		mix(buf, 16 - i % 16);
		MT_SYS(close(fd));
		fd = MT_SYS(
			openat(dfd, "link", O_RDWR | O_APPEND | O_NONBLOCK));
		fl = MT_SYS(fcntl(fd, F_GETFL));
		MT_CHECK((fl & O_NONBLOCK) && (fl & O_APPEND),
			 "flags %#x lost O_NONBLOCK or O_APPEND", fl);
		MT_SYS(close(fd));
		errno = 0;
		MT_CHECK(openat(dfd, "link", O_RDONLY | O_NOFOLLOW) == -1 &&
				 errno == ELOOP,
			 "O_NOFOLLOW of a link: errno %d", errno);
		/* nothing there */
		errno = 0;
		MT_CHECK(open(missing, O_RDONLY) == -1 && errno == ENOENT,
			 "open of nothing: errno %d", errno);
		/* access */
		MT_CHECK(access(file, R_OK | W_OK) == 0, "access failed");
		errno = 0;
		MT_CHECK(access(missing, F_OK) == -1 && errno == ENOENT,
			 "access of nothing: errno %d", errno);
		/* readlink, readlinkat */
		memset(buf, 0, sizeof(buf));
		MT_CHECK(readlink(link_path, buf, sizeof(buf)) == 4 &&
				 !memcmp(buf, "data", 4),
			 "readlink gave '%s'", buf);
		MT_CHECK(readlinkat(dfd, "link", buf, 2) == 2, "readlinkat");
		mix(buf, 4);
		errno = 0;
		MT_CHECK(readlink(file, buf, sizeof(buf)) == -1 &&
				 errno == EINVAL,
			 "readlink of a file: errno %d", errno);
		/* ids */
		mix_long(getuid());
		mix_long(getgid());
		mix_long(geteuid());
		mix_long(getegid());
		if (i % 100)
			continue;
		/* what stays traced: a directory, a FIFO, a device,
		 * O_TRUNC, O_PATH */
		fd = MT_SYS(open(dir, O_RDONLY | O_DIRECTORY));
		MT_SYS(close(fd));
		fd = MT_SYS(open(fifo, O_RDWR)); /* Linux: never blocks */
		MT_SYS(close(fd));
		fd = MT_SYS(open("/dev/null", O_RDONLY));
		MT_CHECK(read(fd, buf, 1) == 0, "/dev/null gave data");
		MT_SYS(close(fd));
		fd = MT_SYS(open(file, O_WRONLY | O_TRUNC));
		MT_CHECK(write(fd, "0123456789abcdef", 16) == 16,
			 "short write");
		MT_SYS(close(fd));
		fd = MT_SYS(open(file, O_PATH));
		MT_SYS(close(fd));
	}
	MT_SYS(unlink(fifo));
	MT_SYS(unlink(link_path));
	MT_SYS(unlink(file));
	MT_SYS(close(dfd));
	MT_SYS(rmdir(dir));
	printf("sbuf_open: %d rounds, checksum %016llx\n", ITERS,
	       (unsigned long long)sum);
	mt_pass();
	return 0;
}
