/* The libc functions the preload library replaces. Each one only
 * describes its syscall (what it may write, and where) and lets sb_run()
 * decide; the rules for each record's data are in calls.h.
 *
 * Prototypes use plain C types of the same size as libc's (ssize_t is
 * long, off_t is long, size_t is unsigned long), since no libc header is
 * included. The aliases cover libc's other names for the same function
 * (pread64, lseek64, fstat64, ...). */
#include "syscallbuf/calls.h"
#include "syscallbuf/preload.h"

#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <stdarg.h>
#include <linux/mman.h>

#define SB_EXPORT   __attribute__((visibility("default")))
#define SB_ALIAS(f) __attribute__((visibility("default"), alias(#f)))

/* Linux's UIO_MAXIOV: more vectors make readv fail with EINVAL. */
#define SB_IOV_MAX 1024

#define SB_CALL(n, a0, a1, a2, a3, a4)                                         \
	{                                                                      \
		.nr = (n), .args = {(long)(a0), (long)(a1), (long)(a2),        \
				    (long)(a3), (long)(a4), 0},                \
	}

/* read and readv may block forever on a pipe, socket or tty, and mrr
 * delivers a signal only after a traced syscall, so a blocked untraced read
 * would never see the signal that should interrupt it: they are buffered on
 * regular files, and on pipes only when the pipe holds data (FIONREAD);
 * a read of an empty pipe is traced. pread needs no check, as it fails at once
 * with ESPIPE on anything that is not seekable. */

SB_EXPORT long read(int fd, void *buf, unsigned long count)
{
	struct sb_call c = SB_CALL(__NR_read, fd, buf, count, 0, 0);

	c.rule = MRR_SB_RESULT;
	c.flags = SB_REGULAR_FD | SB_PIPE_NOWAIT | SB_STATUS;
	c.out = buf;
	c.out_len = count;
	return sb_ret(sb_run(&c));
}

/* Writes stay traced: the replay must show the program's output again and
 * must put the bytes into its copy of any file the program maps, and a
 * record without the bytes cannot do either. */
SB_EXPORT long write(int fd, const void *buf, unsigned long count)
{
	struct sb_call c = SB_CALL(__NR_write, fd, buf, count, 0, 0);

	return sb_ret(sb_traced(&c));
}

SB_EXPORT long pread64(int fd, void *buf, unsigned long count, long off)
{
	struct sb_call c = SB_CALL(__NR_pread64, fd, buf, count, off, 0);

	c.rule = MRR_SB_RESULT;
	c.flags = SB_STATUS;
	c.out = buf;
	c.out_len = count;
	return sb_ret(sb_run(&c));
}
SB_ALIAS(pread64) long pread(int fd, void *buf, unsigned long count, long off);

SB_EXPORT long pwrite64(int fd, const void *buf, unsigned long count, long off)
{
	struct sb_call c = SB_CALL(__NR_pwrite64, fd, buf, count, off, 0);

	return sb_ret(sb_traced(&c)); /* see write() */
}
SB_ALIAS(pwrite64)
long pwrite(int fd, const void *buf, unsigned long count, long off);

SB_EXPORT long readv(int fd, const struct sb_iovec *iov, int iovcnt)
{
	struct sb_call c = SB_CALL(__NR_readv, fd, iov, iovcnt, 0, 0);
	unsigned long total = 0;

	/* The vectors are read only when the call may be buffered (libc
	 * would not touch them), and counts the kernel rejects go to it
	 * unbuffered, to fail there. */
	if (!sb_buffering() || iovcnt < 0 || iovcnt > SB_IOV_MAX)
		return sb_ret(sb_traced(&c));
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].len > (1ul << 40))
			return sb_ret(sb_traced(&c));
		total += iov[i].len;
	}
	c.rule = MRR_SB_RESULT;
	c.flags = SB_REGULAR_FD | SB_PIPE_NOWAIT | SB_STATUS;
	c.iov = iov;
	c.out_len = total;
	return sb_ret(sb_run(&c));
}

SB_EXPORT long writev(int fd, const struct sb_iovec *iov, int iovcnt)
{
	struct sb_call c = SB_CALL(__NR_writev, fd, iov, iovcnt, 0, 0);

	return sb_ret(sb_traced(&c)); /* see write() */
}

SB_EXPORT long lseek(int fd, long off, int whence)
{
	struct sb_call c = SB_CALL(__NR_lseek, fd, off, whence, 0, 0);

	return sb_ret(sb_run(&c));
}
SB_ALIAS(lseek) long lseek64(int fd, long off, int whence);

SB_EXPORT int close(int fd)
{
	struct sb_call c = SB_CALL(__NR_close, fd, 0, 0, 0, 0);

	return (int)sb_ret(sb_run(&c));
}

SB_EXPORT int getpid(void)
{
	struct sb_call c = SB_CALL(__NR_getpid, 0, 0, 0, 0, 0);

	return (int)sb_run(&c);
}

SB_EXPORT int gettid(void)
{
	struct sb_call c = SB_CALL(__NR_gettid, 0, 0, 0, 0, 0);

	return (int)sb_run(&c);
}

SB_EXPORT long getrandom(void *buf, unsigned long len, unsigned flags)
{
	struct sb_call c = SB_CALL(__NR_getrandom, buf, len, flags, 0, 0);

	c.rule = MRR_SB_RESULT;
	c.out = buf;
	c.out_len = len;
	return sb_ret(sb_run(&c));
}

SB_EXPORT int clock_gettime(int clk, void *ts)
{
	struct sb_call c = SB_CALL(__NR_clock_gettime, clk, ts, 0, 0, 0);

	c.rule = MRR_SB_FIXED;
	c.out = ts;
	c.out_len = ts ? MRR_SB_TIMESPEC_SIZE : 0;
	return (int)sb_ret(sb_run(&c));
}

SB_EXPORT int gettimeofday(void *tv, void *tz)
{
	struct sb_call c = SB_CALL(__NR_gettimeofday, tv, tz, 0, 0, 0);

	/* The record keeps one output; the obsolete timezone is rare. */
	if (tz)
		return (int)sb_ret(sb_traced(&c));
	c.rule = MRR_SB_FIXED;
	c.out = tv;
	c.out_len = tv ? MRR_SB_TIMEVAL_SIZE : 0;
	return (int)sb_ret(sb_run(&c));
}

SB_EXPORT long time(long *tloc)
{
	struct sb_call c = SB_CALL(__NR_time, tloc, 0, 0, 0, 0);

	c.rule = MRR_SB_FIXED;
	c.out = tloc;
	c.out_len = tloc ? MRR_SB_TIME_SIZE : 0;
	return sb_ret(sb_run(&c));
}

SB_EXPORT int fstat(int fd, void *st)
{
	struct sb_call c = SB_CALL(__NR_fstat, fd, st, 0, 0, 0);

	c.rule = MRR_SB_FIXED;
	c.out = st;
	c.out_len = MRR_SB_STAT_SIZE;
	return (int)sb_ret(sb_run(&c));
}
SB_ALIAS(fstat) int fstat64(int fd, void *st);

/* stat and lstat are fstatat, called directly rather than through the
 * exported (interposable) symbol. */
static int sb_fstatat(int dirfd, const char *path, void *st, int flags)
{
	struct sb_call c = SB_CALL(__NR_newfstatat, dirfd, path, st, flags, 0);

	c.rule = MRR_SB_FIXED;
	c.out = st;
	c.out_len = MRR_SB_STAT_SIZE;
	return (int)sb_ret(sb_run(&c));
}

SB_EXPORT int fstatat(int dirfd, const char *path, void *st, int flags)
{
	return sb_fstatat(dirfd, path, st, flags);
}
SB_ALIAS(fstatat)
int fstatat64(int dirfd, const char *path, void *st, int flags);
SB_ALIAS(fstatat)
int newfstatat(int dirfd, const char *path, void *st, int flags);

SB_EXPORT int stat(const char *path, void *st)
{
	return sb_fstatat(AT_FDCWD, path, st, 0);
}
SB_ALIAS(stat) int stat64(const char *path, void *st);

SB_EXPORT int lstat(const char *path, void *st)
{
	return sb_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}
SB_ALIAS(lstat) int lstat64(const char *path, void *st);

SB_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask,
		    void *stx)
{
	struct sb_call c = SB_CALL(__NR_statx, dirfd, path, flags, mask, stx);

	c.rule = MRR_SB_FIXED;
	c.out = stx;
	c.out_len = MRR_SB_STATX_SIZE;
	return (int)sb_ret(sb_run(&c));
}

SB_EXPORT int madvise(void *addr, unsigned long len, int advice)
{
	struct sb_call c = SB_CALL(__NR_madvise, addr, len, advice, 0, 0);

	/* Only DONTNEED changes memory in a way the probe makes safe to
	 * repeat at replay; other advice keeps its traced handling. */
	if (advice != MADV_DONTNEED)
		return (int)sb_ret(sb_traced(&c));
	c.flags = SB_MADVISE;
	return (int)sb_ret(sb_run(&c));
}

/* mprotect changes only what the program may do with its own memory:
 * re-run at replay on the same map, it has the same effect, and the
 * recorder checks each flush's calls against the map (record_sbuf_mem.c).
 * Only read and write bits are buffered: PROT_EXEC (code mrr may patch or
 * watch), PROT_SEM, pkeys and the GROWS flags stay traced. libc's own
 * calls (ld.so, thread stacks) go to the kernel through their internal
 * name, traced. */
SB_EXPORT int mprotect(void *addr, unsigned long len, int prot)
{
	struct sb_call c = SB_CALL(__NR_mprotect, addr, len, prot, 0, 0);

	if (prot & ~(PROT_READ | PROT_WRITE))
		return (int)sb_ret(sb_traced(&c));
	c.flags = SB_MPROTECT;
	return (int)sb_ret(sb_run(&c));
}

/* open and openat become one syscall, openat (as in libc); the mode is
 * read only when the flags say there is one. The fortified names
 * (__open_2 ...) are what _FORTIFY_SOURCE builds call. */
static int sb_openat(int dirfd, const char *path, int flags, unsigned mode)
{
	struct sb_call c = SB_CALL(__NR_openat, dirfd, path, flags, mode, 0);

	c.rule = MRR_SB_FD;
	c.flags = SB_OPEN;
	return (int)sb_ret(sb_run(&c));
}

#define SB_OPEN_MODE(flags, mode)                                              \
	do {                                                                   \
		if ((flags) & (O_CREAT | __O_TMPFILE)) {                       \
			va_list ap;                                            \
			va_start(ap, flags);                                   \
			mode = va_arg(ap, unsigned);                           \
			va_end(ap);                                            \
		}                                                              \
	} while (0)

SB_EXPORT int open(const char *path, int flags, ...)
{
	unsigned mode = 0;

	SB_OPEN_MODE(flags, mode);
	return sb_openat(AT_FDCWD, path, flags, mode);
}
SB_ALIAS(open) int open64(const char *path, int flags, ...);

SB_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	unsigned mode = 0;

	SB_OPEN_MODE(flags, mode);
	return sb_openat(dirfd, path, flags, mode);
}
SB_ALIAS(openat) int openat64(int dirfd, const char *path, int flags, ...);

SB_EXPORT int __open_2(const char *path, int flags)
{
	return sb_openat(AT_FDCWD, path, flags, 0);
}
SB_ALIAS(__open_2) int __open64_2(const char *path, int flags);

SB_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return sb_openat(dirfd, path, flags, 0);
}
SB_ALIAS(__openat_2) int __openat64_2(int dirfd, const char *path, int flags);

SB_EXPORT int access(const char *path, int mode)
{
	struct sb_call c = SB_CALL(__NR_access, path, mode, 0, 0, 0);

	return (int)sb_ret(sb_run(&c));
}

SB_EXPORT long readlink(const char *path, char *buf, unsigned long size)
{
	struct sb_call c = SB_CALL(__NR_readlink, path, buf, size, 0, 0);

	c.rule = MRR_SB_RESULT;
	c.out = buf;
	c.out_len = size;
	return sb_ret(sb_run(&c));
}

SB_EXPORT long readlinkat(int dirfd, const char *path, char *buf,
			  unsigned long size)
{
	struct sb_call c = SB_CALL(__NR_readlinkat, dirfd, path, buf, size, 0);

	c.rule = MRR_SB_RESULT;
	c.out = buf;
	c.out_len = size;
	return sb_ret(sb_run(&c));
}

/* The ids never fail; a record's result is the id itself. */
#define SB_ID_CALL(fn, nr)                                                     \
	SB_EXPORT unsigned fn(void)                                            \
	{                                                                      \
		struct sb_call c = SB_CALL(nr, 0, 0, 0, 0, 0);                 \
		c.rule = MRR_SB_ID;                                            \
		return (unsigned)sb_run(&c);                                   \
	}
SB_ID_CALL(getuid, __NR_getuid)
SB_ID_CALL(getgid, __NR_getgid)
SB_ID_CALL(geteuid, __NR_geteuid)
SB_ID_CALL(getegid, __NR_getegid)

/* syscall(): programs that make their futex calls themselves (Rust's std,
 * runtimes, benchmarks) come here. A FUTEX_WAKE never blocks and writes no
 * memory, and the replay emulates the waits it ends, so it is buffered;
 * the threads it wakes stop at their own wait's exit, where the recorder
 * schedules them. FUTEX_WAKE_BITSET is not: its bitset is the sixth
 * argument, which the untraced path replaces. Every other call runs
 * traced, as libc's syscall() would run it. Declared with seven longs:
 * for integer arguments that is the variadic function's calling
 * convention. */
#define SB_FUTEX_CMD_MASK 0x7f /* without PRIVATE and CLOCK_REALTIME */
#define SB_FUTEX_WAKE	  1

SB_EXPORT long syscall(long nr, long a0, long a1, long a2, long a3, long a4,
		       long a5)
{
	struct sb_call c = SB_CALL(nr, a0, a1, a2, a3, a4);

	if (nr == __NR_futex && (a1 & SB_FUTEX_CMD_MASK) == SB_FUTEX_WAKE)
		return sb_ret(sb_run(&c));
	c.args[5] = a5;
	return sb_ret(sb_traced(&c));
}
