/* thread_exit_big: a process whose main thread calls exit_group while
 * another thread waits for its turn to run, and whose memory takes the
 * kernel a while to free (Go's linker at the end of `go build`). The main
 * thread is a zombie until the last thread is gone, which is while that
 * thread's exit frees the memory: the recorder once took the dead main
 * thread for a runner spinning in user code, waited for it to stop, and
 * hung for ever. Each round is a child process; the parent checks that
 * every child exited with its status. */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define ROUNDS 6
#define BIG    (96ul << 20)

static void *worker(void *arg)
{
	(void)arg;
	for (;;)
		getppid(); /* always ready to run: waits for the slot */
	return NULL;
}

static void child(int round)
{
	char *p = mmap(NULL, BIG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t w;

	if (p == MAP_FAILED)
		_exit(100);
	for (unsigned long i = 0; i < BIG; i += 4096)
		p[i] = (char)i;
	if (pthread_create(&w, NULL, worker, NULL) != 0)
		_exit(101);
	for (int i = 0; i < 50; i++)
		getpid();
	_exit(round);
}

int main(void)
{
	mt_init();
	for (int r = 0; r < ROUNDS; r++) {
		int st;
		pid_t pid = fork();

		MT_CHECK(pid >= 0, "fork");
		if (pid == 0)
			child(r);
		MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
		MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == r,
			 "round %d: status 0x%x", r, st);
		printf("round %d exited %d\n", r, WEXITSTATUS(st));
	}
	mt_pass();
	return 0;
}
