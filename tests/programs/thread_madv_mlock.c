/* thread_madv_mlock: two threads take turns (a mutex and a condition
 * variable) on one 16-page region with page 5 mlocked: each turn writes
 * into every page, drops the pages around the locked one with
 * MADV_DONTNEED (which refuses locked pages), sums what it reads back
 * (zeroes, and the locked page's bytes), then marks every third page. The
 * sums depend on every drop happening in the recorded order. */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/mman.h>

#define PAGES 16
#define TURNS 20

static unsigned char *region;
static long page;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;
static unsigned long sums[2];

static void *worker(void *arg)
{
	long id = (long)arg, t, p;

	for (t = 0; t < TURNS; t++) {
		pthread_mutex_lock(&lock);
		while (turn % 2 != id)
			pthread_cond_wait(&cv, &lock);
		for (p = 0; p < PAGES; p++)
			region[p * page] = (unsigned char)(id * 100 + t + p);
		MT_SYS(madvise(region, 5 * page, MADV_DONTNEED));
		MT_SYS(madvise(region + 6 * page, (PAGES - 6) * page,
			       MADV_DONTNEED));
		for (p = 0; p < PAGES; p++)
			sums[id] += region[p * page] + region[p * page + 7];
		for (p = 0; p < PAGES; p += 3)
			region[p * page + 7] = (unsigned char)(t + 1);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long i;

	mt_init();
	page = sysconf(_SC_PAGESIZE);
	region = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	MT_CHECK(region != MAP_FAILED, "mmap");
	/* may fail for nobody (RLIMIT_MEMLOCK): the drops behave the same */
	(void)mlock(region + 5 * page, page);
	for (i = 0; i < 2; i++)
		MT_CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0,
			 "create");
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("sums %lu %lu\n", sums[0], sums[1]);
	mt_pass();
	return 0;
}
