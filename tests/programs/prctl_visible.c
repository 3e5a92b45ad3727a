/* prctl_visible: the process settings mrr changes for itself must not show
 * through to the program. It asks for its rdtsc mode (PR_GET_TSC), changes
 * it and reads it back, asks for its seccomp mode (PR_GET_SECCOMP) and its
 * personality (ADDR_NO_RANDOMIZE must be off, as the harness runs it
 * natively with randomisation on), changes the personality, and checks that
 * a child inherits all of it and that an exec keeps it. It passes -1 in the
 * argument registers PR_SET_NAME does not read. The native run, the
 * recording and the replay must all see the same answers.
 */
#include "mrr_test.h"

#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

static int get_tsc(void)
{
	int mode = -1;

	MT_SYS(prctl(PR_GET_TSC, &mode, 0, 0, 0));
	return mode;
}

static void check_state(const char *who, int tsc, int persona)
{
	int p = personality(0xffffffff);

	MT_CHECK(get_tsc() == tsc, "%s: tsc mode %d, want %d", who, get_tsc(),
		 tsc);
	MT_CHECK(p == persona, "%s: personality 0x%x, want 0x%x", who, p,
		 persona);
	MT_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0,
		 "%s: PR_GET_SECCOMP returned %d (%s)", who,
		 prctl(PR_GET_SECCOMP, 0, 0, 0, 0), strerror(errno));
	printf("%s: tsc %d personality 0x%x seccomp 0\n", who, tsc, persona);
}

int main(int argc, char **argv)
{
	int persona, old, status;
	char name[17] = {0};
	pid_t pid;

	mt_init();
	if (argc == 4) { /* after exec: the settings came along */
		check_state("exec", atoi(argv[2]), (int)strtol(argv[3], 0, 16));
		mt_pass();
		return 0;
	}
	persona = personality(0xffffffff);
	MT_CHECK(!(persona & ADDR_NO_RANDOMIZE), "personality 0x%x", persona);
	check_state("start", PR_TSC_ENABLE, persona);

	/* garbage in the registers PR_SET_NAME does not read: -1, then
	 * whatever a buffered call left in them (before PR_TSC_SIGSEGV:
	 * the vDSO's clock_gettime runs rdtsc) */
	MT_SYS(syscall(SYS_prctl, PR_SET_NAME, "visible", -1L, -1L, -1L, -1L));
	MT_SYS(prctl(PR_GET_NAME, name, 0, 0, 0));
	MT_CHECK(strcmp(name, "visible") == 0, "name %s", name);
	{
		struct timespec ts;
		long ret;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "a"((long)SYS_prctl), "D"((long)PR_SET_NAME),
				   "S"("garbage")
				 : "rcx", "r11", "memory");
		MT_CHECK(ret == 0, "PR_SET_NAME: %ld", ret);
		MT_SYS(prctl(PR_GET_NAME, name, 0, 0, 0));
		MT_CHECK(strcmp(name, "garbage") == 0, "name %s", name);
	}

	/* PR_TSC_ENABLE is the default; setting it must succeed */
	MT_SYS(prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
	MT_CHECK(prctl(PR_SET_TSC, 7, 0, 0, 0) == -1 && errno == EINVAL,
		 "PR_SET_TSC 7: %s", strerror(errno));
	MT_SYS(prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0));
	MT_CHECK(get_tsc() == PR_TSC_SIGSEGV, "tsc mode %d", get_tsc());

	old = personality(persona | ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT);
	MT_CHECK(old == persona, "personality returned 0x%x, want 0x%x", old,
		 persona);
	persona |= ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT;
	check_state("changed", PR_TSC_SIGSEGV, persona);

	pid = MT_SYS(fork());
	if (pid == 0) {
		check_state("child", PR_TSC_SIGSEGV, persona);
		MT_SYS(prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
		old = personality(persona & ~ADDR_NO_RANDOMIZE);
		MT_CHECK(old == persona, "child personality 0x%x", old);
		check_state("child changed", PR_TSC_ENABLE,
			    persona & ~ADDR_NO_RANDOMIZE);
		exit(0);
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child 0x%x",
		 status);
	check_state("parent after child", PR_TSC_SIGSEGV, persona);
	{
		char tsc[16], per[16];
		char *const args[] = {argv[0], "exec", tsc, per, NULL};

		/* the dynamic loader runs rdtsc: it would get SIGSEGV */
		MT_SYS(prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
		snprintf(tsc, sizeof(tsc), "%d", PR_TSC_ENABLE);
		snprintf(per, sizeof(per), "%x", persona);
		execv("/proc/self/exe", args);
		MT_CHECK(0, "exec: %s", strerror(errno));
	}
	return 1;
}
