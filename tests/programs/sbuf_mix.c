/* mrr-test: timeout=120 */
/* sbuf_mix: every call the syscall buffer handles, many times over, on a
 * regular file (buffered under mrr) and on a pipe (read and write there stay
 * traced, and must still work). Long runs of buffered calls with big reads
 * fill the buffer past its flush mark many times. Failed calls (EBADF,
 * ESPIPE, ENOENT, EFAULT) go through the same paths. Prints checksums of
 * everything read, which the replay must reproduce. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>

#define FILE_SIZE (64 * 1024)
#define ITERS	  3000

static uint64_t sum;

static void mix(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		sum = (sum ^ b[i]) * 1099511628211ull;
}

static unsigned char pattern(size_t off)
{
	return (unsigned char)((off * 31) ^ (off >> 9));
}

static void check_stat(const struct stat *st, off_t size, const char *how)
{
	MT_CHECK(S_ISREG(st->st_mode), "%s: mode %o", how, st->st_mode);
	MT_CHECK(st->st_size == size, "%s: size %lld, want %lld", how,
		 (long long)st->st_size, (long long)size);
}

/* Buffered calls that fail must fail like libc's: -1 and errno. */
static void failures(int fd, int pipe_rd, void *noaccess)
{
	char buf[16];
	struct stat st;

	errno = 0;
	MT_CHECK(pread(pipe_rd, buf, sizeof(buf), 0) == -1 && errno == ESPIPE,
		 "pread on a pipe: errno %d", errno);
	errno = 0;
	MT_CHECK(read(-1, buf, 1) == -1 && errno == EBADF, "errno %d", errno);
	errno = 0;
	MT_CHECK(fstat(-1, &st) == -1 && errno == EBADF, "errno %d", errno);
	errno = 0;
	MT_CHECK(stat("/nonexistent/mrr", &st) == -1 && errno == ENOENT,
		 "errno %d", errno);
	errno = 0;
	MT_CHECK(lseek(fd, -5, SEEK_SET) == -1 && errno == EINVAL, "errno %d",
		 errno);
	errno = 0;
	MT_CHECK(pread(fd, noaccess, sizeof(buf), 0) == -1 && errno == EFAULT,
		 "pread into a PROT_NONE page: errno %d", errno);
	errno = 0;
	MT_CHECK(close(-1) == -1 && errno == EBADF, "errno %d", errno);
}

int main(void)
{
	static unsigned char data[FILE_SIZE], big[300 * 1024];
	unsigned char buf[4096], a[700], b[900];
	long pg = sysconf(_SC_PAGESIZE);
	struct timespec last = {0, 0}, now;
	char path[64], msg[32];
	int fd, p[2], pid = getpid();
	unsigned char *anon;
	void *noaccess;
	uint64_t pipe_sum = 0;
	long pipe_msgs = 0;

	mt_init();
	for (size_t i = 0; i < FILE_SIZE; i++)
		data[i] = pattern(i);
	snprintf(path, sizeof(path), "/tmp/mrr-sbuf_mix-%d", pid);
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_CHECK(MT_SYS(write(fd, data, FILE_SIZE)) == FILE_SIZE, "short");
	MT_SYS(pipe(p));
	anon = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	noaccess = MT_SYS(
		mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

	for (int i = 0; i < ITERS; i++) {
		off_t off = (off_t)i * 97 % (FILE_SIZE - sizeof(buf));
		struct iovec rv[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
		struct iovec wv[2] = {{"mrr", 3}, {"-mix", 4}};
		struct stat st, st2;
		struct statx stx;
		struct timeval tv;
		time_t t, t2;
		ssize_t n;

		/* One byte changes each round, where pread will see it. */
		data[off] ^= 0x5a;
		MT_CHECK(pwrite(fd, &data[off], 1, off) == 1, "pwrite");
		n = MT_SYS(pread(fd, buf, sizeof(buf), off));
		MT_CHECK(n == sizeof(buf) && !memcmp(buf, data + off, n),
			 "pread at %lld: %zd", (long long)off, n);
		mix(buf, n);

		MT_CHECK(lseek(fd, off / 2, SEEK_SET) == off / 2, "lseek");
		n = MT_SYS(read(fd, buf, 1000));
		MT_CHECK(n == 1000 && !memcmp(buf, data + off / 2, n), "read");
		mix(buf, n);
		n = MT_SYS(readv(fd, rv, 2));
		MT_CHECK(n == sizeof(a) + sizeof(b), "readv %zd", n);
		MT_CHECK(!memcmp(a, data + off / 2 + 1000, sizeof(a)) &&
				 !memcmp(b, data + off / 2 + 1700, sizeof(b)),
			 "readv data");
		mix(a, sizeof(a));
		mix(b, sizeof(b));

		/* Appends past the pattern: the file grows each round. */
		MT_CHECK(lseek(fd, 0, SEEK_END) == FILE_SIZE + 14 * i, "end");
		MT_CHECK(write(fd, "mrr", 3) == 3, "write");
		MT_CHECK(writev(fd, wv, 2) == 7, "writev");
		MT_CHECK(pwrite(fd, "four", 4, FILE_SIZE + 14 * i + 10) == 4,
			 "pwrite at end");

		MT_SYS(fstat(fd, &st));
		check_stat(&st, FILE_SIZE + 14 * (i + 1), "fstat");
		MT_SYS(stat(path, &st2));
		check_stat(&st2, st.st_size, "stat");
		MT_CHECK(st.st_ino == st2.st_ino, "inode");
		MT_SYS(lstat(path, &st2));
		check_stat(&st2, st.st_size, "lstat");
		MT_SYS(fstatat(AT_FDCWD, path, &st2, 0));
		check_stat(&st2, st.st_size, "fstatat");
		MT_SYS(statx(AT_FDCWD, path, 0, STATX_SIZE, &stx));
		MT_CHECK(stx.stx_size == (uint64_t)st.st_size, "statx size");

		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &now));
		MT_CHECK(now.tv_sec > last.tv_sec ||
				 (now.tv_sec == last.tv_sec &&
				  now.tv_nsec >= last.tv_nsec),
			 "the monotonic clock went back");
		last = now;
		MT_SYS(gettimeofday(&tv, NULL));
		t = time(&t2);
		/* time() may lag the realtime clock by a tick. */
		MT_CHECK(t == t2 && t >= tv.tv_sec - 1 && t < tv.tv_sec + 5,
			 "time %lld/%lld, gettimeofday %lld", (long long)t,
			 (long long)t2, (long long)tv.tv_sec);
		MT_CHECK(getpid() == pid && gettid() == pid, "pid/tid");
		MT_CHECK(getrandom(buf, 16, 0) == 16, "getrandom");

		anon[i % pg] = 1;
		MT_SYS(madvise(anon, pg, MADV_DONTNEED));
		MT_CHECK(anon[i % pg] == 0, "page not dropped");

		/* Every so often: traced calls in between (a pipe, dup). */
		if (i % 200 == 0) {
			int len = snprintf(msg, sizeof(msg), "msg %d", i);
			int d = MT_SYS(dup(fd));

			MT_CHECK(write(p[1], msg, len) == len, "pipe write");
			n = MT_SYS(read(p[0], buf, sizeof(buf)));
			MT_CHECK(n == len && !memcmp(buf, msg, len),
				 "pipe read %zd", n);
			for (ssize_t k = 0; k < n; k++)
				pipe_sum = pipe_sum * 131 + buf[k];
			pipe_msgs++;
			MT_SYS(close(d));
			failures(fd, p[0], noaccess);
		}
	}

	/* Larger than one record may be: traced, and still right. */
	MT_CHECK(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	MT_CHECK(read(fd, big, sizeof(big)) == FILE_SIZE + 14 * ITERS,
		 "big read");
	mix(big, FILE_SIZE);

	MT_SYS(unlink(path));
	MT_SYS(close(fd));
	MT_SYS(close(p[0]));
	MT_SYS(close(p[1]));
	printf("%d rounds, file checksum %016llx\n", ITERS,
	       (unsigned long long)sum);
	printf("%ld pipe messages, checksum %016llx\n", pipe_msgs,
	       (unsigned long long)pipe_sum);
	mt_pass();
	return 0;
}
