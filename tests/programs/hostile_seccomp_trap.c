/* hostile_seccomp_trap: seccomp filters that answer with a signal or a
 * kill. The parent's filters make getppid and then getpid (a call the
 * syscall buffer takes) raise SIGSYS (SECCOMP_RET_TRAP), which its handler
 * answers by setting the call's result to 4242; it checks si_syscall. A forked
 * child adds a filter that kills it on uname (SECCOMP_RET_KILL_PROCESS), and
 * the parent checks it died of SIGSYS. The process's exit status is 0. */
#include "mrr_test.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <ucontext.h>

static volatile int traps, trap_nr;

static void on_sigsys(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	traps++;
	trap_nr = si->si_syscall;
	uc->uc_mcontext.gregs[REG_RAX] = 4242;
}

static void install(long nr, unsigned action)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	MT_SYS(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

int main(void)
{
	struct sigaction sa = {0};
	struct utsname u;
	int st;
	pid_t pid;
	long r;

	mt_init();
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	MT_SYS(sigaction(SIGSYS, &sa, NULL));
	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	install(SYS_getppid, SECCOMP_RET_TRAP);
	for (int i = 0; i < 3; i++) {
		r = syscall(SYS_getppid);
		MT_CHECK(r == 4242, "getppid returned %ld", r);
	}
	MT_CHECK(traps == 3 && trap_nr == SYS_getppid, "traps %d, nr %d", traps,
		 trap_nr);
	printf("getppid trapped 3 times, the handler answered 4242\n");
	install(SYS_getpid, SECCOMP_RET_TRAP);
	for (int i = 0; i < 3; i++) {
		r = getpid();
		MT_CHECK(r == 4242, "getpid returned %ld", r);
	}
	MT_CHECK(traps == 6 && trap_nr == SYS_getpid, "traps %d, nr %d", traps,
		 trap_nr);
	printf("getpid trapped 3 times too\n");

	pid = MT_SYS(fork());
	if (pid == 0) {
		install(SYS_uname, SECCOMP_RET_KILL_PROCESS);
		syscall(SYS_uname, &u);
		_exit(3);
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		 "child status %#x, not killed by SIGSYS", st);
	printf("the child died of SIGSYS on uname\n");
	mt_pass();
	return 0;
}
