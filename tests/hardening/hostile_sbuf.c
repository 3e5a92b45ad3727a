/* hostile_sbuf MODE: attacks what mrr puts into a recorded process, then
 * keeps working (2000 preads of a temp file of known bytes, checked, plus
 * getpid and writes) and prints PASS. MODE is one of
 *   unmap-page       munmap mrr's page at 0x700000000000;
 *   scribble-page    make that page writable and fill it with int3;
 *   unmap-buffer     munmap the syscall buffer (found in /proc/self/maps as
 *                    the mapping that starts with its magic "MRBF");
 *   scribble-buffer  fill the syscall buffer, header included, with 0xff;
 *   madvise-page     madvise(MADV_DONTNEED) over mrr's page (a call the
 *                    syscall buffer takes);
 *   shmat-page       attach a SysV shared memory segment over mrr's page
 *                    with SHM_REMAP;
 *   process-madvise-page  process_madvise(MADV_DONTNEED) over mrr's page,
 *                    through a pidfd of its own;
 *   jump-page        call the `syscall; ret` at the start of mrr's page
 *                    itself (the syscall buffer's untraced instruction),
 *                    for getrandom, and print the bytes it got.
 * Natively there is nothing to attack and it just passes. Under mrr it must
 * either still pass, recorded and replayed faithfully, or the recording must
 * stop cleanly with an error (refused.sh --allow-faithful checks both). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE_ADDR 0x700000000000ull
#define PAGE_SIZE 0x4000ull
#define MAGIC	  0x4642524du
#define BUF_SIZE  (1ul << 20) /* MRR_SYSCALLBUF_SIZE */

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %d: ", __LINE__);                \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
			exit(1);                                               \
		}                                                              \
	} while (0)

/* Start and length of the syscall buffer: the first BUF_SIZE bytes of the
 * mapping whose first word is the buffer magic (the kernel may show it
 * merged with the anonymous mapping after it). */
static int find_buffer(uintptr_t *start, size_t *len)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	CHECK(f, "cannot open /proc/self/maps");
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3 ||
		    perms[0] != 'r' || perms[1] != 'w' || b - a < 4096)
			continue;
		if (*(volatile uint32_t *)a == MAGIC) {
			*start = a;
			*len = b - a < BUF_SIZE ? b - a : BUF_SIZE;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* getrandom(buf, len, 0) through the instruction at PAGE_ADDR, below the
 * red zone, with garbage in the unused argument registers. */
static long page_getrandom(void *buf, unsigned long len)
{
	long ret = SYS_getrandom;

	__asm__ volatile("sub $128, %%rsp\n\t"
			 "mov %[page], %%r11\n\t"
			 "xor %%r10, %%r10\n\t"
			 "xor %%r8, %%r8\n\t"
			 "xor %%r9, %%r9\n\t"
			 "call *%%r11\n\t"
			 "add $128, %%rsp"
			 : "+a"(ret)
			 : "D"(buf), "S"(len), "d"(0), [page] "i"(PAGE_ADDR)
			 : "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
	return ret;
}

static void attack(const char *mode)
{
	uintptr_t start;
	size_t len;

	if (strcmp(mode, "unmap-page") == 0) {
		CHECK(munmap((void *)PAGE_ADDR, PAGE_SIZE) == 0, "munmap: %m");
		printf("unmapped 0x%llx\n", PAGE_ADDR);
	} else if (strcmp(mode, "scribble-page") == 0) {
		if (mprotect((void *)PAGE_ADDR, PAGE_SIZE,
			     PROT_READ | PROT_WRITE) == 0) {
			memset((void *)PAGE_ADDR, 0xcc, PAGE_SIZE);
			mprotect((void *)PAGE_ADDR, PAGE_SIZE,
				 PROT_READ | PROT_EXEC);
		}
		printf("scribbled over 0x%llx if it was there\n", PAGE_ADDR);
	} else if (strcmp(mode, "unmap-buffer") == 0) {
		if (find_buffer(&start, &len))
			CHECK(munmap((void *)start, len) == 0, "munmap: %m");
		printf("unmapped the syscall buffer if there was one\n");
	} else if (strcmp(mode, "scribble-buffer") == 0) {
		if (find_buffer(&start, &len))
			memset((void *)start, 0xff, len);
		printf("scribbled over the syscall buffer if there was one\n");
	} else if (strcmp(mode, "madvise-page") == 0) {
		int r = madvise((void *)PAGE_ADDR, PAGE_SIZE, MADV_DONTNEED);

		printf("madvise over 0x%llx returned %d\n", PAGE_ADDR,
		       r == 0 ? 0 : -1);
	} else if (strcmp(mode, "shmat-page") == 0) {
		int id = shmget(IPC_PRIVATE, PAGE_SIZE, IPC_CREAT | 0600);
		void *p;

		CHECK(id >= 0, "shmget: %m");
		p = shmat(id, (void *)PAGE_ADDR, SHM_REMAP);
		shmctl(id, IPC_RMID, NULL);
		if (p != (void *)-1)
			shmdt(p);
		printf("shmat over 0x%llx %s\n", PAGE_ADDR,
		       p == (void *)-1 ? "failed" : "worked");
	} else if (strcmp(mode, "process-madvise-page") == 0) {
		struct iovec v = {(void *)PAGE_ADDR, PAGE_SIZE};
		int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		long r;

		CHECK(pfd >= 0, "pidfd_open: %m");
		r = syscall(SYS_process_madvise, pfd, &v, 1, MADV_DONTNEED, 0);
		close(pfd);
		printf("process_madvise over 0x%llx %s\n", PAGE_ADDR,
		       r < 0 ? "failed" : "worked");
	} else if (strcmp(mode, "jump-page") == 0) {
		unsigned char vec, rnd[8];
		long r;

		/* natively there is no page to jump to */
		if (mincore((void *)PAGE_ADDR, 4096, &vec) == 0) {
			r = page_getrandom(rnd, sizeof(rnd));
			CHECK(r == sizeof(rnd), "getrandom: %ld", r);
			printf("random through mrr's page:");
			for (size_t i = 0; i < sizeof(rnd); i++)
				printf(" %02x", rnd[i]);
			printf("\n");
		} else {
			printf("no page at 0x%llx\n", PAGE_ADDR);
		}
	} else {
		CHECK(0, "unknown mode %s", mode);
	}
}

int main(int argc, char **argv)
{
	static unsigned char data[65536];
	unsigned char buf[64];
	char path[64];
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc == 2, "usage: hostile_sbuf MODE");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + (i >> 8));
	snprintf(path, sizeof(path), "/tmp/mrr-hostile-sbuf-%d", (int)getpid());
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	CHECK(fd >= 0, "open %s: %m", path);
	unlink(path);
	CHECK(write(fd, data, sizeof(data)) == sizeof(data), "write: %m");

	attack(argv[1]);

	for (int i = 0; i < 2000; i++) {
		off_t off = (off_t)i * 4099 % (sizeof(data) - sizeof(buf));

		CHECK(pread(fd, buf, sizeof(buf), off) == sizeof(buf),
		      "pread %d: %m", i);
		CHECK(memcmp(buf, data + off, sizeof(buf)) == 0,
		      "pread %d read other bytes", i);
		CHECK(getpid() > 0, "getpid");
	}
	close(fd);
	printf("2000 preads after the attack read the right bytes\nPASS\n");
	return 0;
}
