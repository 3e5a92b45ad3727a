/* hostile_setuid: a child execs a set-user-ID binary (passwd --help, else
 * su --help or chfn --help) with its stdout on a pipe; the parent reads it
 * all, and checks the child exited 0 and printed its usage. Under ptrace
 * the kernel may run the binary without its set-user-ID privilege; its
 * --help output does not need it. */
#include "mrr_test.h"

#include <sys/stat.h>
#include <sys/wait.h>

static const char *const candidates[] = {"/usr/bin/passwd", "/bin/su",
					 "/usr/bin/chfn"};

int main(void)
{
	extern char **environ;
	static char out[65536];
	const char *prog = NULL;
	size_t len = 0;
	ssize_t n;
	struct stat st;
	int p[2], status;
	pid_t pid;

	mt_init();
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (stat(candidates[i], &st) == 0 && (st.st_mode & S_ISUID)) {
			prog = candidates[i];
			break;
		}
	MT_CHECK(prog != NULL, "no set-user-ID passwd, su or chfn found");
	printf("exec %s --help (mode %04o, owner %u)\n", prog,
	       (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);

	MT_SYS(setenv("LC_ALL", "C", 1)); /* an English "Usage:" */
	MT_SYS(pipe(p));
	pid = MT_SYS(fork());
	if (pid == 0) {
		char *const argv[] = {(char *)prog, "--help", NULL};

		if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(90);
		close(p[0]);
		close(p[1]);
		execve(prog, argv, environ);
		_exit(91);
	}
	MT_SYS(close(p[1]));
	while ((n = MT_SYS(read(p[0], out + len, sizeof(out) - 1 - len))) > 0)
		len += n;
	out[len] = 0;
	MT_SYS(close(p[0]));
	MT_CHECK(MT_SYS(waitpid(pid, &status, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "%s --help: status %#x, output: %s", prog, status, out);
	MT_CHECK(strstr(out, "Usage:") != NULL, "%s --help printed: %s", prog,
		 out);
	printf("%s --help exited 0 with %zu bytes of usage\n", prog, len);
	mt_pass();
	return 0;
}
