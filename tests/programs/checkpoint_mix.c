/* checkpoint_mix: state of every kind changing step by step, for the
 * checkpoint tests (tests/e2e/checkpoint.sh go back to events in the middle
 * of the loop and replay to the end again). Each step reads a file, writes
 * through a MAP_SHARED mapping of a file and of a memfd, writes the same
 * files with pwrite, moves brk, drops malloc'd pages with madvise, and has
 * a child (alive through all steps) add to shared anonymous memory; then it
 * prints a checksum of all of it. A replay that went back to a checkpoint
 * and restored any of it wrongly prints another checksum or diverges. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define STEPS 24

static uint64_t sum(const void *p, size_t len, uint64_t h)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/mrr-checkpoint-mix-XXXXXX", buf[64];
	int fd, mfd, to_child[2], to_parent[2], status;
	unsigned char *file_map, *memfd_map, *big;
	uint64_t *anon;
	pid_t pid;

	mt_init();
	fd = MT_SYS(mkstemp(path));
	MT_SYS(unlink(path));
	MT_SYS(ftruncate(fd, 2 * pg));
	file_map = MT_SYS(
		mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	mfd = MT_SYS(memfd_create("mrr-checkpoint-mix", 0));
	MT_SYS(ftruncate(mfd, pg));
	memfd_map = MT_SYS(
		mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0));
	anon = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	big = malloc(64 * pg);
	MT_CHECK(big, "malloc");
	big = (unsigned char *)(((uintptr_t)big + pg - 1) &
				~(uintptr_t)(pg - 1));
	MT_SYS(pipe(to_child));
	MT_SYS(pipe(to_parent));

	pid = MT_SYS(fork());
	if (pid == 0) { /* adds to anon[] at each step, when told */
		char c;

		MT_SYS(close(to_child[1]));
		while (read(to_child[0], &c, 1) == 1) {
			anon[c % 8] += (uint64_t)c * 3 + 1;
			/* a traced call between the store and the pipe write,
			 * so that the store is recorded before the parent's
			 * read can end (README, shared-memory limit) */
			MT_SYS(msync(anon, pg, MS_SYNC));
			MT_SYS(write(to_parent[1], &c, 1));
		}
		_exit(0);
	}

	for (int i = 0; i < STEPS; i++) {
		char c = (char)('a' + i);
		void *brk0 = sbrk(0);
		uint64_t h = 1469598103934665603ull;

		/* the child's step */
		MT_SYS(write(to_child[1], &c, 1));
		MT_CHECK(read(to_parent[0], &c, 1) == 1, "child ack");
		/* a shared file: through the mapping and with pwrite */
		file_map[i * 37 % (2 * pg)] += (unsigned char)i;
		snprintf(buf, sizeof(buf), "step %d", i);
		MT_CHECK(pwrite(fd, buf, strlen(buf), pg + i * 8) ==
				 (ssize_t)strlen(buf),
			 "pwrite");
		MT_CHECK(pread(fd, buf, 8, i * 4) == 8, "pread");
		h = sum(buf, 8, h);
		/* a memfd: write(2) then the mapping */
		MT_CHECK(pwrite(mfd, &c, 1, i) == 1, "memfd pwrite");
		memfd_map[pg - 1 - i] = (unsigned char)(memfd_map[i] + 1);
		/* brk up and partly down again */
		MT_SYS(sbrk(3 * pg));
		memset(brk0, i, 3 * pg);
		h = sum(brk0, 3 * pg, h);
		MT_SYS(brk((char *)brk0 + pg * (i % 3)));
		/* private anonymous pages written, some dropped */
		memset(big + (i % 64) * pg, c, pg);
		if (i % 4 == 3)
			MT_SYS(madvise(big + ((i + 1) % 64) * pg, 2 * pg,
				       MADV_DONTNEED));
		h = sum(big, 64 * pg, h);
		h = sum(file_map, 2 * pg, h);
		h = sum(memfd_map, pg, h);
		h = sum(anon, 8 * sizeof(*anon), h);
		printf("step %d: %016llx\n", i, (unsigned long long)h);
	}
	MT_SYS(close(to_child[1]));
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %x",
		 status);
	mt_pass();
	return 0;
}
