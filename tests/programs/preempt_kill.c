/* preempt_kill: a signal from another process reaches a loop that makes no
 * syscall. The child installs a SIGUSR1 handler, tells the parent it is
 * ready through a pipe and computes until the handler sets a flag; the
 * parent sends SIGUSR1 (kill) as soon as it reads the pipe, three times,
 * and the child prints how far each loop got. The replay must print the
 * recorded counts. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>

#define MUL 6364136223846793005ull
#define ADD 1442695040888963407ull

static volatile sig_atomic_t stop;

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

#define R(x)                                                                   \
	x = x * MUL + ADD;                                                     \
	x ^= x >> 27;
#define R8(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x)

/* Straight-line, a few hundred ns: the replay finds the point by
 * stopping at each execution of one instruction since the last event. */
/* clang-format off */
#define R128(x) R8(x) R8(x) R8(x) R8(x) R8(x) R8(x) R8(x) R8(x) \
	R8(x) R8(x) R8(x) R8(x) R8(x) R8(x) R8(x) R8(x)
/* clang-format on */

__attribute__((noinline)) static uint64_t work(uint64_t x)
{
	R128(x)
	return x;
}

int main(void)
{
	int ready[2], done[2], status;
	pid_t pid;
	char c = 'r';

	mt_init();
	MT_SYS(pipe(ready));
	MT_SYS(pipe(done));
	pid = MT_SYS(fork());
	if (pid == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		MT_SYS(sigaction(SIGUSR1, &sa, NULL));
		for (int round = 1; round <= 3; round++) {
			uint64_t n = 0, x = (uint64_t)round;

			stop = 0;
			MT_SYS(write(ready[1], &c, 1));
			while (!stop) {
				x = work(x);
				n++;
			}
			printf("child round %d: %llu iterations, x=%016llx\n",
			       round, (unsigned long long)n,
			       (unsigned long long)x);
			MT_SYS(write(done[1], &c, 1));
		}
		_exit(0);
	}
	for (int round = 1; round <= 3; round++) {
		MT_CHECK(MT_SYS(read(ready[0], &c, 1)) == 1, "child gone");
		MT_SYS(kill(pid, SIGUSR1));
		MT_CHECK(MT_SYS(read(done[0], &c, 1)) == 1, "child gone");
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child status 0x%x", status);
	mt_pass();
	return 0;
}
