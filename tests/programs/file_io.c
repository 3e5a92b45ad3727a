/* file_io: a temp file's life: create, write, writev, pwrite, lseek in every
 * mode, read, pread, fstat, ftruncate, fsync, stat, rename, unlink. Checks
 * every byte read back and every size and offset the kernel reports. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define BLOCK	4096
#define NBLOCKS 3

static unsigned char pattern(size_t off)
{
	return (unsigned char)(off * 31 + (off >> 8));
}

int main(void)
{
	unsigned char buf[BLOCK * NBLOCKS], rd[BLOCK * NBLOCKS];
	char path[64], path2[64];
	struct stat st;
	struct iovec iov[2];
	off_t off;
	ssize_t n;
	int fd;

	mt_init();
	snprintf(path, sizeof(path), "/tmp/mrr-file_io-%d", (int)getpid());
	snprintf(path2, sizeof(path2), "/tmp/mrr-file_io-%d.moved",
		 (int)getpid());
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = pattern(i);

	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
	printf("created %s as fd %d\n", path, fd);
	for (int b = 0; b < NBLOCKS - 1; b++) {
		n = MT_SYS(write(fd, buf + b * BLOCK, BLOCK));
		MT_CHECK(n == BLOCK, "write returned %zd", n);
	}
	/* The last block in two halves, with writev. */
	iov[0].iov_base = buf + 2 * BLOCK;
	iov[0].iov_len = BLOCK / 2;
	iov[1].iov_base = buf + 2 * BLOCK + BLOCK / 2;
	iov[1].iov_len = BLOCK / 2;
	n = MT_SYS(writev(fd, iov, 2));
	MT_CHECK(n == BLOCK, "writev returned %zd", n);

	MT_SYS(fstat(fd, &st));
	MT_CHECK(st.st_size == sizeof(buf), "size %lld", (long long)st.st_size);
	MT_CHECK(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600, "mode %o",
		 (unsigned)st.st_mode);
	printf("fstat: size %lld mode %o nlink %lu\n", (long long)st.st_size,
	       (unsigned)st.st_mode & 0777, (unsigned long)st.st_nlink);

	off = MT_SYS(lseek(fd, 0, SEEK_CUR));
	MT_CHECK(off == sizeof(buf), "SEEK_CUR gave %lld", (long long)off);
	off = MT_SYS(lseek(fd, 0, SEEK_SET));
	MT_CHECK(off == 0, "SEEK_SET gave %lld", (long long)off);
	memset(rd, 0, sizeof(rd));
	n = MT_SYS(read(fd, rd, sizeof(rd)));
	MT_CHECK(n == sizeof(rd), "read returned %zd", n);
	MT_CHECK(memcmp(rd, buf, sizeof(buf)) == 0, "content differs");
	n = MT_SYS(read(fd, rd, sizeof(rd)));
	MT_CHECK(n == 0, "read at EOF returned %zd", n);

	off = MT_SYS(lseek(fd, -100, SEEK_END));
	MT_CHECK(off == sizeof(buf) - 100, "SEEK_END gave %lld",
		 (long long)off);
	n = MT_SYS(read(fd, rd, sizeof(rd)));
	MT_CHECK(n == 100, "read of the tail returned %zd", n);
	MT_CHECK(memcmp(rd, buf + sizeof(buf) - 100, 100) == 0, "tail differs");

	/* pwrite does not move the offset; pread sees what it wrote. */
	n = MT_SYS(pwrite(fd, "0123456789", 10, 5000));
	MT_CHECK(n == 10, "pwrite returned %zd", n);
	memcpy(buf + 5000, "0123456789", 10);
	off = MT_SYS(lseek(fd, 0, SEEK_CUR));
	MT_CHECK(off == sizeof(buf), "pwrite moved the offset to %lld",
		 (long long)off);
	n = MT_SYS(pread(fd, rd, 20, 4995));
	MT_CHECK(n == 20 && memcmp(rd, buf + 4995, 20) == 0,
		 "pread returned %zd or other bytes", n);
	printf("pread at 5000: %.10s\n", (char *)rd + 5);

	MT_SYS(ftruncate(fd, 6000));
	MT_SYS(fsync(fd));
	MT_SYS(fstat(fd, &st));
	MT_CHECK(st.st_size == 6000, "size after ftruncate %lld",
		 (long long)st.st_size);
	MT_SYS(close(fd));

	MT_SYS(rename(path, path2));
	MT_CHECK(stat(path, &st) == -1 && errno == ENOENT,
		 "old name still there after rename");
	MT_SYS(stat(path2, &st));
	MT_CHECK(st.st_size == 6000, "renamed size %lld",
		 (long long)st.st_size);
	fd = MT_SYS(open(path2, O_RDONLY));
	n = MT_SYS(read(fd, rd, sizeof(rd)));
	MT_CHECK(n == 6000 && memcmp(rd, buf, 6000) == 0,
		 "reopened read returned %zd or other bytes", n);
	MT_SYS(close(fd));
	MT_SYS(unlink(path2));
	MT_CHECK(open(path2, O_RDONLY) == -1 && errno == ENOENT,
		 "file still there after unlink");
	printf("file created, read back, truncated, renamed and removed\n");
	mt_pass();
	return 0;
}
