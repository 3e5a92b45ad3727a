/* thread_signal: signals directed at one thread. Each of three threads
 * blocks SIGUSR1 or not (per-thread masks); the main thread sends SIGUSR1
 * to the thread that does not block it with pthread_kill (tgkill), and
 * SIGUSR2 to another with tgkill; the handler records which thread ran it.
 * A thread waits for its signal in sigwait. */
#include "mrr_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

static volatile pid_t got_usr1, got_usr2;
static pid_t tids[2];
static volatile int ready;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = (pid_t)syscall(SYS_gettid);
}

static void on_usr2(int sig)
{
	(void)sig;
	got_usr2 = (pid_t)syscall(SYS_gettid);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	sigset_t set;
	int sig = 0;

	tids[id] = (pid_t)syscall(SYS_gettid);
	sigemptyset(&set);
	sigaddset(&set, id == 0 ? SIGUSR2 : SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	__atomic_add_fetch(&ready, 1, __ATOMIC_RELEASE);
	if (id == 0) {
		/* takes SIGUSR1 in its handler */
		while (!got_usr1)
			usleep(1000);
	} else {
		/* takes SIGUSR1 (blocked here) synchronously */
		sigwait(&set, &sig);
		MT_CHECK(sig == SIGUSR1, "sigwait got %d", sig);
		while (!got_usr2)
			usleep(1000);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long i;

	mt_init();
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	for (i = 0; i < 2; i++)
		MT_CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0,
			 "create");
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < 2)
		usleep(1000);
	MT_CHECK(pthread_kill(th[0], SIGUSR1) == 0, "pthread_kill");
	MT_CHECK(pthread_kill(th[1], SIGUSR1) == 0, "pthread_kill 2");
	MT_SYS(syscall(SYS_tgkill, getpid(), tids[1], SIGUSR2));
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	MT_CHECK(got_usr1 == tids[0], "SIGUSR1 ran in %d, not %d", got_usr1,
		 tids[0]);
	MT_CHECK(got_usr2 == tids[1], "SIGUSR2 ran in %d, not %d", got_usr2,
		 tids[1]);
	printf("signals reached their threads\n");
	mt_pass();
	return 0;
}
