/* hostile_sigstop: job control inside the recorded process tree. A child
 * stops itself with SIGSTOP; the parent must see it stopped
 * (waitpid(WUNTRACED)), continue it with SIGCONT and see that too
 * (waitpid(WCONTINUED)), and then its exit status. A tracer that resumes
 * every stop it sees would let the child run on: the parent would then
 * see an exit where a stop belongs. The child waits on a pipe after it is
 * continued, so that its exit cannot hide the continue from the parent
 * (waitpid reports an exit first). */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

int main(void)
{
	int st, go[2];
	pid_t pid;
	char c;

	mt_init();
	MT_SYS(pipe(go));
	pid = MT_SYS(fork());
	if (pid == 0) {
		close(go[1]);
		raise(SIGSTOP);
		MT_CHECK(read(go[0], &c, 1) == 1, "read: %s", strerror(errno));
		printf("child continued\n");
		_exit(5);
	}
	close(go[0]);
	MT_CHECK(MT_SYS(waitpid(pid, &st, WUNTRACED)) == pid, "waitpid");
	MT_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
		 "expected the child stopped by SIGSTOP, status %#x", st);
	printf("child stopped\n");
	MT_SYS(kill(pid, SIGCONT));
	MT_CHECK(MT_SYS(waitpid(pid, &st, WCONTINUED)) == pid, "waitpid");
	MT_CHECK(WIFCONTINUED(st), "expected the child continued, status %#x",
		 st);
	MT_SYS(write(go[1], "g", 1));
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5,
		 "expected exit 5, status %#x", st);
	printf("child exited 5\n");
	mt_pass();
	return 0;
}
