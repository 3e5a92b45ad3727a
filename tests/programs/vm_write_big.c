/* vm_write_big: process_vm_writev of more than 16 MiB (stress-ng's vm-rw
 * writes 16 MiB at once) into a child, in two ranges of a mapping the
 * child made before it told its parent where it is, then into the
 * parent's own memory. The child, woken afterwards, checks every byte: at
 * replay the whole write must reach the replayed child. (The child does
 * not touch its mapping before the write: the trace orders the write
 * with the child's syscalls, not with its user code in between.)
 */
#include "mrr_test.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define BIG  (17u << 20)
#define HALF (BIG / 2)

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 12));
}

static size_t check(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(i))
			return i;
	return len;
}

int main(void)
{
	int up[2], down[2], st;
	unsigned char *src, *mine;
	struct iovec l, r[2];
	uintptr_t addr;
	pid_t pid;
	ssize_t n;
	size_t i;
	char c;

	mt_init();
	src = MT_SYS(mmap(NULL, BIG, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	for (i = 0; i < BIG; i++)
		src[i] = pattern(i);
	MT_SYS(pipe(up));
	MT_SYS(pipe(down));
	pid = MT_SYS(fork());
	if (pid == 0) {
		/* a gap between the two halves, so that the ranges are two */
		unsigned char *dst =
			MT_SYS(mmap(NULL, BIG + 8192, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

		addr = (uintptr_t)dst;
		MT_CHECK(write(up[1], &addr, sizeof(addr)) == sizeof(addr),
			 "write");
		MT_CHECK(read(down[0], &c, 1) == 1, "read");
		MT_CHECK(check(dst, HALF) == HALF, "first half differs at %zu",
			 check(dst, HALF));
		for (i = 0; i < 8192; i++)
			MT_CHECK(dst[HALF + i] == 0, "the gap was written");
		for (i = 0; i < HALF; i++)
			MT_CHECK(dst[HALF + 8192 + i] == pattern(HALF + i),
				 "second half differs at %zu", i);
		printf("child: all %u bytes arrived\n", BIG);
		_exit(0);
	}
	MT_CHECK(read(up[0], &addr, sizeof(addr)) == sizeof(addr), "read");
	l.iov_base = src;
	l.iov_len = BIG;
	r[0].iov_base = (void *)addr;
	r[0].iov_len = HALF;
	r[1].iov_base = (void *)(addr + HALF + 8192);
	r[1].iov_len = HALF;
	n = process_vm_writev(pid, &l, 1, r, 2, 0);
	MT_CHECK(n == (ssize_t)BIG, "process_vm_writev: %zd (%s)", n,
		 strerror(errno));
	printf("parent: wrote %zd bytes into the child\n", n);
	MT_CHECK(write(down[1], "x", 1) == 1, "write");
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x",
		 st);

	mine = MT_SYS(mmap(NULL, BIG, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	r[0].iov_base = mine;
	r[0].iov_len = BIG;
	n = process_vm_writev(getpid(), &l, 1, r, 1, 0);
	MT_CHECK(n == (ssize_t)BIG, "into itself: %zd (%s)", n,
		 strerror(errno));
	MT_CHECK(check(mine, BIG) == BIG, "own copy differs at %zu",
		 check(mine, BIG));
	printf("parent: wrote %zd bytes into itself\n", n);
	mt_pass();
	return 0;
}
