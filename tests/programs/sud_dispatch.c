/* sud_dispatch: syscall user dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH),
 * as stress-ng's prctl and usersyscall stressors use it. With dispatch on
 * and the selector byte at BLOCK, a syscall from outside the allowed region
 * does not run: the task gets SIGSYS (si_code SYS_USER_DISPATCH, the call's
 * number and address) and rax holds the number. Under mrr the recorder
 * makes that check itself (the kernel's would catch mrr's own calls, and
 * the replay would not see the signals). Checked: the exclusive and
 * inclusive regions, the selector, unknown syscall numbers, the prctl's
 * errors, that a forked child does not inherit the setting, and that a
 * call the program makes through libc counts as made from libc. */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#define SUD_OFF		 0
#define SUD_EXCLUSIVE_ON 1
#define SUD_INCLUSIVE_ON 2
#define SUD_ALLOW	 0
#define SUD_BLOCK	 1
#define SUD_SI_CODE	 2 /* SYS_USER_DISPATCH */
#define UNKNOWN_NR	 0xe000

static volatile char selector = SUD_ALLOW;
static volatile int nsigs, last_code, last_nr;
static volatile uintptr_t last_addr;

/* raw_call: a syscall from the program's own code; region_call: one from
 * a small function whose bounds the program knows. Both return rax. */
long raw_call(long nr);
long region_call(long nr);
extern char region_start[], region_end[], raw_after_syscall[],
	region_after_syscall[];
__asm__(".text\n"
	".globl raw_call\n"
	"raw_call:\n"
	"	mov %rdi, %rax\n"
	"	syscall\n"
	".globl raw_after_syscall\n"
	"raw_after_syscall:\n"
	"	ret\n"
	".balign 64\n"
	".globl region_start\n"
	"region_start:\n"
	".globl region_call\n"
	"region_call:\n"
	"	mov %rdi, %rax\n"
	"	syscall\n"
	".globl region_after_syscall\n"
	"region_after_syscall:\n"
	"	ret\n"
	".globl region_end\n"
	"region_end:\n"
	".balign 64\n");

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	selector = SUD_ALLOW; /* so that rt_sigreturn runs */
	nsigs++;
	last_code = si->si_code;
	last_nr = si->si_syscall;
	last_addr = (uintptr_t)si->si_call_addr;
}

/* The bounds of libc's code, from /proc/self/maps. */
static void libc_code(uintptr_t *lo, uintptr_t *hi)
{
	char line[512], perm[8], path[256];
	unsigned long a, b;
	FILE *f = fopen("/proc/self/maps", "re");

	MT_CHECK(f != NULL, "/proc/self/maps: %s", strerror(errno));
	*lo = UINTPTR_MAX;
	*hi = 0;
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &a, &b, perm,
			   path) < 3 ||
		    perm[2] != 'x' ||
		    (!strstr(path, "/libc.so") && !strstr(path, "/libc-")))
			continue;
		if (a < *lo)
			*lo = a;
		if (b > *hi)
			*hi = b;
	}
	fclose(f);
	MT_CHECK(*hi > *lo, "no libc code in /proc/self/maps");
}

static void sud(long mode, void *off, long len, volatile char *sel)
{
	MT_CHECK(prctl(PR_SET_SYSCALL_USER_DISPATCH, mode, off, len, sel) == 0,
		 "prctl(PR_SET_SYSCALL_USER_DISPATCH, %ld): %s", mode,
		 strerror(errno));
}

/* A call that the kernel dispatches: its result is its number, and the
 * handler saw it. */
static void expect_dispatched(long got, long nr, const char *after, int before)
{
	MT_CHECK(got == nr, "call %ld returned %ld", nr, got);
	MT_CHECK(nsigs == before + 1, "%d SIGSYS, expected %d", nsigs,
		 before + 1);
	MT_CHECK(last_code == SUD_SI_CODE && last_nr == nr &&
			 last_addr == (uintptr_t)after,
		 "si_code %d, syscall %d, address %#lx", last_code, last_nr,
		 (unsigned long)last_addr);
}

int main(void)
{
	struct sigaction sa = {.sa_sigaction = on_sigsys,
			       .sa_flags = SA_SIGINFO};
	long ppid = getppid(), r;
	int n, st;
	pid_t pid;

	mt_init();
	MT_SYS(sigaction(SIGSYS, &sa, NULL));

	/* errors: the kernel's checks */
	MT_CHECK(prctl(PR_SET_SYSCALL_USER_DISPATCH, 3, 0, 0, 0) == -1 &&
			 errno == EINVAL,
		 "mode 3: %s", strerror(errno));
	MT_CHECK(prctl(PR_SET_SYSCALL_USER_DISPATCH, SUD_OFF, 1, 0, 0) == -1 &&
			 errno == EINVAL,
		 "off with an offset: %s", strerror(errno));
	MT_CHECK(prctl(PR_SET_SYSCALL_USER_DISPATCH, SUD_EXCLUSIVE_ON, -4096L,
		       8192, 0) == -1 &&
			 errno == EINVAL,
		 "a region that wraps: %s", strerror(errno));
	MT_CHECK(prctl(PR_SET_SYSCALL_USER_DISPATCH, SUD_EXCLUSIVE_ON, 0, 0,
		       (char *)0xffffffffff600000UL) == -1 &&
			 errno == EFAULT,
		 "a kernel selector: %s", strerror(errno));

	/* exclusive, empty region: everything but the selector's ALLOW */
	sud(SUD_EXCLUSIVE_ON, 0, 0, &selector);
	r = raw_call(SYS_getppid);
	MT_CHECK(r == ppid, "getppid with ALLOW: %ld", r);
	MT_CHECK(raw_call(UNKNOWN_NR) == -ENOSYS, "unknown call with ALLOW");
	n = nsigs;
	selector = SUD_BLOCK;
	r = raw_call(SYS_getppid);
	expect_dispatched(r, SYS_getppid, raw_after_syscall, n);
	selector = SUD_BLOCK;
	r = raw_call(UNKNOWN_NR);
	expect_dispatched(r, UNKNOWN_NR, raw_after_syscall, n + 1);
	printf("exclusive: 2 calls dispatched\n");

	/* a child does not inherit it */
	pid = MT_SYS(fork());
	if (pid == 0) {
		selector = SUD_BLOCK;
		r = raw_call(SYS_getppid);
		_exit(r == (long)getppid() && nsigs == n + 2 ? 0 : 1);
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "the child's call was dispatched: status %#x", st);
	printf("child: not dispatched\n");

	/* exclusive region around region_call */
	sud(SUD_EXCLUSIVE_ON, region_start, region_end - region_start,
	    &selector);
	n = nsigs;
	selector = SUD_BLOCK;
	r = region_call(SYS_getppid);
	MT_CHECK(r == ppid && nsigs == n, "call in the region: %ld", r);
	r = raw_call(SYS_getppid);
	expect_dispatched(r, SYS_getppid, raw_after_syscall, n);

	/* inclusive region: only calls inside it are dispatched */
	sud(SUD_INCLUSIVE_ON, region_start, region_end - region_start,
	    &selector);
	n = nsigs;
	selector = SUD_BLOCK;
	r = raw_call(SYS_getppid);
	MT_CHECK(r == ppid && nsigs == n, "call outside the region: %ld", r);
	r = region_call(SYS_getppid);
	expect_dispatched(r, SYS_getppid, region_after_syscall, n);
	selector = SUD_ALLOW;
	sud(SUD_OFF, 0, 0, 0);
	printf("regions: 2 calls dispatched\n");

	/* the region is libc's code: what the program calls through libc
	 * runs, its own syscall instruction is dispatched (as stress-ng's
	 * usersyscall stressor checks) */
	{
		uintptr_t lo, hi;

		libc_code(&lo, &hi);
		sud(SUD_EXCLUSIVE_ON, (void *)lo, (long)(hi - lo), &selector);
		n = nsigs;
		selector = SUD_BLOCK;
		r = syscall(SYS_getppid);
		MT_CHECK(r == ppid && nsigs == n, "syscall(): %ld", r);
		r = getpid();
		MT_CHECK(r == syscall(SYS_getpid) && nsigs == n,
			 "getpid(): %ld", r);
		r = raw_call(SYS_getppid);
		expect_dispatched(r, SYS_getppid, raw_after_syscall, n);
		selector = SUD_ALLOW;
		sud(SUD_OFF, 0, 0, 0);
	}
	printf("libc region: 1 call dispatched\n");

	/* without a selector every call outside the region is dispatched;
	 * with SIGSYS at its default action, that kills */
	pid = MT_SYS(fork());
	if (pid == 0) {
		struct rlimit no_core = {0, 0};

		MT_SYS(setrlimit(RLIMIT_CORE, &no_core));
		signal(SIGSYS, SIG_DFL);
		sud(SUD_EXCLUSIVE_ON, region_start, region_end - region_start,
		    NULL);
		r = region_call(SYS_getppid);
		raw_call(SYS_exit_group);
		_exit(3);
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		 "expected the child killed by SIGSYS, status %#x", st);
	printf("no selector: the child died of SIGSYS\n");
	mt_pass();
	return 0;
}
