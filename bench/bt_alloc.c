/* bt_alloc CALLS [EVERY] [VMAS]: what an allocator that purges eagerly
 * (jemalloc with decay 0) asks of `mrr record --backtrace`. Fractures a
 * region into VMAS VMAs (default 2,000: an allocator's extents), then
 * makes CALLS madvise(MADV_FREE) calls (default 3,000), each on a page
 * of an "extent" it touched, from a few static functions deep in the
 * program (symbols an ELF symbol table does not name); every EVERY-th
 * call (default 8; 0: never) maps a fresh extent and unmaps the oldest,
 * so the process's mappings keep changing as an allocator's do.
 * MADV_FREE is never buffered, so each call stops the recorder. Used by
 * bench/backtrace.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define RING 16

static long pg;
static char *ring[RING];
static long ring_next;

static __attribute__((noinline)) int purge(char *page)
{
	*page = 1;
	if (madvise(page, (size_t)pg, MADV_FREE) < 0) {
		perror("bt_alloc: madvise");
		return -1;
	}
	return 0;
}

static __attribute__((noinline)) int extent_churn(void)
{
	long slot = ring_next++ % RING;
	char *p = mmap(NULL, (size_t)(4 * pg), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("bt_alloc: mmap");
		return -1;
	}
	if (ring[slot])
		munmap(ring[slot], (size_t)(4 * pg));
	ring[slot] = p;
	return 0;
}

static __attribute__((noinline)) int dalloc(char *base, long npages, long i,
					    long every)
{
	if (every && i % every == 0 && extent_churn() < 0)
		return -1;
	return purge(base + ((i * 7919) % npages) * pg);
}

static __attribute__((noinline)) int arena_loop(char *base, long npages,
						long calls, long every)
{
	long i;

	for (i = 0; i < calls; i++)
		if (dalloc(base, npages, i, every) < 0)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 3000;
	long every = argc > 2 ? atol(argv[2]) : 8;
	long vmas = argc > 3 ? atol(argv[3]) : 2000;
	long npages, i;
	char *p;

	pg = sysconf(_SC_PAGESIZE);
	npages = 2 * vmas;
	p = mmap(NULL, (size_t)(npages * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("bt_alloc: mmap");
		return 1;
	}
	for (i = 0; i < npages; i += 2)
		if (madvise(p + i * pg, (size_t)pg, MADV_NOHUGEPAGE) < 0) {
			perror("bt_alloc: madvise NOHUGEPAGE");
			return 1;
		}
	if (arena_loop(p, npages, calls, every) < 0)
		return 1;
	printf("bt_alloc: %ld calls, churn every %ld, %ld VMAs\n", calls, every,
	       vmas);
	return 0;
}
