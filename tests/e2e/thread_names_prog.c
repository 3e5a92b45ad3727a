/* thread_names_prog: the threaded program of tests/e2e/thread_names.sh.
 * Two workers take turns with the main thread through a mutex and a
 * condition variable (so the recording has scheduling switches), each
 * writes one line with write(2) and checks what it returned: a trace whose
 * write result was edited makes that worker call getppid() where the
 * recording called something else, a divergence in that thread. The
 * second worker then vforks a child that exits 42 and waits for it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;

static void *worker(void *arg)
{
	long id = (long)arg;
	char line[32];
	int i, n;

	for (i = 0; i < 3; i++) {
		pthread_mutex_lock(&mu);
		while (turn % 3 != id)
			pthread_cond_wait(&cv, &mu);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	n = snprintf(line, sizeof(line), "worker %ld\n", id);
	if (write(1, line, (size_t)n) != n)
		syscall(SYS_getppid);
	if (id == 2) {
		/* a vfork from a thread: the watchdog case of the test */
		pid_t c = vfork();
		int st;

		if (c == 0)
			_exit(42);
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 42)
			write(1, "vfork failed\n", 13);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (i = 0; i < 3; i++) {
		pthread_mutex_lock(&mu);
		while (turn % 3 != 0)
			pthread_cond_wait(&cv, &mu);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("turns %d\nPASS\n", turn);
	return 0;
}
