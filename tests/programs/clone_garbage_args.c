/* clone_garbage_args: clone's later argument registers are inputs only
 * for some flags: tls (r8) with CLONE_SETTLS, the child's tid address
 * (r10) with CLONE_CHILD_SETTID/CLEARTID, the parent's (rdx) with
 * CLONE_PARENT_SETTID or CLONE_PIDFD. glibc's clone() is variadic and
 * passes on whatever those registers held, as stress-ng's sigpipe
 * stressor does: there r8 held 0x...020 at record and 0x...050 at replay,
 * and the replay diverged on "clone argument 5". Here the clone follows a
 * buffered call at once, so r8, r10 and rdx hold what the syscall buffer
 * library left in them, which differs between record and replay; the
 * replay must compare only the registers the kernel reads. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* clone(flags, 0) with rdx, r10 and r8 left as the caller's callee left
 * them. */
long raw_clone_keep(long flags);
__asm__(".text\n"
	".globl raw_clone_keep\n"
	".type raw_clone_keep, @function\n"
	"raw_clone_keep:\n"
	"	mov $56, %eax\n"
	"	xor %esi, %esi\n"
	"	syscall\n"
	"	ret\n"
	".size raw_clone_keep, .-raw_clone_keep\n");

static void reap(long pid, int code)
{
	int st;

	MT_CHECK(pid > 0, "clone: %s", strerror((int)-pid));
	MT_CHECK(MT_SYS(waitpid((pid_t)pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == code,
		 "expected exit %d, status %#x", code, st);
}

int main(void)
{
	struct timespec ts;
	long pid;
	int i;

	mt_init();
	for (i = 0; i < 8; i++) {
		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &ts));
		pid = raw_clone_keep(SIGCHLD);
		if (pid == 0)
			syscall(SYS_exit_group, 3);
		reap(pid, 3);
		(void)getpid();
		pid = raw_clone_keep(SIGCHLD);
		if (pid == 0)
			syscall(SYS_exit_group, 4);
		reap(pid, 4);
	}
	printf("16 children reaped\n");
	mt_pass();
	return 0;
}
