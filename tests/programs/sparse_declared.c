/* sparse_declared: large declared sizes, little data. A 2 GiB sparse file
 * and a 2 GiB memfd, each mapped shared and private, written in a few
 * pages, grown with ftruncate and mremap, punched, written with pwrite and
 * mapped again (a second stored version); a 256 MiB SysV segment attached
 * twice with a few pages written; a 16 GiB MAP_NORESERVE anonymous region
 * touched in a few pages and read by a forked child. About 1 MiB of data
 * in all: tests/e2e/trace_size.sh checks that the trace stays small. */
/* mrr-test: timeout=120 */
#define _GNU_SOURCE
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

#define G	 (1UL << 30)
#define NTOUCH	 32
#define PAGE_SZ	 4096UL
#define ANON_LEN (16 * G)
#define SHM_LEN	 (256UL << 20)

/* writes a recognisable page at each of NTOUCH offsets spread over len */
static void touch(char *p, unsigned long len, int tag)
{
	for (int i = 0; i < NTOUCH; i++) {
		unsigned long off = (len / NTOUCH) * (unsigned long)i;

		memset(p + off, tag + i, PAGE_SZ);
	}
}

static void check(const char *p, unsigned long len, int tag, const char *what)
{
	for (int i = 0; i < NTOUCH; i++) {
		unsigned long off = (len / NTOUCH) * (unsigned long)i;

		MT_CHECK(p[off] == (char)(tag + i) &&
				 p[off + PAGE_SZ - 1] == (char)(tag + i),
			 "%s: page %d reads %d", what, i, p[off]);
	}
}

static void file_like(int fd, const char *what, int tag)
{
	char *shared, *priv, buf[8];

	MT_SYS(ftruncate(fd, (off_t)(2 * G)));
	shared = MT_SYS(
		mmap(NULL, 2 * G, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	touch(shared, 2 * G, tag);
	priv = MT_SYS(
		mmap(NULL, 2 * G, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	check(priv, 2 * G, tag, what);
	strcpy(priv + G, "private");
	MT_CHECK(pwrite(fd, "pwrite", 6, (off_t)(G + G / 2)) == 6, "pwrite");
	MT_CHECK(memcmp(shared + G + G / 2, "pwrite", 6) == 0,
		 "%s: the shared view misses the pwrite", what);
	/* grow: the file, then the mapping */
	MT_SYS(ftruncate(fd, (off_t)(3 * G)));
	shared = MT_SYS(mremap(shared, 2 * G, 3 * G, MREMAP_MAYMOVE));
	strcpy(shared + 3 * G - PAGE_SZ, "grown");
	MT_SYS(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			 (off_t)PAGE_SZ));
	MT_CHECK(shared[0] == 0 && shared[PAGE_SZ] == 0,
		 "%s: the punched page reads %d", what, shared[0]);
	MT_SYS(munmap(priv, 2 * G));
	/* a second version of the file, mapped again */
	priv = MT_SYS(mmap(NULL, 3 * G, PROT_READ, MAP_PRIVATE, fd, 0));
	MT_CHECK(strcmp(priv + 3 * G - PAGE_SZ, "grown") == 0,
		 "%s: the new mapping reads '%s'", what,
		 priv + 3 * G - PAGE_SZ);
	MT_CHECK(pread(fd, buf, 6, (off_t)(G + G / 2)) == 6 &&
			 memcmp(buf, "pwrite", 6) == 0,
		 "%s: pread", what);
	printf("%s: %lu GiB declared, %d pages written\n", what, 3 * G >> 30,
	       NTOUCH + 2);
	MT_SYS(munmap(priv, 3 * G));
	MT_SYS(munmap(shared, 3 * G));
	MT_SYS(close(fd));
}

int main(void)
{
	char *seg, *anon;
	int fd, id, status;
	pid_t pid;

	mt_init();
	fd = MT_SYS(
		open("sparse_declared.dat", O_RDWR | O_CREAT | O_TRUNC, 0600));
	MT_SYS(unlink("sparse_declared.dat"));
	file_like(fd, "sparse file", 1);
	file_like(MT_SYS(memfd_create("mrr-declared", 0)), "memfd", 40);

	id = MT_SYS(
		shmget(IPC_PRIVATE, SHM_LEN, IPC_CREAT | 0600 | SHM_NORESERVE));
	seg = MT_SYS(shmat(id, NULL, 0));
	touch(seg, SHM_LEN, 80);
	MT_SYS(shmdt(seg));
	seg = MT_SYS(shmat(id, NULL, SHM_RDONLY));
	check(seg, SHM_LEN, 80, "shm");
	MT_SYS(shmdt(seg));
	MT_SYS(shmctl(id, IPC_RMID, NULL));
	printf("shm: %lu MiB declared, %d pages written\n", SHM_LEN >> 20,
	       NTOUCH);

	anon = MT_SYS(mmap(NULL, ANON_LEN, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
	touch(anon, ANON_LEN, 120);
	pid = MT_SYS(fork());
	if (pid == 0) {
		check(anon, ANON_LEN, 120, "anon in the child");
		_exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child status 0x%x", status);
	printf("anonymous: %lu GiB declared, %d pages written\n",
	       ANON_LEN >> 30, NTOUCH);
	mt_pass();
	return 0;
}
