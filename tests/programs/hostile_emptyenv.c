/* hostile_emptyenv: execs itself with an empty environment (envp holds
 * only the terminating NULL; argv is just "stage2"), then checks it
 * really has no environment and that the libc functions that consult one
 * (time zone, locale, PATH lookup, getlogin-free user lookups) still work:
 * localtime falls back to /etc/localtime or UTC, setlocale(LC_ALL, "")
 * gives "C", execvp of "true" uses the default search path. */
#include "mrr_test.h"

#include <locale.h>
#include <pwd.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static void stage_empty(void)
{
	char when[64], *loc;
	struct passwd *pw;
	time_t now = time(NULL);
	struct tm tm;
	int st;
	pid_t pid;

	MT_CHECK(environ == NULL || environ[0] == NULL,
		 "the environment is not empty: %s", environ[0]);
	MT_CHECK(getenv("PATH") == NULL && getenv("HOME") == NULL,
		 "PATH or HOME is set");

	loc = setlocale(LC_ALL, "");
	MT_CHECK(loc != NULL && strcmp(loc, "C") == 0, "locale %s",
		 loc ? loc : "(null)");
	MT_CHECK(localtime_r(&now, &tm) != NULL, "localtime failed");
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	pw = getpwuid(getuid());
	printf("empty environment: locale %s, now %s, uid %u is %s\n", loc,
	       when, (unsigned)getuid(), pw ? pw->pw_name : "(unknown)");

	pid = MT_SYS(fork());
	if (pid == 0) {
		char *const args[] = {"true", NULL};

		execvp("true", args);
		_exit(90);
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "execvp(\"true\") with no PATH: status %#x", st);
	printf("execvp found true without PATH\n");
	mt_pass();
}

int main(int argc, char **argv)
{
	char *const args[] = {"stage2", NULL}, *const empty[] = {NULL};
	int n = 0;

	mt_init();
	if (argc == 1 && strcmp(argv[0], "stage2") == 0) {
		stage_empty();
		return 0;
	}
	while (environ && environ[n])
		n++;
	printf("%d environment strings; exec with none\n", n);
	fflush(stdout);
	execve("/proc/self/exe", args, empty);
	MT_CHECK(0, "exec with an empty environment failed: %s",
		 strerror(errno));
	return 1;
}
