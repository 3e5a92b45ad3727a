/* Settings mrr changes in the recorded program for its own needs, kept
 * out of the program's sight. mrr turns address-space randomisation off
 * (ADDR_NO_RANDOMIZE in the personality), makes rdtsc trap (PR_SET_TSC)
 * and installs a seccomp filter; natively the program would see none of
 * these, nor the no_new_privs bit mrr's filter needs. Each task carries
 * what it would see (struct rtask.virt): the rdtsc mode, whether it asked
 * for ADDR_NO_RANDOMIZE itself, its seccomp mode and no_new_privs. A child
 * inherits them at fork and an exec keeps them, as the kernel does. The calls
 * that read or change them are answered from that state and recorded as skipped
 * calls (replay emulates them: result and memory); personality runs for real,
 * with ADDR_NO_RANDOMIZE kept on, and its result is corrected. */
#define _GNU_SOURCE
#include "core/events.h"
#include "core/proc.h"
#include "core/seccomp_filter.h"
#include "record/rtask.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>

/* What a task of mrr's own would see: where the program starts from. */
static void virt_init(struct rtask *t)
{
	int mode = PR_TSC_ENABLE, seccomp, persona;

	if (t->virt.init)
		return;
	t->virt.init = true;
	if (prctl(PR_GET_TSC, &mode, 0, 0, 0) < 0)
		mode = PR_TSC_ENABLE;
	t->virt.tsc = mode;
	persona = personality(0xffffffff);
	t->virt.norand = persona != -1 && (persona & ADDR_NO_RANDOMIZE);
	seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	t->virt.seccomp = seccomp > 0 ? seccomp : 0;
	t->virt.nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

void rec_virt_init(struct rtask *t)
{
	virt_init(t);
}

/* Whether tid has CAP_SYS_ADMIN in its effective set (/proc/TID/status). */
static bool has_sys_admin(pid_t tid)
{
	unsigned long long eff = 0;
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return true; /* cannot tell: let the kernel decide */
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return !found || (eff & (1ULL << CAP_SYS_ADMIN));
}

/* The checks the kernel makes on a filter install before the one for
 * no_new_privs or CAP_SYS_ADMIN: the flags (seccomp() only), then the
 * struct sock_fprog it reads and its length. True when they pass, so that
 * the install would fail with EACCES natively. */
static bool filter_checks_pass(struct rtask *t)
{
	const uint64_t mask = SECCOMP_FILTER_FLAG_TSYNC |
			      SECCOMP_FILTER_FLAG_LOG |
			      SECCOMP_FILTER_FLAG_SPEC_ALLOW |
			      SECCOMP_FILTER_FLAG_NEW_LISTENER |
			      SECCOMP_FILTER_FLAG_TSYNC_ESRCH |
			      SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	uint64_t flags = t->nr == SYS_seccomp ? t->args[1] : 0;
	struct sock_fprog prog;

	if (flags & ~mask)
		return false;
	if ((flags & SECCOMP_FILTER_FLAG_TSYNC) &&
	    (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
	    !(flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH))
		return false;
	if ((flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) &&
	    !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return false;
	if (tracee_read_all(&t->t, t->args[2], &prog, sizeof(prog)) < 0)
		return false;
	return prog.len > 0 && prog.len <= BPF_MAXINSNS;
}

bool rec_virt_filter_denied(struct recorder *rec, struct rtask *t)
{
	struct capture c = {0};

	virt_init(t);
	if (t->virt.nnp || !mrr_seccomp_installs_filter(t->nr, t->args) ||
	    !filter_checks_pass(t) || has_sys_admin(t->t.tid))
		return false;
	rec_skip_syscall(rec, t, -EACCES, &c);
	return true;
}

void rec_virt_inherit(struct rtask *child, struct rtask *parent)
{
	virt_init(parent);
	child->virt = parent->virt;
}

/* Seccomp strict mode, asked for with prctl(PR_SET_SECCOMP, 1) or
 * seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL). The kernel cannot combine it
 * with mrr's filter, so mrr keeps it itself: the call succeeds (skipped,
 * recorded), and from then on rec_virt_strict_kill stops the task at any
 * call the mode forbids, as the kernel would. Entering it also turns the
 * TSC off (rdtsc faults with SIGSEGV). The calls the kernel refuses (bad
 * arguments, or a filter mode already set) run, and fail there alike. */
static bool virt_strict(struct recorder *rec, struct rtask *t)
{
	/* mrr's filter lets rt_sigaction through untraced (but for the timer
	 * signals): a filter of the task's own sends it to mrr too */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	const uint64_t at = MRR_PAGE_ADDR + MRR_PAGE_SCRATCH;
	struct {
		uint16_t len;
		uint16_t pad[3];
		uint64_t filter;
	} fprog = {.len = sizeof(code) / sizeof(code[0]), .filter = at + 16};
	struct capture c = {0};
	struct user_regs_struct r;

	if (t->nr == SYS_seccomp && (t->args[1] || t->args[2]))
		return false;
	if (t->virt.seccomp != SECCOMP_MODE_DISABLED)
		return false;
	t->virt.seccomp = SECCOMP_MODE_STRICT;
	t->virt.tsc = PR_TSC_SIGSEGV;
	/* The call is recorded as skipped, with result 0; what runs in its
	 * place is the install of that filter, and its exit stop
	 * (rec_virt_strict_exit) gives the program the 0. Should the install
	 * fail (a root program that dropped CAP_SYS_ADMIN), rt_sigaction
	 * stays untraced (README "Limits"). */
	rec_skip_event(rec, t, 0, &c);
	r = t->exit_regs;
	if (tracee_write_all(&t->t, at, &fprog, sizeof(fprog)) == 0 &&
	    tracee_write_all(&t->t, at + 16, code, sizeof(code)) == 0) {
		r.orig_rax = SYS_seccomp;
		r.rdi = SECCOMP_SET_MODE_FILTER;
		r.rsi = 0;
		r.rdx = at;
		if (tracee_set_regs(&t->t, &r) == 0) {
			t->strict_filter = true;
			t->in_syscall = true;
			ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0);
			return true;
		}
	}
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
}

void rec_virt_strict_exit(struct rtask *t)
{
	/* the registers the skipped call leaves */
	if (tracee_set_regs(&t->t, &t->exit_regs) < 0)
		return;
}

/* Whether natively the vDSO answers this call in strict mode, without a
 * syscall: mrr turns the vDSO's functions into syscalls (vdso.c), and the
 * preload library's wrappers of them make one. Only the answers that need
 * no rdtsc: strict mode turns the TSC off, and the vDSO's clock_gettime of
 * a fine clock or gettimeofday then faults with SIGSEGV natively (README
 * "Limits": under mrr the task is killed). */
static bool vdso_answers(const struct rtask *t)
{
	switch (t->nr) {
	case SYS_time:
	case SYS_getcpu:
		return true;
	case SYS_clock_gettime:
		return t->args[0] == CLOCK_REALTIME_COARSE ||
		       t->args[0] == CLOCK_MONOTONIC_COARSE;
	case SYS_clock_getres:
		switch (t->args[0]) {
		case CLOCK_REALTIME:
		case CLOCK_MONOTONIC:
		case CLOCK_MONOTONIC_RAW:
		case CLOCK_REALTIME_COARSE:
		case CLOCK_MONOTONIC_COARSE:
		case CLOCK_BOOTTIME:
		case CLOCK_TAI:
			return true;
		}
	}
	return false;
}

/* Whether t's syscall comes from the vDSO or from mrr's preload library. */
static bool from_vdso_or_preload(const struct rtask *t)
{
	const uint64_t ip = t->entry_regs.rip;
	struct proc_vma *v;
	long n = proc_read_vmas(t->t.tid, false, &v);
	bool found = false;

	for (long i = 0; i < n && !found; i++) {
		const char *base = strrchr(v[i].name, '/');

		if (ip > v[i].start && ip <= v[i].end)
			found = !strcmp(v[i].name, "[vdso]") ||
				(base && !strcmp(base, "/libmrr_preload.so"));
	}
	if (n > 0)
		free(v);
	return found;
}

bool rec_virt_strict_kill(struct recorder *rec, struct rtask *t)
{
	struct user_regs_struct r = t->entry_regs;
	struct rtask *x;

	if (!t->virt.init || t->virt.seccomp != SECCOMP_MODE_STRICT)
		return false;
	switch (t->nr) {
	case SYS_read:
	case SYS_write:
	case SYS_exit:
	case SYS_rt_sigreturn:
		return false;
	}
	if (vdso_answers(t) && from_vdso_or_preload(t))
		return false;
	/* The call never runs: the kernel ends this thread alone, with the
	 * status of a SIGKILL. A thread with others becomes an exit(0) (its
	 * status is seen by no one, unless it is the leader and the others
	 * go by exit: README "Limits"); its exit event names the call, where
	 * the replay makes the same exchange. A task alone gets SIGKILL; its
	 * exit event names the call too, so that the replay runs it there
	 * before it kills it: what it did since its last event (LTP seccomp01
	 * counts its results in memory it shares with its parent) happens at
	 * replay as well. */
	for (x = rec->tasks; x; x = x->next)
		if (x != t && x->tgid == t->tgid && !x->exiting)
			break;
	if (x) {
		r.orig_rax = SYS_exit;
		r.rdi = 0;
		if (tracee_set_regs(&t->t, &r) < 0)
			return true;
		t->exiting = true;
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return true;
	}
	r.orig_rax = (uint64_t)-1;
	if (tracee_set_regs(&t->t, &r) < 0)
		return true; /* gone already */
	t->strict_killed = true;
	syscall(SYS_tgkill, t->t.tid, t->t.tid, SIGKILL);
	return true;
}

bool rec_virt_entry(struct recorder *rec, struct rtask *t)
{
	struct capture c = {0};
	int mode;

	virt_init(t);
	switch (t->nr) {
	case SYS_seccomp:
		return t->args[0] == SECCOMP_SET_MODE_STRICT &&
		       virt_strict(rec, t);
	case SYS_personality:
		/* Randomisation must stay off for the next exec to replay. */
		if (t->args[0] != 0xffffffffu &&
		    !(t->args[0] & ADDR_NO_RANDOMIZE)) {
			struct user_regs_struct r = t->entry_regs;

			r.rdi |= ADDR_NO_RANDOMIZE;
			if (tracee_set_regs(&t->t, &r) < 0)
				return false;
		}
		return false;
	case SYS_prctl:
		break;
	default:
		return false;
	}
	switch (t->args[0]) {
	case PR_GET_TSC:
		mode = t->virt.tsc;
		if (tracee_write_all(&t->t, t->args[1], &mode, sizeof(mode)) <
		    0) {
			rec_skip_syscall(rec, t, -EFAULT, &c);
			return true;
		}
		capture_add(&c, t, t->args[1], sizeof(mode));
		rec_skip_syscall(rec, t, 0, &c);
		free(c.data);
		return true;
	case PR_SET_TSC:
		if (t->args[1] != PR_TSC_ENABLE &&
		    t->args[1] != PR_TSC_SIGSEGV) {
			rec_skip_syscall(rec, t, -EINVAL, &c);
			return true;
		}
		t->virt.tsc = (int)t->args[1];
		rec_skip_syscall(rec, t, 0, &c);
		return true;
	case PR_GET_SECCOMP:
		rec_skip_syscall(rec, t, t->virt.seccomp, &c);
		return true;
	case PR_SET_SECCOMP:
		return t->args[1] == SECCOMP_MODE_STRICT && virt_strict(rec, t);
	case PR_GET_NO_NEW_PRIVS:
		if (t->args[1] || t->args[2] || t->args[3] || t->args[4])
			return false; /* EINVAL, from the kernel */
		rec_skip_syscall(rec, t, t->virt.nnp, &c);
		return true;
	}
	return false;
}

void rec_virt_exit(struct rtask *t, struct user_regs_struct *regs)
{
	int64_t result = (int64_t)regs->rax;

	virt_init(t);
	switch (t->nr) {
	case SYS_personality:
		if (result < 0)
			return;
		result &= ~(int64_t)ADDR_NO_RANDOMIZE;
		if (t->virt.norand)
			result |= ADDR_NO_RANDOMIZE;
		if (t->args[0] != 0xffffffffu)
			t->virt.norand = t->args[0] & ADDR_NO_RANDOMIZE;
		if ((uint64_t)result != regs->rax) {
			regs->rax = (uint64_t)result;
			if (tracee_set_regs(&t->t, regs) < 0)
				return;
		}
		return;
	case SYS_prctl:
		if (t->args[0] == PR_SET_SECCOMP && result == 0)
			t->virt.seccomp = (int)t->args[1];
		if (t->args[0] == PR_SET_NO_NEW_PRIVS && result == 0)
			t->virt.nnp = true;
		return;
	case SYS_seccomp:
		if (result < 0)
			return;
		if (t->args[0] == SECCOMP_SET_MODE_STRICT)
			t->virt.seccomp = SECCOMP_MODE_STRICT;
		else if (t->args[0] == SECCOMP_SET_MODE_FILTER)
			t->virt.seccomp = SECCOMP_MODE_FILTER;
		return;
	}
}

/* Whether t runs with no_new_privs (/proc/TID/status; true when it cannot
 * tell). */
static bool real_nnp(pid_t tid)
{
	char path[64], line[256];
	bool on = true;
	long v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "NoNewPrivs: %ld", &v) == 1)
			on = v != 0;
	fclose(f);
	return on;
}

/* The name under which mrr can stat the file t's execve or execveat
 * executes. Returns false when it cannot tell (the kernel then fails it, or
 * it is nothing mrr could find). */
static bool exec_file(struct rtask *t, char *out, size_t size)
{
	const bool at = t->nr == SYS_execveat;
	const int dirfd = at ? (int)t->args[0] : AT_FDCWD;
	char name[PATH_MAX];
	int n;

	if (tracee_read_str(&t->t, t->args[at ? 1 : 0], name, sizeof(name)) < 0)
		return false;
	if (!name[0] && at && (t->args[4] & AT_EMPTY_PATH))
		n = snprintf(out, size, "/proc/%d/fd/%d", t->t.tid, dirfd);
	else if (name[0] == '/')
		n = snprintf(out, size, "/proc/%d/root%s", t->t.tid, name);
	else if (dirfd == AT_FDCWD)
		n = snprintf(out, size, "/proc/%d/cwd/%s", t->t.tid, name);
	else
		n = snprintf(out, size, "/proc/%d/fd/%d/%s", t->t.tid, dirfd,
			     name);
	return n > 0 && (size_t)n < size;
}

bool rec_exec_nnp(struct rtask *t)
{
	struct user_regs_struct r = t->entry_regs;
	char path[PATH_MAX + 64];

	if (t->nr != SYS_execve && t->nr != SYS_execveat)
		return false;
	if (!exec_file(t, path, sizeof(path)) || !mrr_file_raises_privs(path) ||
	    real_nnp(t->t.tid))
		return false;
	/* A script's interpreter is not looked at: set-ID bits on an
	 * interpreter are rare, and such an exec is refused by no one. */
	r.orig_rax = SYS_prctl;
	r.rdi = PR_SET_NO_NEW_PRIVS;
	r.rsi = 1;
	r.rdx = r.r10 = r.r8 = 0;
	if (tracee_set_regs(&t->t, &r) < 0)
		return false;
	t->nnp_exec = true;
	t->in_syscall = true;
	ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0);
	return true;
}

void rec_exec_nnp_again(struct rtask *t)
{
	struct user_regs_struct r = t->entry_regs;

	/* back onto the `syscall` instruction, with the call's number */
	r.rip -= 2;
	r.rax = r.orig_rax;
	if (tracee_set_regs(&t->t, &r) < 0)
		return;
}
