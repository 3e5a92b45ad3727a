/* The syscalls the preload library buffers, and what each record's data
 * holds. Shared by the library (src/syscallbuf/) and the record validator
 * (src/core/sbuf_records.c): a record whose nr is not listed here, or whose
 * data breaks its rule, did not come from the library.
 *
 * MRR_SB_CALLS(X) expands X(nr, name, rule, size) once per buffered
 * syscall, where rule says what data_len and the data are:
 *   MRR_SB_NONE    the call writes no memory: data_len is 0.
 *   MRR_SB_RESULT  the result counts bytes the kernel wrote (read, pread64,
 *                  readv, getrandom): data_len is the result when it is
 *                  positive, else 0. readv's data is the bytes of its
 *                  vectors in order, concatenated.
 *   MRR_SB_FIXED   the kernel fills one object of size bytes when the call
 *                  succeeds: data_len is 0 or size, and size only with a
 *                  result >= 0 (0 when the output pointer was NULL, as
 *                  time(NULL) and gettimeofday(NULL, NULL) allow).
 *   MRR_SB_FD      the call writes no memory and returns a new file
 *                  descriptor (openat): data_len is 0 and the result is
 *                  -4095..-1 or 0..INT_MAX.
 *   MRR_SB_ID      the call writes no memory and returns a user or group
 *                  id (getuid, ...): data_len is 0 and the result is
 *                  0..UINT32_MAX.
 * Sizes are the x86-64 kernel's: struct stat 144, struct statx 256,
 * struct timespec and struct timeval 16, time_t 8.
 *
 * futex is buffered only as FUTEX_WAKE (through syscall()).
 * newfstatat also stands for stat, lstat and fstatat, pread64 for pread,
 * openat for open and openat (and their 64 and fortified names).
 * args[] of a record holds the call's first three syscall arguments.
 * write, pwrite64 and writev are never buffered (see wrappers.c).
 */
#ifndef MRR_SYSCALLBUF_CALLS_H
#define MRR_SYSCALLBUF_CALLS_H

#include <asm/unistd.h>

#define MRR_SB_NONE   0
#define MRR_SB_RESULT 1
#define MRR_SB_FIXED  2
#define MRR_SB_FD     3
#define MRR_SB_ID     4

#define MRR_SB_STAT_SIZE     144
#define MRR_SB_STATX_SIZE    256
#define MRR_SB_TIMESPEC_SIZE 16
#define MRR_SB_TIMEVAL_SIZE  16
#define MRR_SB_TIME_SIZE     8

#define MRR_SB_CALLS(X)                                                        \
	X(__NR_read, "read", MRR_SB_RESULT, 0)                                 \
	X(__NR_close, "close", MRR_SB_NONE, 0)                                 \
	X(__NR_fstat, "fstat", MRR_SB_FIXED, MRR_SB_STAT_SIZE)                 \
	X(__NR_lseek, "lseek", MRR_SB_NONE, 0)                                 \
	X(__NR_pread64, "pread64", MRR_SB_RESULT, 0)                           \
	X(__NR_readv, "readv", MRR_SB_RESULT, 0)                               \
	X(__NR_mprotect, "mprotect", MRR_SB_NONE, 0)                           \
	X(__NR_madvise, "madvise", MRR_SB_NONE, 0)                             \
	X(__NR_getpid, "getpid", MRR_SB_NONE, 0)                               \
	X(__NR_gettimeofday, "gettimeofday", MRR_SB_FIXED,                     \
	  MRR_SB_TIMEVAL_SIZE)                                                 \
	X(__NR_gettid, "gettid", MRR_SB_NONE, 0)                               \
	X(__NR_time, "time", MRR_SB_FIXED, MRR_SB_TIME_SIZE)                   \
	X(__NR_clock_gettime, "clock_gettime", MRR_SB_FIXED,                   \
	  MRR_SB_TIMESPEC_SIZE)                                                \
	X(__NR_newfstatat, "newfstatat", MRR_SB_FIXED, MRR_SB_STAT_SIZE)       \
	X(__NR_getrandom, "getrandom", MRR_SB_RESULT, 0)                       \
	X(__NR_statx, "statx", MRR_SB_FIXED, MRR_SB_STATX_SIZE)                \
	X(__NR_openat, "openat", MRR_SB_FD, 0)                                 \
	X(__NR_access, "access", MRR_SB_NONE, 0)                               \
	X(__NR_readlink, "readlink", MRR_SB_RESULT, 0)                         \
	X(__NR_readlinkat, "readlinkat", MRR_SB_RESULT, 0)                     \
	X(__NR_getuid, "getuid", MRR_SB_ID, 0)                                 \
	X(__NR_getgid, "getgid", MRR_SB_ID, 0)                                 \
	X(__NR_geteuid, "geteuid", MRR_SB_ID, 0)                               \
	X(__NR_getegid, "getegid", MRR_SB_ID, 0)                               \
	X(__NR_futex, "futex", MRR_SB_NONE, 0)

#endif
