/* thread_altstack_mprotect: one thread signals itself in a loop, with its
 * handler on an alternate stack; another thread makes that stack
 * read-only and writable again in a loop (LTP signal06). A signal that
 * comes while the stack is read-only cannot get its frame, and the kernel
 * sends SIGSEGV instead. Which signals do depends on how the two threads
 * interleave; under mrr the replay must see each mprotect where the
 * recording did. The recorder lets one thread run at a time and switches
 * at syscalls: it used to switch with the mprotect already running in the
 * kernel, so that at record the other thread saw its effect before the
 * trace's place for it, and the replay diverged ("expected rt_sigreturn,
 * the task stopped with signal SIGSEGV"). */
#include "mrr_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define LOOPS 3000

static char altstack[4096 * 10] __attribute__((aligned(4096)));
static volatile int done, hups, segvs;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hups++;
	else
		segvs++;
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!done) {
		MT_SYS(mprotect(altstack, sizeof(altstack), PROT_READ));
		MT_SYS(mprotect(altstack, sizeof(altstack),
				PROT_READ | PROT_WRITE));
	}
	return NULL;
}

int main(void)
{
	stack_t st = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
	struct sigaction sa = {.sa_handler = on_signal};
	pid_t tid;
	pthread_t th;
	int i;

	mt_init();
	MT_SYS(sigaction(SIGSEGV, &sa, NULL));
	MT_SYS(sigaltstack(&st, NULL));
	sa.sa_flags = SA_ONSTACK;
	MT_SYS(sigaction(SIGHUP, &sa, NULL));
	tid = gettid();
	MT_CHECK(pthread_create(&th, NULL, flipper, NULL) == 0,
		 "pthread_create");
	for (i = 0; i < LOOPS; i++)
		MT_SYS(syscall(SYS_tkill, tid, SIGHUP));
	done = 1;
	MT_CHECK(pthread_join(th, NULL) == 0, "pthread_join");
	MT_CHECK(hups + segvs == LOOPS, "%d SIGHUP and %d SIGSEGV handled",
		 hups, segvs);
	printf("%d signals handled\n", LOOPS);
	mt_pass();
	return 0;
}
