/* hostile_thread: prints a line, then creates a thread with pthread_create
 * and joins it. mrr does not record threads yet: the recording must stop
 * there with exit 69 and one line saying threads are not supported, and
 * commit a trace of everything before (see refused.sh). Natively it prints
 * PASS. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *worker(void *arg)
{
	*(int *)arg = 42;
	return arg;
}

int main(void)
{
	pthread_t t;
	int value = 0, err;
	void *ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("creating a thread\n");
	err = pthread_create(&t, NULL, worker, &value);
	if (err) {
		fprintf(stderr, "FAIL: pthread_create: %s\n", strerror(err));
		return 1;
	}
	err = pthread_join(t, &ret);
	if (err || ret != &value || value != 42) {
		fprintf(stderr, "FAIL: pthread_join: %s, value %d\n",
			strerror(err), value);
		return 1;
	}
	printf("the thread ran\nPASS\n");
	return 0;
}
