/* Replaying one traced syscall. Most are emulated: the task never runs them;
 * it gets the recorded result and memory. Those that shape the address
 * space or signal state run for real, placed exactly where they were. The
 * memory syscalls (mmap of files, madvise, SysV shm) are in replay_mem.c:
 * the program's madvise never runs, only the recorded dropped ranges are
 * applied. */
#define _GNU_SOURCE
#include "core/clone_untraced.h"
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/seccomp_filter.h"
#include "core/written_digest.h"
#include "replay/clone_args.h"
#include "replay/point_digest.h"
#include "replay/ptask.h"
#include "replay/replay_syscall_int.h"
#include "replay/vptrace.h"
#include "replay/session.h"
#include "syscalls/table.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

int run_to_exit(struct replayer *rp, struct ptask *t)
{
	int status;

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0 ||
		    tracee_wait(&t->t, &status) < 0) {
			diverge(rp, t, "the task vanished inside a syscall");
			return -1;
		}
		if (!WIFSTOPPED(status)) {
			diverge(rp, t, "the task ended inside a syscall");
			return -1;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80))
			break;
	}
	t->stopped = true;
	t->at_exit = true;
	return 0;
}

int replay_set_result(struct replayer *rp, struct ptask *t, int64_t result)
{
	struct user_regs_struct r;

	if (tracee_get_regs(&t->t, &r) < 0)
		return -1;
	r.rax = (uint64_t)result;
	/* An interrupted syscall: the kernel's restart logic at the coming
	 * signal needs the syscall number back. */
	if (result <= -512 && result >= -516) {
		r.orig_rax = (uint64_t)rp->ev.nr;
		t->restart_pending = result != -515;
	}
	return tracee_set_regs(&t->t, &r) < 0 ? -1 : 0;
}

/* Copies len bytes at addr in the task to fd (at *pos, or appending when
 * *pos < 0). */
static int copy_segment(struct ptask *t, uint64_t addr, uint64_t len, int fd,
			int64_t *pos)
{
	char buf[65536];

	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t w;

		if (tracee_read_all(&t->t, addr, buf, n) < 0)
			return -EFAULT;
		for (size_t done = 0; done < n; done += (size_t)w) {
			w = *pos < 0 ? write(fd, buf + done, n - done)
				     : pwrite(fd, buf + done, n - done,
					      *pos + (int64_t)done);
			if (w < 0 && errno == EAGAIN) {
				/* Someone set our stdout non-blocking. */
				struct pollfd p = {.fd = fd, .events = POLLOUT};

				poll(&p, 1, 1000);
				w = 0;
			} else if (w < 0 && errno == EINTR) {
				w = 0;
			} else if (w <= 0) {
				return -EIO;
			}
		}
		if (*pos >= 0)
			*pos += (int64_t)n;
		addr += n;
		len -= n;
	}
	return 0;
}

/* Copies the bytes a write-family call wrote from the task to fd (at
 * offset pos, or appending when pos < 0). */
static int copy_written(struct ptask *t, const struct mrr_event *ev, int fd,
			int64_t pos)
{
	uint64_t left = ev->result > 0 ? (uint64_t)ev->result : 0;
	int err = 0;

	if (ev->nr == SYS_write || ev->nr == SYS_pwrite64)
		return copy_segment(t, ev->args[1], left, fd, &pos);
	/* writev family: the vectors in order */
	for (uint64_t i = 0; i < ev->args[2] && left && !err; i++) {
		struct iovec iov;
		uint64_t len;

		if (tracee_read_all(&t->t, ev->args[1] + i * sizeof(iov), &iov,
				    sizeof(iov)) < 0)
			return -EFAULT;
		len = iov.iov_len < left ? iov.iov_len : left;
		left -= len;
		err = copy_segment(t, (uint64_t)(uintptr_t)iov.iov_base, len,
				   fd, &pos);
	}
	return err;
}

/* A write into [off, off+len) of file path: where the task maps it. */
static void file_write_seen(struct replayer *rp, struct ptask *t,
			    const char *path, uint64_t off, uint64_t len)
{
	struct proc_vma *v = NULL;
	long n = proc_read_vmas(t->t.tid, false, &v), i;

	for (i = 0; i < n; i++) {
		uint64_t vend = v[i].offset + (v[i].end - v[i].start);
		uint64_t a = off > v[i].offset ? off : v[i].offset;
		uint64_t b = off + len < vend ? off + len : vend;

		if (strcmp(v[i].name, path) || a >= b)
			continue;
		replay_mem_written(rp, t, v[i].start + (a - v[i].offset), b - a,
				   rp->ev.seq);
	}
	free(v);
}

/* The program's output, shown again; and writes into files the program
 * maps, applied to the replay's copies. */
static void replay_output(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	struct mrr_file_write_extra xb, *x = &xb;
	char src[PATH_MAX], copy[PATH_MAX];
	int fd;

	if (ev->flags & (MRR_EVF_TO_STDOUT | MRR_EVF_TO_STDERR)) {
		int out = ev->flags & MRR_EVF_TO_STDOUT ? 1 : 2;
		int err;

		if (rp->o->quiet || ev->seq < rp->echo_from)
			return;
		/* An echo that is lost is a replay that looks different from
		 * the recording: never silently (EPIPE never gets here:
		 * SIGPIPE ends the replay, as it ends `cat`). */
		errno = 0;
		err = copy_written(t, ev, out, -1);
		if (err == -EFAULT)
			diverge(rp, t,
				"the bytes the program wrote to %s cannot be "
				"read from its memory",
				out == 1 ? "stdout" : "stderr");
		else if (err) {
			mrr_err("event %" PRIu64 " pid %d: cannot echo what "
				"the program wrote to %s: %s",
				ev->seq, ev->tid,
				out == 1 ? "stdout" : "stderr",
				errno ? strerror(errno) : "short write");
			if (!rp->status)
				rp->status = MRR_EXIT_IOERR;
		}
		return;
	}
	if (ev->result <= 0 ||
	    !mrr_file_write_extra_get(ev->extra, mrr_event_extra_body_len(ev),
				      x))
		return;
	if (stored_path(rp, x->file, src, sizeof(src)) ||
	    replay_private_copy(rp, x->file, x->ident, src, copy,
				sizeof(copy)) < 0)
		return;
	fd = open(copy, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || copy_written(t, ev, fd, (int64_t)x->offset) < 0)
		diverge(rp, t,
			"cannot apply a recorded write to the copy of "
			"mapped file %s",
			x->file);
	else if (rp->want)
		file_write_seen(rp, t, copy, x->offset, (uint64_t)ev->result);
	if (fd >= 0)
		close(fd);
}

/* fallocate on the replay's copy, whose file system may lack the mode:
 * zeroing a range is then done by writing zeroes. Returns 0 or an errno. */
static int fallocate_copy(int fd, int mode, uint64_t off, uint64_t len)
{
	static const char zeros[65536];
	struct stat st;

	if (fallocate(fd, mode, (off_t)off, (off_t)len) == 0)
		return 0;
	if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)))
		return (errno == EOPNOTSUPP) ? 0 : errno;
	if (fstat(fd, &st) < 0)
		return errno;
	/* past the end reads as zeroes anyway (the caller sets the size) */
	if (off + len > (uint64_t)st.st_size)
		len = off < (uint64_t)st.st_size ? st.st_size - off : 0;
	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		if (pwrite(fd, zeros, n, (off_t)off) != (ssize_t)n)
			return EIO;
		off += n;
		len -= n;
	}
	return 0;
}

/* An ftruncate or fallocate of a file the program maps: the replay's copy
 * changes size the same way, so that its mappings fault (or not) where the
 * recording's did. */
static void replay_file_resize(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	struct mrr_file_write_extra xb, *x = &xb;
	char src[PATH_MAX], copy[PATH_MAX];
	int fd, err = 0;

	if (ev->result != 0 ||
	    !mrr_file_write_extra_get(ev->extra, mrr_event_extra_body_len(ev),
				      x))
		return;
	if (stored_path(rp, x->file, src, sizeof(src)) ||
	    replay_private_copy(rp, x->file, x->ident, src, copy,
				sizeof(copy)) < 0)
		return;
	fd = open(copy, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	else if (ev->nr == SYS_fallocate)
		err = fallocate_copy(fd, (int)ev->args[1], ev->args[2],
				     ev->args[3]);
	else if (ftruncate(fd, (off_t)x->offset) < 0)
		err = errno;
	/* a size the kernel gave the file at record, whatever the call */
	if (fd >= 0 && !err && ftruncate(fd, (off_t)x->offset) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		diverge(rp, t,
			"cannot resize the replay's copy of mapped file %s to "
			"%" PRIu64 " bytes: %s",
			x->file, x->offset, strerror(err));
}

/* The bytes a write-family call took from the program, against the digest
 * the recording stored (core/written_digest.h): the same registers with
 * other bytes in the buffer are still another run. Returns 0, or -1 after a
 * divergence report. */
static int check_written(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	uint64_t want, got;
	int err;

	if (ev->result <= 0 || !mrr_event_digest_get(ev, &want))
		return 0;
	err = written_digest(&t->t, ev->nr, ev->args, (uint64_t)ev->result,
			     &got);
	if (err < 0) {
		diverge(rp, t,
			"the %" PRId64 " bytes the program wrote at record "
			"cannot be read from its memory at replay: %s",
			ev->result, strerror(-err));
		return -1;
	}
	if (got != want) {
		diverge(rp, t,
			"the program wrote other bytes than at record: the "
			"%" PRId64 " bytes it gave %s (fd %d) have digest "
			"%016" PRIx64 ", at record %016" PRIx64,
			ev->result, mrr_syscall_name(ev->nr), (int)ev->args[0],
			got, want);
		return -1;
	}
	return 0;
}

void replay_emulate(struct replayer *rp, struct ptask *t,
		    struct user_regs_struct *regs)
{
	regs->orig_rax = (uint64_t)-1;
	regs->rax = (uint64_t)rp->ev.result;
	if (tracee_set_regs(&t->t, regs) < 0 || apply_writes(rp, t, &rp->ev))
		return;
	switch (rp->ev.nr) {
	case SYS_write:
	case SYS_pwrite64:
	case SYS_writev:
	case SYS_pwritev:
	case SYS_pwritev2:
		replay_output(rp, t);
		if (check_written(rp, t) < 0)
			return;
		break;
	case SYS_ftruncate:
	case SYS_fallocate:
		replay_file_resize(rp, t);
		break;
	}
	/* The skipped call's exit stop would show these very registers; a
	 * restartable result wants the stop (and its syscall number back). */
	if (rp->lazy_exit &&
	    !(rp->ev.result <= -512 && rp->ev.result >= -516)) {
		t->skip_exit = true;
		t->at_exit = true;
		return;
	}
	if (run_to_exit(rp, t) == 0)
		replay_set_result(rp, t, rp->ev.result);
}

/* An executed munmap or mremap took memory away from the program (or
 * moved it): for watchpoints, a write to the old range. */
static void unmapped_by(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;

	if (ev->result < 0 && ev->result > -4096)
		return;
	if (ev->nr == SYS_munmap)
		replay_mem_written(rp, t, ev->args[0], ev->args[1], ev->seq);
	else if (ev->nr == SYS_mremap && (uint64_t)ev->result != ev->args[0])
		replay_mem_written(rp, t, ev->args[0], ev->args[1], ev->seq);
	else if (ev->nr == SYS_mremap && ev->args[2] < ev->args[1])
		replay_mem_written(rp, t, ev->args[0] + ev->args[2],
				   ev->args[1] - ev->args[2], ev->seq);
}

/* Runs the syscall for real. When exact, a different result is a
 * divergence (the address space would differ); otherwise the recorded
 * result is what the program sees. */
void replay_execute(struct replayer *rp, struct ptask *t, bool exact)
{
	struct user_regs_struct r;

	if (run_to_exit(rp, t) < 0 || tracee_get_regs(&t->t, &r) < 0)
		return;
	if (t->around.active) {
		int64_t res = (int64_t)r.rax;

		if (page_around_exit(&t->t, &t->around, &res) < 0 ||
		    tracee_get_regs(&t->t, &r) < 0) {
			diverge(rp, t, "cannot unmap around mrr's page");
			return;
		}
	}
	if ((int64_t)r.rax != rp->ev.result) {
		if (exact) {
			diverge(rp, t,
				"%s returned 0x%llx at replay, 0x%" PRIx64
				" at record",
				mrr_syscall_name(rp->ev.nr), r.rax,
				(uint64_t)rp->ev.result);
			return;
		}
		mrr_debug("event %" PRIu64
			  ": %s returned %lld, recorded %" PRId64,
			  rp->ev.seq, mrr_syscall_name(rp->ev.nr),
			  (long long)r.rax, rp->ev.result);
	}
	if (replay_set_result(rp, t, rp->ev.result) == 0)
		apply_writes(rp, t, &rp->ev);
	unmapped_by(rp, t);
}

int replay_inject(struct replayer *rp, struct ptask *t, long nr, uint64_t a0,
		  uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		  uint64_t a5, int64_t *ret)
{
	uint64_t args[6] = {a0, a1, a2, a3, a4, a5};

	if (tracee_inject_syscall(&t->t, 1, nr, args, ret) < 0) {
		diverge(rp, t, "cannot run %s in the task",
			mrr_syscall_name(nr));
		return -1;
	}
	return 0;
}

/* Turns the stopped syscall into another one and runs it to its exit.
 * Except for rt_sigsuspend, which must wait in the program's own context,
 * the program's call is skipped and the other one injected from mrr's
 * page, where no seccomp filter of the program's refuses it (the kernel
 * would check a replaced call against them). */
int replay_replace_and_run(struct replayer *rp, struct ptask *t,
			   struct user_regs_struct *regs, long nr, uint64_t a0,
			   uint64_t a1, uint64_t a2, uint64_t a3, int64_t *ret)
{
	struct user_regs_struct r;

	if (nr != SYS_rt_sigsuspend) {
		regs->orig_rax = (uint64_t)-1;
		if (tracee_set_regs(&t->t, regs) < 0 || run_to_exit(rp, t) < 0)
			return -1;
		return replay_inject(rp, t, nr, a0, a1, a2, a3, regs->r8,
				     regs->r9, ret);
	}
	regs->orig_rax = (uint64_t)nr;
	regs->rdi = a0;
	regs->rsi = a1;
	regs->rdx = a2;
	regs->r10 = a3;
	if (tracee_set_regs(&t->t, regs) < 0 || run_to_exit(rp, t) < 0 ||
	    tracee_get_regs(&t->t, &r) < 0)
		return -1;
	*ret = (int64_t)r.rax;
	return 0;
}

/* Waits for a new task's first stop (its SIGSTOP) and puts the recorded
 * tid where CLONE_CHILD_SETTID asked for it. */
static int replay_first_stop(struct replayer *rp, struct ptask *child)
{
	int status;

	if (tracee_wait(&child->t, &status) < 0 || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGSTOP) {
		diverge(rp, child, "the new thread %d did not start",
			child->rec_tid);
		return -1;
	}
	child->fresh = false;
	child->stopped = true;
	if (ptask_set_child_tid(child) < 0) {
		diverge(rp, child, "cannot write the thread's tid");
		return -1;
	}
	return 0;
}

/* At a syscall stop on the way to a replayed fork's event: whether the
 * fork goes on. A syscall-entry stop (rax -ENOSYS) does, and so does an
 * exit with -ERESTARTNOINTR: a signal came while the kernel copied the
 * process (at replay, SIGCHLD from replayed children that exited), and
 * the kernel makes the call again once the signal is dealt with. */
static bool fork_goes_on(struct ptask *t)
{
	struct user_regs_struct r;

	if (tracee_get_regs(&t->t, &r) < 0)
		return false;
	return (long long)r.rax == -ENOSYS || (long long)r.rax == -513;
}

static void replay_fork(struct replayer *rp, struct ptask *t,
			struct user_regs_struct *regs)
{
	const struct mrr_event *ev = &rp->ev;
	uint64_t flags = 0, ctid = 0;
	unsigned long msg = 0;
	struct clone_args_saved saved = {0};
	struct ptask *child;
	int status, event;
	bool untraced;

	if (ev->result <= 0) {
		replay_emulate(rp, t, regs);
		return;
	}
	if (ev->nr == SYS_clone) {
		flags = ev->args[0];
		ctid = ev->args[3];
	} else if (ev->nr == SYS_clone3) {
		uint64_t ca[3];

		if (tracee_read_all(&t->t, ev->args[0], ca, sizeof(ca)) == 0) {
			flags = ca[0];
			ctid = ca[2];
		}
		if (clone_args_strip(&t->t, ev->args[0], ev->args[1], &saved) <
		    0) {
			diverge(rp, t, "cannot adjust clone3's arguments");
			return;
		}
	}
	/* as at record (core/clone_untraced.h) */
	untraced = mrr_clone_clear_untraced(&t->t, ev->nr, regs) == 1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0 ||
		    tracee_wait(&t->t, &status) < 0 || !WIFSTOPPED(status)) {
			diverge(rp, t, "the task vanished in fork");
			return;
		}
		event = status >> 16;
		if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
		    event == PTRACE_EVENT_CLONE)
			break;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) && !fork_goes_on(t)) {
			diverge(rp, t, "fork failed at replay");
			return;
		}
		/* anything else (a signal the replayed children sent, which
		 * the trace delivers where it was recorded) is resumed
		 * without its signal */
	}
	if (untraced &&
	    mrr_clone_restore_untraced(&t->t, ev->nr, ev->args[0]) < 0) {
		diverge(rp, t, "cannot put CLONE_UNTRACED back");
		return;
	}
	if (clone_args_restore(&t->t, &saved) < 0) {
		diverge(rp, t, "cannot put clone3's arguments back");
		return;
	}
	ptrace(PTRACE_GETEVENTMSG, t->t.tid, 0, &msg);
	child = ptask_add(rp, (pid_t)ev->result, (pid_t)msg);
	child->fresh = true;
	if (flags & CLONE_THREAD) {
		struct ptask *leader = ptask_find(rp, t->tgid);

		child->tgid = t->tgid;
		if (leader)
			leader->threaded = true;
	}
	/* as at record (abi.h) */
	child->sbuf_addr = mrr_sbuf_clone_inherits(flags) ? t->sbuf_addr : 0;
	if (flags & CLONE_CHILD_SETTID) {
		child->child_tid_addr = ctid;
		child->child_tid_value = (pid_t)ev->result;
	}
	/* A thread (or CLONE_VM child) shares the parent's memory: its first
	 * stop is taken now, so that the kernel's write of its live tid
	 * (CLONE_CHILD_SETTID) happens before the recorded one goes in, and
	 * not while the parent runs. */
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK) &&
	    replay_first_stop(rp, child) < 0)
		return;
	if (apply_writes(rp, t, ev) < 0)
		return;
	/* The parent's exit stop comes later (after the child's exec, for
	 * vfork); ptask_next_stop sets the recorded result then. */
	if (ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0) {
		diverge(rp, t, "cannot resume after fork");
		return;
	}
	t->stopped = false;
	t->pending_exit = true;
	t->pending_result = ev->result;
}

static bool replay_rlimit(struct replayer *rp, struct ptask *t,
			  struct user_regs_struct *regs)
{
	const struct mrr_event *ev = &rp->ev;
	int prl = ev->nr == SYS_prlimit64;
	uint64_t resource = prl ? ev->args[1] : ev->args[0];
	uint64_t limit = prl ? ev->args[2] : ev->args[1];

	if (!limit || ev->result != 0 ||
	    (resource != RLIMIT_STACK && resource != RLIMIT_AS &&
	     resource != RLIMIT_DATA))
		return false;
	if (prl) {
		if (ev->args[0] != 0 && ev->args[0] != (uint64_t)ev->tid)
			return false;
		regs->rdi = 0; /* ourselves, whatever our live pid */
		if (tracee_set_regs(&t->t, regs) < 0)
			return true;
	}
	replay_execute(rp, t, false);
	return true;
}

/* The user address and size of the temporary signal mask a syscall
 * installs while it waits, or 0. */
static uint64_t temp_sigmask(struct ptask *t, const struct mrr_event *ev,
			     uint64_t *size)
{
	uint64_t ss[2];

	switch (ev->nr) {
	case SYS_rt_sigsuspend:
		*size = ev->args[1];
		return ev->args[0];
	case SYS_ppoll:
		*size = ev->args[4];
		return ev->args[3];
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		*size = ev->args[5];
		return ev->args[4];
	case SYS_pselect6:
		if (!ev->args[5] ||
		    tracee_read_all(&t->t, ev->args[5], ss, sizeof(ss)) < 0)
			return 0;
		*size = ss[1];
		return ss[0];
	}
	return 0;
}

/* At record a signal interrupted this call while its temporary mask was in
 * place; the kernel then restores the old mask only after delivering the
 * signal. Reproduce that with a real rt_sigsuspend on the same mask and the
 * same pending signal. Returns 1 when handled. */
static int replay_interrupted_wait(struct replayer *rp, struct ptask *t,
				   struct user_regs_struct *regs)
{
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_interrupted_extra *x = ev->extra;
	uint64_t mask, size = 0;
	int64_t ret;
	int sig;

	if (ev->result > -512 || ev->result < -516 ||
	    ev->extra_len < sizeof(*x) || !x->pending)
		return 0;
	mask = temp_sigmask(t, ev, &size);
	if (!mask)
		return 0;
	sig = __builtin_ctzll(x->pending) + 1;
	syscall(SYS_tgkill, t->t.tid, t->t.tid, sig);
	if (replay_replace_and_run(rp, t, regs, SYS_rt_sigsuspend, mask, size,
				   0, 0, &ret) < 0)
		return 1;
	replay_set_result(rp, t, ev->result);
	return 1;
}

/* seccomp and prctl(PR_SET_SECCOMP) run for real. A filter the program
 * installs is rewritten as at record (core/seccomp_filter.h), so that it
 * never refuses mrr's own calls. */
static void replay_filter_install(struct replayer *rp, struct ptask *t,
				  struct user_regs_struct *regs)
{
	struct user_regs_struct r;
	int rw = 0;

	if (mrr_seccomp_installs_filter(rp->ev.nr, rp->ev.args))
		rw = mrr_seccomp_rewrite(&t->t, regs);
	if (rw < 0) {
		diverge(rp, t,
			"cannot rewrite the program's seccomp filter: %s",
			strerror(-rw));
		return;
	}
	replay_execute(rp, t, false);
	if (rw == 1 && tracee_get_regs(&t->t, &r) == 0) {
		r.rdx = rp->ev.args[2];
		if (tracee_set_regs(&t->t, &r) < 0)
			diverge(rp, t, "cannot restore the seccomp argument");
	}
}

static bool args_match(const struct mrr_syscall_desc *d,
		       const struct user_regs_struct *regs,
		       const struct mrr_event *ev, int *bad)
{
	int i, n = d ? mrr_syscall_args_used(ev->nr, ev->args) : 0;

	if (!d && (ev->nr == MRR_SYSCALL_REGISTER ||
		   ev->nr == MRR_SYSCALL_FLUSH || ev->nr == MRR_SYSCALL_DESYNC))
		n = 2; /* mrr's own calls take two */
	/* numbers the kernel does not know: it reads no argument */

	for (i = 0; i < n; i++)
		if (regs_arg(regs, i) != ev->args[i]) {
			*bad = i;
			return false;
		}
	return true;
}

/* The preload library found that the program's buffered call is not the
 * one recorded next (MRR_SYSCALL_DESYNC(offset, nr)): says which call the
 * program made and what the record there holds. */
static void report_desync(struct replayer *rp, struct ptask *t,
			  const struct user_regs_struct *regs)
{
	const char *got = mrr_syscall_name((long)regs->rsi);
	struct mrr_syscallbuf_rec rec;
	const char *want;
	char expected[256] = "a record mrr cannot read";

	if (t->sbuf_addr && regs->rdi < MRR_SYSCALLBUF_SIZE &&
	    tracee_read_all(&t->t,
			    t->sbuf_addr + sizeof(struct mrr_syscallbuf_hdr) +
				    regs->rdi,
			    &rec, sizeof(rec)) == 0) {
		want = mrr_syscall_name((long)rec.nr);
		snprintf(expected, sizeof(expected),
			 "%s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64
			 ") = %" PRId64 " with %u bytes of results",
			 want ? want : "an unknown call", rec.args[0],
			 rec.args[1], rec.args[2], rec.result, rec.data_len);
	}
	if (regs->rdx == 1) {
		diverge(rp, t,
			"the buffered %s the replay made again returned "
			"another result than the recorded %s (syscall buffer "
			"record at offset %llu): the memory map differs",
			got ? got : "call", expected, regs->rdi);
		return;
	}
	diverge(rp, t,
		"the program made a buffered %s where the recording has %s "
		"(syscall buffer record at offset %llu)",
		got ? got : "call", expected, regs->rdi);
}

static void run_syscall(struct replayer *rp, struct ptask *t,
			struct user_regs_struct *entry)
{
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_syscall_desc *d = mrr_syscall_lookup(ev->nr);
	struct user_regs_struct regs;
	int status, bad = 0;
	const char *want = mrr_syscall_name(ev->nr);

	if (ptask_next_stop(rp, t, &status) < 0)
		return;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		diverge(rp, t, "expected %s, the task ended with status 0x%x",
			want ? want : "a syscall", status);
		return;
	}
	if ((status >> 16) != PTRACE_EVENT_SECCOMP) {
		diverge(rp, t, "expected %s, the task stopped with signal %s",
			want ? want : "a syscall",
			mrr_signal_name(WSTOPSIG(status) & 0x7f)
				? mrr_signal_name(WSTOPSIG(status) & 0x7f)
				: "?");
		return;
	}
	if (tracee_get_regs(&t->t, &regs) < 0)
		return;
	if (regs.orig_rax == MRR_SYSCALL_DESYNC &&
	    ev->nr != MRR_SYSCALL_DESYNC) {
		report_desync(rp, t, &regs);
		return;
	}
	if (replay_sbuf_check_consumed(rp, t) < 0)
		return;
	if ((int64_t)regs.orig_rax != ev->nr) {
		const char *got = mrr_syscall_name((long)regs.orig_rax);

		diverge(rp, t, "expected %s, the task called %s",
			want ? want : "?", got ? got : "an unknown syscall");
		return;
	}
	if (regs.rip != ev->ip) {
		diverge(rp, t,
			"%s was called from 0x%llx, at record from 0x%" PRIx64,
			want, regs.rip, ev->ip);
		return;
	}
	if (!args_match(d, &regs, ev, &bad)) {
		diverge(rp, t,
			"%s argument %d is 0x%" PRIx64 ", at record 0x%" PRIx64,
			want, bad + 1, regs_arg(&regs, bad), ev->args[bad]);
		return;
	}
	*entry = regs;
	if (ev->nr == MRR_SYSCALL_REGISTER && replay_sbuf_register(rp, t) < 0)
		return;
	if (ev->nr == SYS_seccomp ||
	    (ev->nr == SYS_prctl &&
	     (ev->args[0] == 22 /* PR_SET_SECCOMP */ ||
	      ev->args[0] == 59 /* PR_SET_SYSCALL_USER_DISPATCH */)))
		replay_sbuf_no_probe(rp, t);
	if ((ev->flags & MRR_EVF_SKIPPED) && ev->result == 0 &&
	    ((ev->nr == SYS_seccomp && ev->args[0] == 0) ||
	     (ev->nr == SYS_prctl && ev->args[0] == 22 /* PR_SET_SECCOMP */ &&
	      ev->args[1] == 1 /* SECCOMP_MODE_STRICT */)))
		t->strict = true;
	if (ev->flags & MRR_EVF_SKIPPED) {
		if (ev->nr == SYS_ptrace && replay_vptrace(rp, t) < 0)
			return;
		replay_emulate(rp, t, &regs);
		return;
	}
	if (replay_interrupted_wait(rp, t, &regs))
		return;
	switch (ev->nr) {
	case SYS_mmap:
		replay_mmap(rp, t, &regs);
		return;
	case SYS_madvise:
		replay_madvise(rp, t, &regs);
		return;
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
		replay_fork(rp, t, &regs);
		return;
	case SYS_seccomp:
		replay_filter_install(rp, t, &regs);
		return;
	case SYS_shmat:
	case SYS_shmdt:
		replay_shm(rp, t, &regs);
		return;
	case SYS_process_vm_writev:
		if (replay_vm_write(rp, t) < 0)
			return;
		break;
	case SYS_personality:
		/* Runs, since the persona shapes the next exec's layout
		 * (ADDR_COMPAT_LAYOUT...); randomisation stays off as at
		 * record, and the program sees the recorded result (see
		 * src/record/record_virt.c). */
		if (ev->args[0] != 0xffffffffu) {
			regs.rdi = ev->args[0] | ADDR_NO_RANDOMIZE;
			if (tracee_set_regs(&t->t, &regs) < 0)
				return;
		}
		replay_execute(rp, t, false);
		return;
	case SYS_setrlimit:
	case SYS_prlimit64:
		if (replay_rlimit(rp, t, &regs))
			return;
		break;
	case SYS_prctl:
		if (ev->args[0] == 22 /* PR_SET_SECCOMP */ ||
		    ev->args[0] == 38 /* PR_SET_NO_NEW_PRIVS */) {
			replay_filter_install(rp, t, &regs);
			return;
		}
		break;
	case SYS_mremap:
		/* a failure changed nothing (and may have come from garbage
		 * in r8, the hint libc passes with MREMAP_DONTUNMAP) */
		if (ev->result < 0 && ev->result > -4096) {
			replay_emulate(rp, t, &regs);
			return;
		}
		/* keep the mapping where it went at record */
		if (replay_refuse_mrr_page(rp, (uint64_t)ev->result,
					   ev->args[2]))
			return;
		if (ev->result > 0 && (uint64_t)ev->result != ev->args[0] &&
		    (ev->args[3] & MREMAP_MAYMOVE)) {
			regs.r10 = ev->args[3] | MREMAP_FIXED;
			regs.r8 = (uint64_t)ev->result;
			if (tracee_set_regs(&t->t, &regs) < 0)
				return;
		}
		replay_execute(rp, t, true);
		return;
	case SYS_rt_sigreturn:
		/* The kernel gives the registers the frame holds, rax too: a
		 * value there in ERESTARTSYS's range is the program's, not a
		 * call to restart (and a recording made without the exit
		 * stop has the frame's rax as result, not what a failing
		 * rt_sigreturn returns). */
		run_to_exit(rp, t);
		return;
	case SYS_brk:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_pkey_mprotect:
		/* A failed call changed nothing, except an mprotect that met
		 * a hole (ENOMEM): the pages before the hole did change, and
		 * the program may fault on them. */
		if (ev->result < 0 && ev->result > -4096 && ev->nr != SYS_brk &&
		    !(ev->result == -ENOMEM && ev->nr != SYS_munmap)) {
			replay_emulate(rp, t, &regs);
			return;
		}
		/* as at record (core/page_around.h) */
		if (ev->nr == SYS_munmap &&
		    page_around_applies(ev->args[0], ev->args[1]) &&
		    page_around_entry(&t->t, &regs, &t->around) < 0) {
			diverge(rp, t, "cannot unmap around mrr's page");
			return;
		}
		replay_execute(rp, t, true);
		return;
	}
	if (d && d->cls == MRR_SC_EXECUTE)
		replay_execute(rp, t, false);
	else
		replay_emulate(rp, t, &regs);
}

void replay_syscall(struct replayer *rp, struct ptask *t)
{
	struct user_regs_struct entry, r;

	memset(&entry, 0, sizeof(entry));
	entry.orig_rax = (uint64_t)-1;
	run_syscall(rp, t, &entry);
	if (!rp->status && rp->ev.nr == SYS_sigaltstack)
		replay_point_digest_note_syscall(t, &rp->ev);
	/* The kernel leaves the argument registers as the program set them,
	 * and so must the replay, which may have changed them to run the
	 * call another way (MAP_FIXED, a file descriptor of its own...):
	 * a later preemption point compares them. */
	if (rp->status || (int64_t)entry.orig_rax != rp->ev.nr ||
	    rp->ev.nr == SYS_rt_sigreturn || rp->ev.nr == SYS_execve ||
	    rp->ev.nr == SYS_execveat || !t->stopped || !t->at_exit ||
	    tracee_get_regs(&t->t, &r) < 0)
		return;
	if (r.rdi == entry.rdi && r.rsi == entry.rsi && r.rdx == entry.rdx &&
	    r.r10 == entry.r10 && r.r8 == entry.r8 && r.r9 == entry.r9)
		return;
	r.rdi = entry.rdi;
	r.rsi = entry.rsi;
	r.rdx = entry.rdx;
	r.r10 = entry.r10;
	r.r8 = entry.r8;
	r.r9 = entry.r9;
	if (tracee_set_regs(&t->t, &r) < 0)
		diverge(rp, t, "cannot restore the arguments of %s",
			mrr_syscall_name(rp->ev.nr));
}
