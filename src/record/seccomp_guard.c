/* The recorder's guards against what a recorded program can do to mrr
 * itself: the seccomp filters it installs are rewritten so that they never
 * see mrr's own calls (src/core/seccomp_filter.h), syscalls made from mrr's
 * page are refused, and its signals never reach mrr. */
#define _GNU_SOURCE
#include "core/exitcodes.h"
#include "core/seccomp_filter.h"
#include "record/rtask.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/magic.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long long events(struct recorder *rec)
{
	return (unsigned long long)mrr_trace_writer_events(rec->w);
}

bool rec_seccomp_entry(struct recorder *rec, struct rtask *t)
{
	const uint64_t *a = t->args;
	uint64_t ip = t->entry_regs.rip;
	int err;

	/* Only mrr's injections run from the page's traced instruction, and
	 * the untraced one never stops mrr unless the program's own filter
	 * asks for a tracer: either way the program jumped into mrr's page. */
	if (ip == MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL + 2 ||
	    ip == MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL + 2) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d made syscall %ld from mrr's page at 0x%llx at "
			 "event %llu; the recording stops here",
			 t->t.tid, t->nr, (unsigned long long)ip, events(rec));
		return false;
	}
	if (!mrr_seccomp_installs_filter(t->nr, a))
		return true;
	if (t->nr == SYS_seccomp && (a[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d installed a seccomp filter with a user-space "
			 "supervisor (SECCOMP_FILTER_FLAG_NEW_LISTENER) at "
			 "event %llu; mrr cannot replay a supervisor's answers",
			 t->t.tid, events(rec));
		return false;
	}
	err = mrr_seccomp_rewrite(&t->t, &t->entry_regs);
	if (err == -E2BIG) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d installed a seccomp filter of more than %d "
			 "instructions at event %llu while not on its main "
			 "stack; mrr has no room to rewrite it",
			 t->t.tid, (int)MRR_SECCOMP_MAX_REWRITE, events(rec));
		return false;
	}
	if (err < 0) {
		rec_stop(rec, MRR_EXIT_OSERR,
			 "cannot rewrite the seccomp filter pid %d installs at "
			 "event %llu: %s",
			 t->t.tid, events(rec), strerror(-err));
		return false;
	}
	t->filter_rewritten = err == 1;
	return true;
}

void rec_seccomp_exit(struct rtask *t, struct user_regs_struct *regs)
{
	if (!t->filter_rewritten)
		return;
	t->filter_rewritten = false;
	regs->rdx = t->args[2];
	if (tracee_set_regs(&t->t, regs) < 0)
		return;
}

/* The pid a pidfd of t's refers to, or 0. */
static pid_t pidfd_pid(struct rtask *t, uint64_t fd)
{
	char path[64], line[128];
	pid_t pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->t.tid, (int)fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Pid:", 4))
			pid = (pid_t)strtol(line + 4, NULL, 10);
	fclose(f);
	return pid;
}

/* Calls whose first argument names the process or thread they signal. */
static bool signals_by_pid(long nr)
{
	return nr == SYS_kill || nr == SYS_tkill || nr == SYS_rt_sigqueueinfo ||
	       nr == SYS_tgkill || nr == SYS_rt_tgsigqueueinfo;
}

bool rec_signals_mrr(struct rtask *t)
{
	const uint64_t *a = t->args;
	pid_t self;

	if (!signals_by_pid(t->nr) && t->nr != SYS_pidfd_send_signal)
		return false; /* every traced call asks: no getpid for them */
	self = getpid();
	/* A stop signal to mrr's whole process group (or to everyone) would
	 * stop mrr too; job control is not recorded (README "Limits"), so it
	 * goes nowhere. */
	if (t->nr == SYS_kill &&
	    (a[1] == SIGSTOP || a[1] == SIGTSTP || a[1] == SIGTTIN ||
	     a[1] == SIGTTOU) &&
	    ((pid_t)a[0] == -1 || (pid_t)a[0] == -getpgrp() ||
	     ((pid_t)a[0] == 0 && getpgid(t->t.tid) == getpgrp())))
		return true;
	if (signals_by_pid(t->nr))
		return (pid_t)a[0] == self;
	return pidfd_pid(t, a[0]) == self;
}

bool rec_signal_from_tracee(const siginfo_t *si)
{
	char buf[512], *p;
	int fd, tracer = 0;
	ssize_t n;

	/* only signals sent by a process (kill, sigqueue, tgkill) */
	if (si->si_code > 0 || si->si_pid <= 0 || si->si_pid == getpid())
		return false;
	/* async-signal-safe: open, read, close, and hand-made formatting */
	memcpy(buf, "/proc/", 6);
	p = buf + sizeof(buf) - 1;
	*p = 0;
	for (int v = si->si_pid; v; v /= 10)
		*--p = (char)('0' + v % 10);
	memmove(buf + 6, p, strlen(p) + 1);
	memcpy(buf + strlen(buf), "/status", 8);
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strstr(buf, "TracerPid:");
	if (!p)
		return false;
	for (p += 10; *p == ' ' || *p == '\t'; p++)
		;
	while (*p >= '0' && *p <= '9')
		tracer = tracer * 10 + (*p++ - '0');
	return tracer == getpid();
}

/* The fd a write-family call writes to, or -1. */
static int written_fd(const struct rtask *t)
{
	switch (t->nr) {
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_sendfile:
		return (int)t->args[0];
	case SYS_splice:
	case SYS_copy_file_range:
		return (int)t->args[2];
	}
	return -1;
}

bool rec_writes_proc_mem(struct rtask *t, char *what, size_t what_len)
{
	char path[64];
	struct statfs sf;
	ssize_t n;
	int fd = written_fd(t);

	if (fd < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, fd);
	/* statfs follows the fd's link to the open file itself, whatever
	 * name it was opened by */
	if (statfs(path, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC)
		return false;
	n = readlink(path, what, what_len - 1);
	if (n < 4)
		return false;
	what[n] = 0;
	return strcmp(what + n - 4, "/mem") == 0;
}

/* 1 or 0, as PR_GET_DUMPABLE would tell t natively. */
static int virtual_dumpable(struct recorder *rec, struct rtask *t)
{
	/* a fork child starts with its parent's value */
	for (int depth = 0; t && depth < 64; depth++) {
		struct rtask *p;

		if (t->dumpable)
			return t->dumpable == 1;
		for (p = rec->tasks; p && p->t.tid != t->parent; p = p->next)
			;
		t = p;
	}
	return 1;
}

int rec_dumpable_entry(struct recorder *rec, struct rtask *t, int64_t *result)
{
	if (t->nr != SYS_prctl)
		return 0;
	if (t->args[0] == PR_GET_DUMPABLE) {
		*result = virtual_dumpable(rec, t);
		return 1;
	}
	if (t->args[0] == PR_SET_DUMPABLE && t->args[1] <= 1) {
		t->dumpable = t->args[1] ? 1 : 2;
		*result = 0;
		return 1;
	}
	return 0;
}

bool rec_iov_touches_mrr_page(struct rtask *t)
{
	struct {
		uint64_t base, len;
	} iov[64];
	uint64_t n = t->args[2], done = 0;

	if (t->nr != SYS_process_madvise)
		return false;
	/* the kernel takes at most UIO_MAXIOV (1024) ranges */
	while (done < n && done < 1024) {
		uint64_t k = n - done < 64 ? n - done : 64;

		if (tracee_read_all(&t->t, t->args[1] + done * sizeof(iov[0]),
				    iov, k * sizeof(iov[0])) < 0)
			return false;
		for (uint64_t i = 0; i < k; i++)
			if (iov[i].len &&
			    iov[i].base < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
			    iov[i].base + iov[i].len > MRR_PAGE_ADDR)
				return true;
		done += k;
	}
	return false;
}
