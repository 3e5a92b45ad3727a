/* seccomp_strict: seccomp strict mode (PR_SET_SECCOMP 1, or seccomp()
 * SECCOMP_SET_MODE_STRICT) leaves a thread read, write, exit and
 * rt_sigreturn; any other call kills it with SIGKILL, exit_group and
 * PR_GET_SECCOMP included, and rdtsc faults (the kernel turns the TSC
 * off). The vDSO's answers that need no rdtsc (time, a coarse clock,
 * clock_getres) make no syscall and work; a CPU-time clock is a syscall. mrr
 * cannot put a task in strict mode next to its own filter, so it emulates it.
 * Each case runs in a child that enters strict mode; the parent checks how it
 * ended, natively, at record and at replay alike. The killed children count
 * themselves in a shared page between their last allowed call and the
 * forbidden one, as LTP's result counters do: the replay must run them to
 * the forbidden call before it kills them (LTP seccomp01 replayed with
 * fewer passes than it recorded). */
#include "mrr_test.h"

#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>

/* a MAP_SHARED page: the children's count of the forbidden calls they reach */
static volatile int *reached;

static void say(const char *s)
{
	syscall(SYS_write, 1, s, strlen(s));
}

static void enter_strict(int how)
{
	long r = how ? syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL)
		     : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);

	if (r != 0)
		syscall(SYS_exit, 100);
}

/* A thread that enters strict mode and makes a forbidden call: the
 * kernel ends it alone, and its process goes on. */
static void *strict_thread(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) != 0)
		return (void *)1;
	say("thread: calling getppid\n");
	syscall(SYS_getppid);
	return (void *)2;
}

/* Runs one case in a child; returns its wait status. */
static int run(int which)
{
	char buf[8] = {0};
	struct timespec ts;
	int fds[2], status;
	unsigned lo, hi;
	pid_t pid;

	MT_SYS(pipe(fds));
	MT_SYS(write(fds[1], "abc", 3));
	fflush(stdout);
	pid = fork();
	MT_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (which != 9)
			enter_strict(which & 1);
		switch (which) {
		case 0: /* read and write, then exit: allowed */
		case 1:
			if (syscall(SYS_read, fds[0], buf, 3) != 3 ||
			    memcmp(buf, "abc", 3))
				syscall(SYS_exit, 101);
			say("child: read and wrote in strict mode\n");
			syscall(SYS_exit, 7);
			break;
		case 2: /* a forbidden call: killed before it runs */
			say("child: calling getppid\n");
			__atomic_add_fetch(reached, 1, __ATOMIC_SEQ_CST);
			syscall(SYS_getppid);
			syscall(SYS_exit, 102);
			break;
		case 3: /* exit_group is not in the list */
			syscall(SYS_exit_group, 3);
			break;
		case 4: /* asking for the mode is a prctl, forbidden too */
			__atomic_add_fetch(reached, 1, __ATOMIC_SEQ_CST);
			syscall(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0);
			syscall(SYS_exit, 104);
			break;
		case 6: /* the vDSO answers these without rdtsc or syscall */
			if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) < 0 ||
			    clock_getres(CLOCK_MONOTONIC, &ts) < 0 ||
			    time(NULL) == -1)
				syscall(SYS_exit, 107);
			syscall(SYS_exit, 7);
			break;
		case 7: /* a CPU-time clock is no vDSO's: a syscall */
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
			syscall(SYS_exit, 108);
			break;
		case 9: { /* another thread dies alone */
			pthread_t th;
			void *ret = NULL;

			if (pthread_create(&th, NULL, strict_thread, NULL) ||
			    pthread_join(th, &ret))
				_exit(110);
			say("child: the strict thread is gone\n");
			_exit(ret == NULL || ret == PTHREAD_CANCELED ? 7 : 111);
		}
		case 8: /* rt_sigaction too (mrr's filter lets most through) */
			signal(SIGUSR1, SIG_IGN);
			syscall(SYS_exit, 109);
			break;
		case 5: /* the TSC is off: rdtsc faults */
			__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
			syscall(SYS_exit, 105);
			break;
		}
		syscall(SYS_exit, 106);
	}
	MT_SYS(waitpid(pid, &status, 0));
	close(fds[0]);
	close(fds[1]);
	return status;
}

int main(void)
{
	static const char *const names[] = {
		"read/write/exit (prctl)",
		"read/write/exit (seccomp)",
		"getppid",
		"exit_group",
		"PR_GET_SECCOMP",
		"rdtsc",
		"vDSO clocks",
		"CPU-time clock",
		"rt_sigaction",
		"a thread of two",
	};
	int status, i;

	mt_init();
	reached = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MT_CHECK(reached != MAP_FAILED, "mmap: %s", strerror(errno));
	MT_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0,
		 "PR_GET_SECCOMP before: %s", strerror(errno));
	/* bad arguments fail without entering the mode */
	MT_CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL) == -1 &&
			 errno == EINVAL,
		 "seccomp(STRICT, 1): %s", strerror(errno));
	MT_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0,
		 "PR_GET_SECCOMP after a failed call: %s", strerror(errno));
	for (i = 0; i < 10; i++) {
		status = run(i);
		if (i < 2 || i == 6 || i == 9)
			MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7,
				 "%s: status 0x%x", names[i], status);
		else if (i == 5)
			MT_CHECK(WIFSIGNALED(status) &&
					 WTERMSIG(status) == SIGSEGV,
				 "%s: status 0x%x", names[i], status);
		else
			MT_CHECK(WIFSIGNALED(status) &&
					 WTERMSIG(status) == SIGKILL,
				 "%s: status 0x%x", names[i], status);
		printf("%s: status 0x%x\n", names[i], status & 0x7f7f);
	}
	MT_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0,
		 "PR_GET_SECCOMP in the parent: %s", strerror(errno));
	printf("forbidden calls reached: %d\n", *reached);
	MT_CHECK(*reached == 2, "the killed children counted %d, not 2",
		 *reached);
	printf("PASS\n");
	return 0;
}
