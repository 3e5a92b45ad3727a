/* The recording loop: starts the program, dispatches every ptrace stop, and
 * commits the trace when the last recorded process is gone. */
#define _GNU_SOURCE
#include "record/recorder.h"

#include "core/clone_untraced.h"
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/insn.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/seccomp_filter.h"
#include "core/tsc_patch.h"
#include "mem/pagemap.h"
#include "record/filecache.h"
#include "record/point_digest.h"
#include "record/preempt.h"
#include "record/eintr.h"
#include "record/rtask.h"
#include "record/self_watch.h"
#include "record/spin.h"
#include "record/vptrace.h"
#include "record/vdso.h"
#include "record/signals.h"
#include "syscallbuf/abi.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTRACE_OPTIONS                                                         \
	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK |     \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACESECCOMP |   \
	 PTRACE_O_EXITKILL)

static volatile sig_atomic_t interrupted_by;
static pid_t recorder_pid; /* for the child: is its parent still mrr? */

bool rec_interrupted(void)
{
	return interrupted_by != 0;
}

static void on_interrupt(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (rec_signal_from_tracee(si))
		return; /* the program's, not the user's */
	interrupted_by = sig;
	tracee_wait_cancel = 1; /* a wait for a task that never stops ends */
	mrr_trace_cancel();	/* a huge stored file must not hold us up */
}

void rec_stop(struct recorder *rec, int code, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	if (rec->stop_reason[0])
		return;
	if (rec_self_watch_fired(why, sizeof(why))) {
		/* the cause of whatever failed since: mrr ended its wait */
		snprintf(rec->stop_reason, sizeof(rec->stop_reason),
			 "%s, at event %llu", why,
			 (unsigned long long)mrr_trace_writer_events(rec->w));
		rec->stop_code = MRR_EXIT_UNSUPPORTED;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(rec->stop_reason, sizeof(rec->stop_reason), fmt, ap);
	va_end(ap);
	rec->stop_code = code;
}

static struct rtask *find_task(struct recorder *rec, pid_t tid)
{
	struct rtask *t;

	for (t = rec->tasks; t; t = t->next)
		if (t->t.tid == tid)
			return t;
	return NULL;
}

static struct rtask *add_task(struct recorder *rec, pid_t tid)
{
	struct rtask *t = calloc(1, sizeof(*t));

	if (!t)
		mrr_fatal("out of memory adding task %d", tid);
	t->t.tid = tid;
	t->t.mem_fd = -1;
	t->next = rec->tasks;
	rec->tasks = t;
	rec->ntasks++;
	rec_sched_new_task(t);
	return t;
}

/* t's exec or exit event is in the trace: a vfork parent waiting on it may
 * go on, starting with the stop it was held at. */
static void release_vfork_parent(struct recorder *rec, struct rtask *t)
{
	struct rtask *p;

	for (p = rec->tasks; p; p = p->next) {
		if (p->vfork_child != t->t.tid)
			continue;
		p->vfork_child = 0;
		if (!p->has_held_stop)
			continue;
		p->has_held_stop = false;
		/* a stopping recording kills every task: nothing more to do */
		if (!interrupted_by && !rec->stop_reason[0] && !rec->write_err)
			rec_sched_stop(rec, p, p->held_status);
	}
}

/* Output order. The replay echoes the program's output in the order of the
 * trace's write events, which is the order the recorder saw the calls end.
 * Two processes writing to mrr's stdout at once could end in the other order
 * than the kernel wrote them, so such writes run one at a time: a task that
 * enters one while another is in flight is held at its entry stop. */
static bool is_write_call(long nr)
{
	return nr == SYS_write || nr == SYS_writev || nr == SYS_pwrite64 ||
	       nr == SYS_pwritev || nr == SYS_pwritev2;
}

bool rec_output_wait(struct recorder *rec, struct rtask *t)
{
	if (!is_write_call(t->nr) || !echo_flags(rec, t, t->args[0]))
		return false;
	if (rec->echo_writer && rec->echo_writer != t->t.tid &&
	    find_task(rec, rec->echo_writer)) {
		t->echo_waiting = true;
		t->has_held_stop = true;
		/* the seccomp stop it is held at, to be taken up again */
		t->held_status =
			((SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)) << 8) | 0x7f;
		return true;
	}
	rec->echo_writer = t->t.tid;
	return false;
}

/* t's write to mrr's output has ended (or t is gone): let one waiting
 * writer go on. */
static void output_done(struct recorder *rec, struct rtask *t)
{
	struct rtask *w;

	if (rec->echo_writer != t->t.tid)
		return;
	rec->echo_writer = 0;
	for (w = rec->tasks; w; w = w->next) {
		if (!w->echo_waiting || w == t)
			continue;
		w->echo_waiting = false;
		w->has_held_stop = false;
		if (!interrupted_by && !rec->stop_reason[0] && !rec->write_err)
			rec_sched_stop(rec, w, w->held_status);
		return;
	}
}

static void remove_task(struct recorder *rec, struct rtask *t)
{
	struct rtask **pp;

	release_vfork_parent(rec, t);
	output_done(rec, t);
	rec_vptrace_gone(rec, t, t->exit_status);

	for (pp = &rec->tasks; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	rec_sched_gone(rec, t);
	tracee_close_mem(&t->t);
	mrr_pagemap_close(t->pagemap);
	rec_preempt_free(t);
	rec_spin_gates_free(t);
	free(t);
	rec->ntasks--;
}

static void resume(struct recorder *rec, struct rtask *t, int how, int sig)
{
	if (ptrace(how, t->t.tid, 0, sig) < 0 && errno != ESRCH)
		mrr_fatal("ptrace resume of pid %d failed: %s", t->t.tid,
			  strerror(errno));
}

/* LD_PRELOAD for the program: the user's libraries, then mrr's. The
 * user's come first so that their wrappers of buffered calls still run
 * (and reach mrr's through RTLD_NEXT), as they would natively. */
static void set_preload(const char *mrr_lib)
{
	const char *user = getenv("LD_PRELOAD");
	size_t n;
	char *both;

	if (!user || !user[strspn(user, " :")]) {
		setenv("LD_PRELOAD", mrr_lib, 1);
		return;
	}
	n = strlen(user) + strlen(mrr_lib) + 2;
	both = malloc(n);
	if (!both)
		_exit(MRR_EXIT_OSERR);
	snprintf(both, n, "%s:%s", user, mrr_lib);
	setenv("LD_PRELOAD", both, 1);
	free(both);
}

/* The child side: becomes the recorded program. mrr attaches with
 * PTRACE_SEIZE (so that group-stops show as PTRACE_EVENT_STOP and can be
 * left in place with PTRACE_LISTEN: job control between recorded
 * processes); the child waits on go_fd until it is attached. */
static void exec_child(const struct record_opts *o, int go_fd)
{
	char go;

	/* if mrr dies before it can set PTRACE_O_EXITKILL */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != recorder_pid)
		_exit(MRR_EXIT_OSERR);
	if (read(go_fd, &go, 1) != 1)
		_exit(MRR_EXIT_OSERR);
	close(go_fd);
	raise(SIGSTOP);
	/* setenv allocates, and must do so before rdtsc traps: ASan's
	 * allocator reads the clock (rdtsc, through the vDSO). */
	if (o->syscallbuf && o->preload)
		set_preload(o->preload);
	personality(ADDR_NO_RANDOMIZE);
	prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
	/* no no_new_privs where mrr can do without, but for a program that
	 * raises privileges itself (see rec_exec_nnp) */
	if (mrr_install_seccomp_filter(true, !mrr_file_raises_privs(o->exe)) <
	    0)
		_exit(MRR_EXIT_OSERR);
	execv(o->exe, o->argv);
	_exit(MRR_EXIT_NOINPUT);
}

/* Hides the vDSO from the program (AT_SYSINFO_EHDR -> AT_IGNORE) so time
 * functions make real, recorded syscalls. */
static void hide_vdso(struct rtask *t, uint64_t rsp)
{
	uint64_t argc, p, word[2];

	if (tracee_read_all(&t->t, rsp, &argc, 8) < 0)
		return;
	p = rsp + 8 + (argc + 1) * 8;
	for (;;) { /* skip envp */
		if (tracee_read_all(&t->t, p, word, 8) < 0)
			return;
		p += 8;
		if (!word[0])
			break;
	}
	for (;; p += 16) {
		if (tracee_read_all(&t->t, p, word, 16) < 0 || word[0] == 0)
			return;
		if (word[0] == 33 /* AT_SYSINFO_EHDR */) {
			word[0] = 1; /* AT_IGNORE */
			if (tracee_write_all(&t->t, p, word, 8) < 0)
				return;
		}
	}
}

/* Rewrites the rdtsc sites in the executable mappings the kernel made of
 * path at exec. */
static void patch_image_tsc(struct recorder *rec, struct rtask *t,
			    const char *path, const char *name,
			    struct capture *c)
{
	struct proc_vma *v;
	char real[PATH_MAX];
	long n, i;

	if (!rec->tsc_rewrite)
		return;
	/* the maps name the file by its real path; PT_INTERP is often a
	 * symlink (/lib64/ld-linux-x86-64.so.2) */
	if (realpath(path, real))
		path = real;
	n = proc_read_vmas(t->t.tid, false, &v);
	for (i = 0; i < n; i++)
		if ((v[i].prot & PROT_EXEC) && strcmp(v[i].name, path) == 0)
			rec_patch_tsc(rec, t, name, path, v[i].start, v[i].end,
				      v[i].offset, c);
	if (n > 0)
		free(v);
}

/* At the syscall-exit after a successful execve: set up the new image and
 * record it. */
static void write_deferred_exits(struct recorder *rec, pid_t tgid);

static void record_exec(struct recorder *rec, struct rtask *t)
{
	struct mrr_exec_extra *x;
	struct user_regs_struct regs;
	struct mrr_event ev = {0};
	struct capture c = {0};
	char exe[PATH_MAX], interp[PATH_MAX], link[64];
	uint64_t stack_end;
	ssize_t n;
	int err;

	t->started = true;
	t->sbuf_addr = 0;
	t->dumpable = 1;		    /* a new image is dumpable again */
	memset(&t->sud, 0, sizeof(t->sud)); /* exec turns dispatch off */
	if (tracee_open_mem(&t->t) < 0)
		mrr_debug("pid %d: cannot open its memory", t->t.tid);
	mrr_pagemap_close(t->pagemap);
	t->pagemap = NULL;
	if (tracee_map_mrr_page(&t->t) < 0) {
		/* No exec event: the replay could not set up this image
		 * either, and would report that as a divergence. */
		rec_stop(rec, MRR_EXIT_OSERR,
			 "cannot map mrr's page into pid %d at 0x%llx",
			 t->t.tid, (unsigned long long)MRR_PAGE_ADDR);
		return;
	}
	if (tracee_get_regs(&t->t, &regs) < 0)
		return;
	if (rec_patch_vdso(t, &c) < 0)
		hide_vdso(t, regs.rsp);
	stack_end = proc_stack_end(t->t.tid);
	if (!stack_end || stack_end <= regs.rsp) {
		rec_stop(rec, MRR_EXIT_OSERR, "cannot find the stack of pid %d",
			 t->t.tid);
		return;
	}
	capture_add(&c, t, regs.rsp, stack_end - regs.rsp);

	snprintf(link, sizeof(link), "/proc/%d/exe", t->t.tid);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	x = calloc(1, sizeof(*x) + strlen(exe) + 1);
	if (!x)
		mrr_fatal("out of memory");
	memcpy(x->regs, &regs, sizeof(regs));
	err = rec_store_path(rec, link, x->exe_file);
	if (!err && elf_interp(link, interp, sizeof(interp)) == 0 && interp[0])
		err = rec_store_path(rec, interp, x->interp_file);
	if (err && !rec->write_err) /* the trace stays incomplete */
		rec->write_err = err < -999 ? -EIO : err;
	memcpy(x + 1, exe, strlen(exe) + 1);
	capture_extra(&c, x, sizeof(*x) + strlen(exe) + 1);
	patch_image_tsc(rec, t, exe, x->exe_file, &c);
	if (x->interp_file[0])
		patch_image_tsc(rec, t, interp, x->interp_file, &c);
	free(x);

	ev.kind = MRR_EV_EXEC;
	ev.tid = t->exec_old_tid ? t->exec_old_tid : t->t.tid;
	ev.ip = regs.rip;
	ev.nr = SYS_execve;
	rec_write_event(rec, t, &ev, &c);
	release_vfork_parent(rec, t);
	capture_reset(&c);
	free(c.data);
	free(c.extra);
	t->exit_regs = regs;
	t->have_exit_regs = true;
	t->last_result = 0;
	t->exec_old_tid = 0;
	write_deferred_exits(rec, t->tgid);
}

static void write_exit(struct recorder *rec, struct rtask *t, int status)
{
	struct mrr_event ev = {0};
	struct capture c = {0};

	if (!t->started || t->exit_written)
		return;
	t->exit_written = true;
	ev.kind = MRR_EV_EXIT;
	ev.tid = t->t.tid;
	ev.result = status;
	if (t->exiting || t->strict_killed) {
		ev.ip = t->entry_regs.rip;
		ev.nr = t->nr;
		memcpy(ev.args, t->args, sizeof(ev.args));
	} else {
		ev.nr = -1;
	}
	rec_write_event(rec, t, &ev, &c);
}

/* Whether a thread of t's process other than t is inside execve. */
static bool group_in_exec(struct recorder *rec, struct rtask *t)
{
	struct rtask *x;

	for (x = rec->tasks; x; x = x->next)
		if (x != t && x->tgid == t->tgid && x->in_syscall &&
		    (x->nr == SYS_execve || x->nr == SYS_execveat))
			return true;
	return false;
}

/* The exits of tgid's threads that another thread's execve ended, after
 * that exec's event (or its failure's). */
static void write_deferred_exits(struct recorder *rec, pid_t tgid)
{
	struct rtask *x, *next;

	for (x = rec->tasks; x; x = next) {
		next = x->next;
		if (x->tgid != tgid || !x->exit_deferred)
			continue;
		write_exit(rec, x, x->deferred_status);
		remove_task(rec, x);
	}
}

static void record_exit(struct recorder *rec, struct rtask *t, int status)
{
	struct rtask *x;

	if (t->exit_deferred)
		return;
	/* killed by the execve of another thread: at replay that exec is
	 * what ends it, so its exit follows the exec event */
	if (!t->exiting && group_in_exec(rec, t)) {
		t->exit_deferred = true;
		t->deferred_status = status;
		rec_sched_gone(rec, t);
		return;
	}

	/* exit_group by a thread of t's process: that thread's exit comes
	 * first, since at replay its call is what ends the others (the
	 * kernel may report them, and always reports the leader, before
	 * it) */
	for (x = rec->tasks; x; x = x->next)
		if (x != t && x->tgid == t->tgid && x->exiting &&
		    x->nr == SYS_exit_group)
			write_exit(rec, x, (int)((x->args[0] & 0xff) << 8));
	write_exit(rec, t, status);
	t->exit_status = status;
	if (t->t.tid == rec->first_pid) {
		rec->first_status = status;
		rec->first_exited = true;
	}
	remove_task(rec, t);
}

/* A PTRACE_EVENT_EXEC stop reported for pid t: when the thread that
 * exec'd was not the leader, the kernel ended the leader silently (no
 * exit is reported) and gave its tid to the exec'ing thread. That
 * thread's task takes over the tid; the leader's task goes without an
 * event (the replay's exec ends it the same way). Returns the task the
 * stop belongs to. */
static struct rtask *exec_takeover(struct recorder *rec, struct rtask *t)
{
	unsigned long old = 0;
	struct rtask *e;

	if (ptrace(PTRACE_GETEVENTMSG, t->t.tid, 0, &old) < 0 ||
	    (pid_t)old == t->t.tid)
		return t;
	e = find_task(rec, (pid_t)old);
	if (!e)
		return t;
	mrr_debug("threads: tid %d exec'd and becomes pid %d", e->t.tid,
		  t->t.tid);
	e->exec_old_tid = e->t.tid;
	tracee_close_mem(&e->t);
	e->t.tid = t->t.tid;
	t->exit_written = true; /* it has no exit */
	t->t.tid = 0;		/* find_task must not find it */
	remove_task(rec, t);
	return e;
}

void rec_handle_wait(struct recorder *rec, struct rtask *t, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status))
		record_exit(rec, t, status);
	else {
		if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_EXEC)
			t = exec_takeover(rec, t);
		rec_sched_stop(rec, t, status);
	}
}

/* A new task's first stop. It runs only once its parent's fork event is in
 * the trace, so that replay sees the fork before the child's events. */
static void first_stop(struct recorder *rec, struct rtask *t)
{
	t->first_stop_seen = true;
	if (t->released) {
		if (!rec_vptrace_first_stop(rec, t))
			resume(rec, t, PTRACE_CONT, 0);
	} else
		t->held = true;
}

static void on_fork_event(struct recorder *rec, struct rtask *parent,
			  bool vfork)
{
	unsigned long msg = 0;
	struct rtask *child;
	pid_t cpid;

	ptrace(PTRACE_GETEVENTMSG, parent->t.tid, 0, &msg);
	cpid = (pid_t)msg;
	child = find_task(rec, cpid);
	if (!child)
		child = add_task(rec, cpid);
	child->parent = parent->t.tid;
	child->started = parent->started;
	child->sbuf_addr = parent->sbuf_addr;
	rec_virt_inherit(child, parent);
	rec_vptrace_fork(rec, parent, child);
	child->released = true;
	rec_sched_clone(rec, parent, child);
	if (vfork)
		parent->vfork_child = cpid;
	/* The fork's event goes in now, with the child's pid as result. */
	rec_fork_event(rec, parent, cpid);
	parent->fork_written = true;
	parent->in_syscall = true;
	if (child->held) {
		child->held = false;
		if (!rec_vptrace_first_stop(rec, child))
			resume(rec, child, PTRACE_CONT, 0);
	}
	resume(rec, parent, PTRACE_SYSCALL, 0);
}

void rec_exit_tail(struct recorder *rec, struct rtask *t)
{
	if (t->deferred) {
		/* Deliver the held-back signal right here, where the replay
		 * can do the same. */
		t->deferred = false;
		t->injecting = true;
		t->injecting_info = t->deferred_info;
		resume(rec, t, PTRACE_CONT, t->deferred_info.si_signo);
		return;
	}
	resume(rec, t, PTRACE_CONT, 0);
}

void rec_dispatch_stop(struct recorder *rec, struct rtask *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;

	/* The clone's exit stop too: let go from there, the parent would run
	 * user code up to its next stop, be held there, and the slot would go
	 * to another thread with no sched event to say that the parent's code
	 * ran first; the replay runs it right before the parent's next event,
	 * after that thread's writes (Go's runtime_AfterFork resetting the
	 * stack guard that the GC's preemptone sets: real/go_build,
	 * prog/thread_vfork_return). Held at the exit, it has run nothing. */
	if (t->vfork_child) {
		t->has_held_stop = true;
		t->held_status = status;
		return;
	}
	/* a new task's first stop: PTRACE_EVENT_STOP under PTRACE_SEIZE (a
	 * new thread parked by threads.c comes back with that status, and
	 * then, its first stop seen, is simply resumed) */
	if (!t->first_stop_seen && t->t.tid != rec->first_pid &&
	    sig == SIGTRAP && event == PTRACE_EVENT_STOP) {
		first_stop(rec, t);
		return;
	}
	t->first_stop_seen = true;
	if (t->exit_at_signal && !rec_exit_at_signal(rec, t, status))
		return;
	if (sig == (SIGTRAP | 0x80)) {
		if (t->after_exec) {
			t->after_exec = false;
			t->in_syscall = false;
			record_exec(rec, t);
			if (!rec_vptrace_exec(rec, t))
				resume(rec, t, PTRACE_CONT, 0);
			return;
		}
		if (!t->in_syscall) { /* a syscall-entry stop: not expected */
			resume(rec, t, PTRACE_CONT, 0);
			return;
		}
		t->in_syscall = false;
		if (t->strict_filter) {
			t->strict_filter = false;
			rec_virt_strict_exit(t);
			resume(rec, t, PTRACE_CONT, 0);
			return;
		}
		if (t->nnp_exec) { /* the execve is made again, below */
			t->nnp_exec = false;
			rec_exec_nnp_again(t);
			resume(rec, t, PTRACE_CONT, 0);
			return;
		}
		if (t->untraced_cleared) {
			t->untraced_cleared = false;
			if (mrr_clone_restore_untraced(&t->t, t->nr,
						       t->args[0]) < 0)
				mrr_debug("pid %d: cannot put CLONE_UNTRACED "
					  "back",
					  t->t.tid);
		}
		if (t->fork_written) {
			t->fork_written = false;
			t->have_exit_regs = false;
			if (!rec_vptrace_exit(rec, t, true))
				resume(rec, t, PTRACE_CONT, 0);
			return;
		}
		if (rec_vptrace_wait_exit(rec, t))
			return; /* it waits for a virtual tracee */
		if (rec_eintr_again(rec, t))
			return; /* woken by mrr: made again */
		rec_syscall_exit(rec, t);
		if (t->nr == SYS_execve || t->nr == SYS_execveat)
			write_deferred_exits(rec, t->tgid); /* it failed */
		output_done(rec, t);
		if (rec_vptrace_exit(rec, t, false))
			return; /* held for its tracer */
		rec_exit_tail(rec, t);
		return;
	}
	switch (event) {
	case PTRACE_EVENT_SECCOMP:
		if (!t->started) {
			resume(rec, t, PTRACE_CONT, 0);
			return;
		}
		rec_syscall_entry(rec, t);
		return; /* rec_syscall_entry resumed the task */
	case PTRACE_EVENT_EXEC:
		rec_sched_exec(rec, t);
		t->after_exec = true;
		t->in_syscall = true;
		resume(rec, t, PTRACE_SYSCALL, 0);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_fork_event(rec, t, event == PTRACE_EVENT_VFORK);
		return;
	case 0:
		rec_signal_stop(rec, t, sig);
		return;
	case PTRACE_EVENT_STOP:
		rec_group_stop(rec, t, sig);
		return;
	default:
		resume(rec, t, PTRACE_CONT, 0);
		return;
	}
}

static void free_stored(struct recorder *rec)
{
	for (size_t i = 0; i < rec->nstored; i++)
		free(rec->stored[i].sites);
	free(rec->stored);
	rec->stored = NULL;
	free(rec->secret_inos);
	rec->secret_inos = NULL;
	rec->nstored = 0;
	filecache_close(rec->fc);
	rec->fc = NULL;
}

static void kill_all(struct recorder *rec)
{
	struct rtask *t;

	for (t = rec->tasks; t; t = t->next)
		kill(t->t.tid, SIGKILL);
}

/* Reaps every remaining task after kill_all. */
static void drain(struct recorder *rec)
{
	int status;
	pid_t pid;

	while (rec->ntasks > 0) {
		struct rtask *t;

		pid = waitpid(-1, &status, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		t = find_task(rec, pid);
		if (t && (WIFEXITED(status) || WIFSIGNALED(status))) {
			if (t->t.tid == rec->first_pid) {
				rec->first_status = status;
				rec->first_exited = true;
			}
			remove_task(rec, t);
		}
	}
}

static void fill_info(struct mrr_trace_info *info, const struct record_opts *o,
		      char *argv_blob, size_t argv_len, char *env_blob,
		      size_t env_len, const char *cwd, uint32_t pagemap_flags)
{
	struct utsname u;
	FILE *f;
	char line[256];

	memset(info, 0, sizeof(*info));
	info->flags = MRR_INFO_NO_ASLR | pagemap_flags;
	snprintf(info->mrr_version, sizeof(info->mrr_version), "%s",
		 MRR_VERSION);
	if (uname(&u) == 0)
		snprintf(info->kernel, sizeof(info->kernel),
			 "%.40s %.64s %.16s", u.sysname, u.release, u.machine);
	f = fopen("/proc/cpuinfo", "re");
	if (f) {
		char vendor[64] = "", model[128] = "";

		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ':');

			if (!v)
				continue;
			v += 2;
			v[strcspn(v, "\n")] = 0;
			if (!vendor[0] && strncmp(line, "vendor_id", 9) == 0)
				snprintf(vendor, sizeof(vendor), "%s", v);
			if (!model[0] && strncmp(line, "model name", 10) == 0)
				snprintf(model, sizeof(model), "%s", v);
		}
		fclose(f);
		snprintf(info->cpu, sizeof(info->cpu), "%s %s", vendor, model);
	}
	info->cwd = cwd;
	info->exe = o->exe;
	info->argv = argv_blob;
	info->argv_len = argv_len;
	info->env = env_blob;
	info->env_len = env_len;
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		info->start_time_ns =
			(int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
}

static char *pack_strings(char *const *v, size_t *len)
{
	size_t total = 0, i;
	char *blob, *p;

	for (i = 0; v[i]; i++)
		total += strlen(v[i]) + 1;
	blob = malloc(total ? total : 1);
	if (!blob)
		mrr_fatal("out of memory");
	for (p = blob, i = 0; v[i]; i++) {
		size_t l = strlen(v[i]) + 1;
		memcpy(p, v[i], l);
		p += l;
	}
	*len = total;
	return blob;
}

static void stdio_ids(struct recorder *rec)
{
	struct stat st;

	if (fstat(1, &st) == 0) {
		rec->out_id.dev = st.st_dev;
		rec->out_id.ino = st.st_ino;
	}
	if (fstat(2, &st) == 0) {
		rec->err_id.dev = st.st_dev;
		rec->err_id.ino = st.st_ino;
	}
}

/* What mrr can learn from pagemap here: MRR_INFO_PFN_READABLE and
 * MRR_INFO_PAGEMAP_SCAN flags. */
static uint32_t probe_pagemap(void)
{
	struct mrr_pagemap *pm;
	uint32_t flags = 0;

	if (mrr_pagemap_open(getpid(), &pm) == 0) {
		if (mrr_pagemap_pfn_readable(pm))
			flags |= MRR_INFO_PFN_READABLE;
		if (mrr_pagemap_has_scan(pm))
			flags |= MRR_INFO_PAGEMAP_SCAN;
		mrr_pagemap_close(pm);
	}
	return flags;
}

static int status_to_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return MRR_EXIT_SOFTWARE;
}

int mrr_record(const struct record_opts *o)
{
	struct recorder rec = {0};
	struct mrr_trace_info info;
	struct sigaction sa = {0}, given[3];
	char cwd[PATH_MAX], *argv_blob, *env_blob;
	size_t argv_len, env_len;
	extern char **environ;
	int status, err, code;
	uint32_t pagemap_flags;
	enum mrr_trace_end end = MRR_END_COMPLETE;
	pid_t pid;
	int tsc_mode, go[2];

	rec.trace_dir = o->trace_dir;
	rec.backtrace = o->backtrace;
	tsc_mode = tsc_choose_mode();
	if (tsc_mode == -EINVAL) {
		mrr_err("MRR_TSC_MODE must be trap, rewrite or auto, not '%s'",
			getenv("MRR_TSC_MODE"));
		mrr_trace_writer_remove(o->writer);
		return MRR_EXIT_USAGE;
	}
	if (tsc_mode < 0) {
		mrr_err("MRR_TSC_MODE=trap, but rdtsc does not trap on this "
			"machine (PR_SET_TSC has no effect here)");
		mrr_trace_writer_remove(o->writer);
		return MRR_EXIT_OSERR;
	}
	rec.tsc_rewrite = tsc_mode == TSC_MODE_REWRITE;
	pagemap_flags = probe_pagemap();
	rec.pfn_readable = pagemap_flags & MRR_INFO_PFN_READABLE;
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	argv_blob = pack_strings(o->argv, &argv_len);
	env_blob = pack_strings(environ, &env_len);
	fill_info(&info, o, argv_blob, argv_len, env_blob, env_len, cwd,
		  pagemap_flags);
	if (!rec.tsc_rewrite)
		info.flags |= MRR_INFO_TSC_TRAP;
	info.flags |= MRR_INFO_UNTRACED_SIGACTION; /* the child's filter */
	info.flags |= MRR_INFO_DIGEST_SHARED;	   /* point_digest.c */
	info.flags |= MRR_INFO_DIGEST_SP_EXACT;	   /* point_digest.c */
	if (o->syscallbuf && o->preload) {
		info.flags |= MRR_INFO_SYSCALLBUF;
		info.syscallbuf_abi = MRR_SYSCALLBUF_ABI_VERSION;
		rec.syscallbuf = true;
	}
	rec.w = o->writer;
	err = mrr_trace_writer_start(rec.w, &info);
	free(argv_blob);
	free(env_blob);
	if (err) {
		mrr_err("cannot write trace %s: %s", o->trace_dir,
			mrr_trace_strerror(err));
		mrr_trace_writer_remove(rec.w);
		return MRR_EXIT_CANTCREAT;
	}
	stdio_ids(&rec);

	sa.sa_sigaction = on_interrupt;
	sa.sa_flags = SA_SIGINFO;
	/* the program gets what mrr was given (nohup's ignored SIGHUP) */
	sigaction(SIGINT, &sa, &given[0]);
	sigaction(SIGTERM, &sa, &given[1]);
	sigaction(SIGHUP, &sa, &given[2]);

	recorder_pid = getpid();
	if (pipe2(go, O_CLOEXEC) < 0) {
		mrr_err("cannot make a pipe: %s", strerror(errno));
		mrr_trace_writer_abort(rec.w);
		return MRR_EXIT_OSERR;
	}
	pid = fork();
	if (pid < 0) {
		mrr_err("cannot fork: %s", strerror(errno));
		mrr_trace_writer_abort(rec.w);
		return MRR_EXIT_OSERR;
	}
	if (pid == 0) {
		sigaction(SIGINT, &given[0], NULL);
		sigaction(SIGTERM, &given[1], NULL);
		sigaction(SIGHUP, &given[2], NULL);
		close(go[1]);
		exec_child(o, go[0]);
	}
	close(go[0]);
	rec.first_pid = pid;
	add_task(&rec, pid)->first_stop_seen = false;
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_OPTIONS) < 0) {
		mrr_err("cannot trace %s: ptrace(PTRACE_SEIZE) of pid %d "
			"failed: %s",
			o->exe, pid, strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(go[1]);
		mrr_trace_writer_abort(rec.w);
		return MRR_EXIT_OSERR;
	}
	if (write(go[1], "g", 1) != 1 || waitpid(pid, &status, 0) != pid ||
	    !WIFSTOPPED(status)) {
		mrr_err("cannot trace %s: the child did not stop for ptrace",
			o->exe);
		close(go[1]);
		mrr_trace_writer_abort(rec.w);
		return MRR_EXIT_OSERR;
	}
	close(go[1]);
	rec.tasks->first_stop_seen = true;
	if (!o->no_cache)
		rec.fc = filecache_open(o->trace_dir, o->sync);
	ptrace(PTRACE_CONT, pid, 0, 0);
	rec_self_watch_start();

	while (rec.ntasks > 0) {
		struct rtask *t;

		rec_self_watch_beat();
		if (rec_self_watch_fired(NULL, 0))
			rec_stop(&rec, MRR_EXIT_UNSUPPORTED, "(self_watch)");
		if (interrupted_by || rec.stop_reason[0] || rec.write_err)
			break;
		rec_sched_arm(&rec);
		pid = waitpid(-1, &status, __WALL);
		if (pid < 0) {
			if (errno == EINTR) {
				rec_sched_check(&rec);
				rec_watch_check(&rec);
				continue;
			}
			mrr_fatal("waitpid failed with %d tasks left: %s",
				  rec.ntasks, strerror(errno));
		}
		rec_watch_stop();
		t = find_task(&rec, pid);
		if (!t) {
			if (!WIFSTOPPED(status))
				continue; /* an untraced grandchild */
			t = add_task(&rec, pid);
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (!t->started && t->t.tid == rec.first_pid &&
			    WIFEXITED(status)) {
				/* nothing ran: leave no trace behind */
				mrr_err("cannot record %s: the kernel refused "
					"to "
					"execute it",
					o->exe);
				remove_task(&rec, t);
				free_stored(&rec);
				mrr_trace_writer_remove(rec.w);
				return MRR_EXIT_NOINPUT;
			}
		}
		rec_handle_wait(&rec, t, status);
		rec_jobctl_orphans(&rec);
	}

	/* the tasks the watchdog killed may all have ended the loop */
	if (rec_self_watch_fired(NULL, 0))
		rec_stop(&rec, MRR_EXIT_UNSUPPORTED, "(self_watch)");
	rec_sched_end(&rec);
	code = 0;
	if (rec.ntasks > 0) {
		kill_all(&rec);
		drain(&rec);
	}
	if (rec.write_err) {
		free_stored(&rec);
		mrr_err("cannot write trace %s: %s; the program was stopped "
			"and "
			"the trace is incomplete",
			o->trace_dir, strerror(-rec.write_err));
		mrr_trace_writer_abort(rec.w);
		return MRR_EXIT_CANTCREAT;
	}
	if (interrupted_by) {
		end = MRR_END_INTERRUPTED;
		snprintf(rec.stop_reason, sizeof(rec.stop_reason),
			 "interrupted by %s after %llu events",
			 strsignal(interrupted_by),
			 (unsigned long long)mrr_trace_writer_events(rec.w));
		mrr_err("recording %s", rec.stop_reason);
		code = 128 + interrupted_by;
	} else if (rec.stop_reason[0]) {
		end = MRR_END_ERROR;
		mrr_err("recording stopped: %s", rec.stop_reason);
		code = rec.stop_code;
	} else {
		code = status_to_exit_code(rec.first_status);
	}
	err = mrr_trace_writer_finish(
		rec.w, end, rec.stop_reason[0] ? rec.stop_reason : NULL);
	free_stored(&rec);
	if (err) {
		mrr_err("cannot commit trace %s: %s", o->trace_dir,
			mrr_trace_strerror(err));
		return MRR_EXIT_CANTCREAT;
	}
	rec_preempt_print_stats();
	rec_point_digest_print_stats();
	return code;
}
