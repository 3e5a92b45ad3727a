/* golden_prog: the program behind the dump goldens (tests/e2e/dump.cmake).
 *
 * A `mrr dump --stable` golden must print the same on every machine, so
 * this program has no C library and no dynamic loader: what it runs is only
 * the code below, built with fixed flags, linked -static -nostdlib. The C
 * library's start-up (the loader, /etc/ld.so.cache, libc's layout and its
 * own syscalls, all of which change between machines and glibc updates)
 * stays out of the goldens. Out-parameters live in a mapping the program
 * makes, never on the stack, so the compiler's frame layout does not show.
 * _start sits in .text.startup, which the linker places first, so the entry
 * point and the exit_group call are at fixed offsets from the executable.
 *
 *   golden_prog hello      writes to stdout and stderr, executes rdtsc,
 *                          reads the time and its pid, opens golden.dat
 *                          (8192 bytes, in the current directory), reads
 *                          it, maps it and writes from the mapping, calls
 *                          uname
 *   golden_prog madv_seed  the madv_seed reproducer (rr issue 3667): three
 *                          pages, the middle one locked; MADV_DONTNEED over
 *                          all three drops the first and fails with EINVAL
 *
 * Each mode checks its own results and ends its stdout with "PASS"; a
 * failed check writes "FAIL: what" on stderr and exits 1. */
#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <linux/mman.h>
#include <linux/time.h>

#define PAGE 4096L

__asm__(".section .text.startup,\"ax\",@progbits\n"
	".globl _start\n"
	"_start:\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call golden_main\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n" /* exit_group */
	"	syscall\n"
	"	hlt\n"
	".text\n");

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define SYS(nr, ...) sys_n(nr, __VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define sys_n(nr, a, b, c, d, e, f, ...)                                       \
	sys6(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e),        \
	     (long)(f))

static long len(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(int fd, const char *s)
{
	SYS(__NR_write, fd, s, len(s));
}

static int fail(const char *what)
{
	say(2, "FAIL: ");
	say(2, what);
	say(2, "\n");
	return 1;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static unsigned long long read_tsc(void)
{
	unsigned lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

static int hello(void)
{
	char *buf, *file;
	long fd, pid;

	say(1, "hello from write(1)\n");
	say(2, "hello from write(2)\n");
	buf = (char *)SYS(__NR_mmap, 0, PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)buf > -4096UL)
		return fail("mmap of a page");
	if (read_tsc() == 0)
		return fail("rdtsc read 0");
	pid = SYS(__NR_getpid, 0);
	if (pid <= 0)
		return fail("getpid");
	if (SYS(__NR_clock_gettime, CLOCK_MONOTONIC, buf) != 0)
		return fail("clock_gettime");
	fd = SYS(__NR_openat, AT_FDCWD, "golden.dat", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fail("open golden.dat in the current directory");
	if (SYS(__NR_fstat, fd, buf + 0x100) != 0)
		return fail("fstat");
	if (SYS(__NR_read, fd, buf + 0x200, 64) != 64)
		return fail("read of 64 bytes");
	if (SYS(__NR_pread64, fd, buf + 0x300, 16, PAGE) != 16)
		return fail("pread of 16 bytes");
	file = (char *)SYS(__NR_mmap, 0, 2 * PAGE, PROT_READ, MAP_PRIVATE, fd,
			   0);
	if ((unsigned long)file > -4096UL)
		return fail("mmap of golden.dat");
	SYS(__NR_close, fd);
	if (file[0] != buf[0x200] || file[PAGE] != buf[0x300])
		return fail("the mapping differs from what read returned");
	if (SYS(__NR_write, 1, file, 16) != 16) /* a string from the file */
		return fail("write from the file mapping");
	SYS(__NR_munmap, file, 2 * PAGE);
	if (SYS(__NR_uname, buf + 0x400) != 0)
		return fail("uname");
	say(1, "\nPASS\n");
	return 0;
}

static int madv(void)
{
	volatile int *first, *middle, *third;
	char *p;
	long ret;

	p = (char *)SYS(__NR_mmap, 0, 3 * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)p > -4096UL)
		return fail("mmap of three pages");
	first = (volatile int *)p;
	middle = (volatile int *)(p + PAGE);
	third = (volatile int *)(p + 2 * PAGE);
	*first = 42;
	*third = 42;
	if (SYS(__NR_mlock, p + PAGE, PAGE) != 0)
		return fail("mlock of the middle page");
	say(1, "first=42 third=42, middle page locked\n");
	ret = SYS(__NR_madvise, p, 3 * PAGE, MADV_DONTNEED);
	if (ret != -22 /* EINVAL */)
		return fail(
			"madvise over a locked page did not fail with EINVAL");
	say(1, "madvise(MADV_DONTNEED) over 3 pages: EINVAL\n");
	if (*first != 0)
		return fail("the first page was not dropped");
	if (*middle != 0 || *third != 42)
		return fail("the madvise went past the locked page");
	say(1, "first=0 middle=0 third=42\n");
	if (SYS(__NR_munlock, p + PAGE, PAGE) != 0 ||
	    SYS(__NR_munmap, p, 3 * PAGE) != 0)
		return fail("munlock or munmap");
	say(1, "PASS\n");
	return 0;
}

__attribute__((used)) int golden_main(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);

	if (argc == 2 && same(argv[1], "hello"))
		return hello();
	if (argc == 2 && same(argv[1], "madv_seed"))
		return madv();
	return fail("usage: golden_prog hello|madv_seed");
}
