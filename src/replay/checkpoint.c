/* Checkpoints by injected fork (checkpoint.h). The replayed processes hold
 * their own state; what fork leaves out (registers, memory shared with
 * other processes, the replay's file copies, the replayer's own tables) is
 * saved here beside the forked copies. */
#define _GNU_SOURCE
#include "replay/checkpoint.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "core/proc.h"
#include "replay/checkpoint_files.h"
#include "replay/checkpoint_mem.h"
#include "replay/ptask.h"
#include "replay/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One range of shared memory, as it was at the checkpoint. */
struct cp_task {
	struct ptask saved; /* replayer state; saved.t.tid: the forked copy */
	struct user_regs_struct regs;
	struct cp_mem mem; /* what fork leaves out of the copy */
};

struct checkpoint {
	uint64_t event;
	unsigned id; /* names its file snapshots; 0: the start */
	struct cp_task *tasks;
	size_t ntasks;
	struct file_copy *copies;
	size_t ncopies;
	struct cp_files files;
	char recent[RECENT_EVENTS][RECENT_EVENT_LEN];
	unsigned nrecent;
	uint64_t saved_bytes;
	struct checkpoint *next; /* by event, ascending */
};
_Static_assert(sizeof(((struct checkpoint *)0)->recent) ==
		       sizeof(((struct replayer *)0)->recent),
	       "a checkpoint keeps the replayer's recent events whole");

struct checkpoints {
	struct replayer *rp;
	unsigned max;
	unsigned flags;
	unsigned next_id;
	struct checkpoint start;
	struct checkpoint *list;
	size_t n;
	/* processes killed here that may linger as zombies: their real
	 * parent is a stopped copy, or a live task (see reap()) */
	pid_t *dead;
	size_t ndead;
	char why[256];
};

static int refuse(struct checkpoints *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct checkpoints *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return err;
}

struct checkpoints *checkpoints_new(struct replayer *rp, unsigned max,
				    unsigned flags)
{
	struct checkpoints *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->rp = rp;
	s->max = max ? max : CHECKPOINT_DEFAULT_MAX;
	s->flags = flags;
	s->next_id = 1;
	return s;
}

/* Reaps the zombies of processes killed earlier whose real parent has
 * died since, so that they became mrr's (the subreaper's) children. Only
 * exits are taken: the wait peeks first, so a stop of a live task that
 * got a recycled pid is left for the replay. */
static void reap(struct checkpoints *s)
{
	size_t i = 0;

	while (i < s->ndead) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)s->dead[i], &si,
			   WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 &&
		    si.si_pid == s->dead[i] &&
		    (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
		     si.si_code == CLD_DUMPED)) {
			waitid(P_PID, (id_t)s->dead[i], &si, WEXITED | __WALL);
			s->dead[i] = s->dead[--s->ndead];
		} else if (kill(s->dead[i], 0) < 0 && errno == ESRCH) {
			s->dead[i] = s->dead[--s->ndead];
		} else {
			i++;
		}
	}
}

/* Kills a traced process and takes its exit as its tracer; a real parent
 * other than mrr still has to reap it (reap()). */
static void kill_task(struct checkpoints *s, pid_t tid)
{
	pid_t *g;
	int status;

	kill(tid, SIGKILL);
	while (waitpid(tid, &status, __WALL) == tid && !WIFEXITED(status) &&
	       !WIFSIGNALED(status))
		;
	g = realloc(s->dead, (s->ndead + 1) * sizeof(*g));
	if (!g)
		return;
	s->dead = g;
	s->dead[s->ndead++] = tid;
}

static void free_checkpoint(struct checkpoints *s, struct checkpoint *cp)
{
	const char *tmpdir = s->rp->tmpdir;
	size_t i;

	for (i = 0; i < cp->ntasks; i++) {
		kill_task(s, cp->tasks[i].saved.t.tid);
		cp_mem_free(&cp->tasks[i].mem);
	}
	free(cp->tasks);
	free(cp->copies);
	cp_files_free(&cp->files, tmpdir);
	if (cp->id)
		free(cp);
}

void checkpoint_drop(struct checkpoints *s, struct checkpoint *cp)
{
	struct checkpoint **pp;

	if (!cp || cp == &s->start)
		return;
	for (pp = &s->list; *pp; pp = &(*pp)->next)
		if (*pp == cp) {
			*pp = cp->next;
			s->n--;
			break;
		}
	free_checkpoint(s, cp);
	reap(s);
}

void checkpoints_free(struct checkpoints *s)
{
	if (!s)
		return;
	while (s->list)
		checkpoint_drop(s, s->list);
	free(s->dead);
	free(s);
}

const char *checkpoints_why_not(const struct checkpoints *s)
{
	return s->why;
}

uint64_t checkpoint_event(const struct checkpoint *cp)
{
	return cp->event;
}

size_t checkpoints_count(const struct checkpoints *s)
{
	return s->n + 1;
}

size_t checkpoint_copies(const struct checkpoint *cp, pid_t *pids, size_t n,
			 uint64_t *saved_bytes)
{
	size_t i;

	for (i = 0; i < cp->ntasks && i < n; i++)
		pids[i] = cp->tasks[i].saved.t.tid;
	if (saved_bytes)
		*saved_bytes = cp->saved_bytes;
	return cp->ntasks;
}

struct checkpoint *checkpoint_nearest_before(struct checkpoints *s,
					     uint64_t event)
{
	struct checkpoint *cp, *best = &s->start;

	for (cp = s->list; cp && cp->event <= event; cp = cp->next)
		best = cp;
	return best;
}

/* Puts the session at the boundary before event seq: the reader there, no
 * event read ahead, nothing run towards the next event. The tasks must be
 * where that boundary left them. Returns 0 or the reader's error. */
static int session_seek(struct replayer *rp, uint64_t seq)
{
	int err = mrr_trace_seek(rp->r, seq);

	if (err)
		return err;
	rp->have_next = false;
	rp->nreplayed = seq;
	rp->progress = 0;
	rp->progress_unit = REPLAY_AT_EVENT;
	rp->progress_tid = 0;
	rp->mem_hit = false;
	rp->exit_reported = 0;
	rp->status = 0;
	memset(&rp->ev, 0, sizeof(rp->ev));
	rp->ev.seq = seq ? seq - 1 : 0;
	return 0;
}

static uint64_t session_event(struct replayer *rp)
{
	struct replay_pos pos;

	replay_position(rp, &pos);
	return pos.event;
}

/* ---- taking ---- */

/* Brings a task that is between two of its stops (a new child before its
 * first stop, a parent on its way out of fork) to that stop, as
 * ptask_next_stop would on its way to the next event. Only stops already
 * reached are taken (the wait peeks first), so nothing is lost: -EAGAIN
 * when the task is elsewhere (a vfork parent waits for its child). */
static int settle(struct checkpoints *s, struct ptask *t)
{
	unsigned tries = 0;

	while (t->fresh || !t->stopped) {
		siginfo_t si;
		int status;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)t->t.tid, &si,
			   WSTOPPED | WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
			return refuse(s, -EIO,
				      "pid %d cannot be waited for: %s",
				      t->rec_tid, strerror(errno));
		if (si.si_pid == 0) {
			/* asleep in the kernel (a vfork parent): not soon */
			if (++tries > 20 || proc_task_state(t->t.tid) == 'D')
				return refuse(
					s, -EAGAIN,
					"pid %d is still inside a syscall "
					"(a vfork parent waiting for its "
					"child, say)",
					t->rec_tid);
			usleep(500);
			continue;
		}
		if (si.si_code != CLD_TRAPPED)
			return refuse(s, -EAGAIN, "pid %d is ending",
				      t->rec_tid);
		if (t->fresh && si.si_status == SIGSTOP) {
			if (waitpid(t->t.tid, &status, __WALL) != t->t.tid)
				return refuse(s, -EIO, "pid %d vanished",
					      t->rec_tid);
			t->fresh = false;
			t->stopped = true;
			if (ptask_set_child_tid(t) < 0)
				mrr_debug("pid %d: cannot set child tid",
					  t->t.tid);
			continue;
		}
		if (!t->fresh && t->pending_exit &&
		    si.si_status == (SIGTRAP | 0x80)) {
			struct user_regs_struct r;

			if (waitpid(t->t.tid, &status, __WALL) != t->t.tid ||
			    tracee_get_regs(&t->t, &r) < 0)
				return refuse(s, -EIO, "pid %d vanished",
					      t->rec_tid);
			r.rax = (uint64_t)t->pending_result;
			if (tracee_set_regs(&t->t, &r) < 0)
				return refuse(s, -EIO, "pid %d vanished",
					      t->rec_tid);
			t->pending_exit = false;
			t->stopped = true;
			t->at_exit = true;
			continue;
		}
		return refuse(s, -EAGAIN, "pid %d has a stop still to handle",
			      t->rec_tid);
	}
	return 0;
}

/* From /proc/TID/status: its process's thread count, and whether a signal
 * is pending for it or its process. Returns the count, or -1. */
static long threads_of(pid_t tid, bool *pending)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	*pending = false;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Threads:", 8))
			n = strtol(line + 8, NULL, 10);
		else if (!strncmp(line, "SigPnd:", 7) ||
			 !strncmp(line, "ShdPnd:", 7))
			*pending |= strtoull(line + 7, NULL, 16) != 0;
	}
	fclose(f);
	return n;
}

/* Runs a fork in the stopped task t from mrr's page and waits for the
 * child's first stop; t's registers are put back. The child stays in that
 * stop. It is clone() with no flags and no exit signal: a fork whose end
 * sends its parent no SIGCHLD, which would reach a replayed process (in a
 * sigsuspend, say) when a checkpoint is dropped. Returns 0 and its pid, or
 * -errno. */
static int inject_fork(struct tracee *t, pid_t *child_out)
{
	struct user_regs_struct saved, r;
	unsigned long msg = 0;
	struct tracee c = {.mem_fd = -1};
	bool entered = false;
	int status, err;

	err = tracee_get_regs(t, &saved);
	if (err)
		return err;
	r = saved;
	r.rip = MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL;
	r.rax = SYS_clone;
	r.orig_rax = (uint64_t)-1;
	r.rdi = 0; /* flags: no CLONE_*, exit signal 0 */
	r.rsi = 0; /* the same stack pointer, as fork */
	r.rdx = 0;
	r.r10 = 0;
	r.r8 = 0;
	err = tracee_set_regs(t, &r);
	if (err)
		return err;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0)
			return -errno;
		err = tracee_wait(t, &status);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if ((status >> 16) == PTRACE_EVENT_FORK ||
		    (status >> 16) == PTRACE_EVENT_CLONE) {
			ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
			continue;
		}
		if (WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue; /* seccomp stop, or a signal: discarded */
		if (entered)
			break;
		entered = true;
	}
	err = tracee_get_regs(t, &r);
	if (!err)
		err = tracee_set_regs(t, &saved);
	if (err)
		return err;
	if ((int64_t)r.rax <= 0 || !msg)
		return (int64_t)r.rax < 0 ? (int)r.rax : -ECHILD;
	c.tid = (pid_t)msg;
	for (;;) {
		err = tracee_wait(&c, &status);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (WSTOPSIG(status) == SIGSTOP)
			break;
		if (ptrace(PTRACE_CONT, c.tid, 0, 0) < 0)
			return -errno;
	}
	*child_out = c.tid;
	return 0;
}

/* Which kept checkpoint to drop for a new one at event now: the one whose
 * neighbours are closest relative to its age (the newest is never
 * dropped), so that the spacing grows towards the past. */
static struct checkpoint *thin_out(struct checkpoints *s, uint64_t now)
{
	struct checkpoint *prev = NULL, *cp, *victim = NULL;
	double best = 0;

	for (cp = s->list; cp && cp->next; prev = cp, cp = cp->next) {
		uint64_t lo = prev ? prev->event : 0;
		double score = (double)(cp->next->event - lo) /
			       (double)(now - cp->event + 1);

		if (!victim || score < best) {
			victim = cp;
			best = score;
		}
	}
	return victim ? victim : s->list;
}

static void insert(struct checkpoints *s, struct checkpoint *cp)
{
	struct checkpoint **pp = &s->list;

	while (*pp && (*pp)->event < cp->event)
		pp = &(*pp)->next;
	cp->next = *pp;
	*pp = cp;
	s->n++;
}

/* A task parked at a syscall's entry (its group let another task run
 * first: a sched event) is put back before its syscall instruction, where
 * a fork can be injected: the call is skipped (orig_rax -1), the task
 * stops at that skip's exit, and its registers then say the call is still
 * to be made. Its own event later runs it into the same entry again. Any
 * other held stop is refused. */
static int unhold(struct checkpoints *s, struct ptask *t)
{
	struct user_regs_struct r;
	long long nr;
	int status;

	if ((t->held_status >> 16) != PTRACE_EVENT_SECCOMP)
		return refuse(s, -EAGAIN, "pid %d has run to its next event",
			      t->rec_tid);
	if (tracee_get_regs(&t->t, &r) < 0)
		return refuse(s, -EIO, "cannot read the registers of pid %d",
			      t->rec_tid);
	nr = (long long)r.orig_rax;
	r.orig_rax = (unsigned long long)-1;
	if (tracee_set_regs(&t->t, &r) < 0 ||
	    ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0 ||
	    tracee_wait(&t->t, &status) < 0 || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != (SIGTRAP | 0x80))
		return refuse(s, -EIO,
			      "pid %d did not step back from its syscall entry",
			      t->rec_tid);
	r.rax = (unsigned long long)nr;
	r.rip -= 2; /* the syscall instruction, 0f 05 */
	if (tracee_set_regs(&t->t, &r) < 0)
		return refuse(s, -EIO, "cannot set the registers of pid %d",
			      t->rec_tid);
	t->held = false;
	t->stopped = true;
	t->at_exit = true;
	return 0;
}

int checkpoint_take(struct checkpoints *s, struct checkpoint **out)
{
	struct replayer *rp = s->rp;
	struct checkpoint *cp, *old;
	struct replay_pos pos;
	struct ptask *t;
	size_t n = 0;
	int err = 0;

	s->why[0] = 0;
	replay_position(rp, &pos);
	if (rp->status)
		return refuse(s, -EINVAL, "the replay has stopped");
	if (pos.unit != REPLAY_AT_EVENT)
		return refuse(s, -EINVAL, "the replay is inside event %" PRIu64,
			      pos.event);
	for (old = s->list; old; old = old->next)
		if (old->event == pos.event) {
			*out = old;
			return 0;
		}
	if (s->flags & CHECKPOINT_RESTART_ONLY)
		return refuse(s, -ENOTSUP, "checkpoints restart the replay");
	for (t = rp->tasks; t; t = t->next, n++) {
		bool pending;
		long threads;

		err = settle(s, t);
		if (err)
			return err;
		if (t->resume_sig)
			return refuse(s, -EAGAIN,
				      "pid %d has a signal to deliver",
				      t->rec_tid);
		if (t->held && (err = unhold(s, t)) < 0)
			return err;
		if (t->sbuf_parked)
			return refuse(s, -EAGAIN,
				      "pid %d is held inside a buffered call",
				      t->rec_tid);
		/* a signal is delivered there from that very stop, which the
		 * injected fork would turn into a syscall stop */
		if (t->at_point)
			return refuse(s, -EAGAIN,
				      "pid %d is stopped at a preemption point",
				      t->rec_tid);
		threads = threads_of(t->t.tid, &pending);
		if (threads != 1)
			return refuse(s, -ENOTSUP,
				      "pid %d has %ld threads, and fork copies "
				      "only one",
				      t->rec_tid, threads);
		/* a fork child starts with none, and the injected call
		 * would take it */
		if (pending)
			return refuse(s, -EAGAIN, "pid %d has a signal pending",
				      t->rec_tid);
	}
	cp = calloc(1, sizeof(*cp));
	if (!cp)
		mrr_fatal("out of memory");
	cp->event = pos.event;
	cp->id = s->next_id++;
	cp->tasks = calloc(n ? n : 1, sizeof(*cp->tasks));
	if (!cp->tasks)
		mrr_fatal("out of memory");
	for (t = rp->tasks; t && !err; t = t->next) {
		struct cp_task *ct = &cp->tasks[cp->ntasks];
		pid_t copy;

		err = cp_mem_save(&ct->mem, t, rp->tmpdir, &cp->saved_bytes,
				  s->why, sizeof(s->why));
		if (!err && tracee_get_regs(&t->t, &ct->regs) < 0)
			err = refuse(s, -EIO,
				     "cannot read the registers of "
				     "pid %d",
				     t->rec_tid);
		if (!err && (err = inject_fork(&t->t, &copy)) < 0)
			err = refuse(s, -EIO, "pid %d did not fork: %s",
				     t->rec_tid, strerror(-err));
		if (err) {
			cp_mem_free(&ct->mem);
			break;
		}
		ct->saved = *t;
		ct->saved.t.tid = copy;
		ct->saved.t.mem_fd = -1;
		ct->saved.next = NULL;
		cp->ntasks++;
	}
	for (old = s->list; old && old->next;)
		old = old->next; /* the newest: its snapshots are likeliest */
	if (!err && cp_files_save(&cp->files, rp->tmpdir, cp->id,
				  old ? old->id : 0, &cp->saved_bytes) < 0)
		err = refuse(s, -EIO, "cannot copy the replay's files in %s",
			     rp->tmpdir);
	if (!err && rp->ncopies) {
		cp->copies = malloc(rp->ncopies * sizeof(*cp->copies));
		if (!cp->copies)
			mrr_fatal("out of memory");
		memcpy(cp->copies, rp->copies,
		       rp->ncopies * sizeof(*cp->copies));
		cp->ncopies = rp->ncopies;
	}
	if (err) {
		free_checkpoint(s, cp);
		reap(s);
		return err;
	}
	memcpy(cp->recent, rp->recent, sizeof(cp->recent));
	cp->nrecent = rp->nrecent;
	if (s->n >= s->max)
		checkpoint_drop(s, thin_out(s, cp->event));
	insert(s, cp);
	*out = cp;
	return 0;
}

/* ---- restoring ---- */

static void kill_live(struct checkpoints *s)
{
	struct replayer *rp = s->rp;
	struct ptask *t;

	for (t = rp->tasks; t; t = t->next)
		kill(t->t.tid, SIGKILL);
	while ((t = rp->tasks)) {
		rp->tasks = t->next;
		kill_task(s, t->t.tid);
		tracee_close_mem(&t->t);
		free(t);
	}
}

/* A live task from the copy ct: a fork of it, with the saved registers,
 * in a syscall-exit stop like every task between events (an injected
 * getpid gets it there from its first stop). */
static struct ptask *revive(struct checkpoints *s, struct cp_task *ct)
{
	struct ptask *t = calloc(1, sizeof(*t));
	pid_t live;
	int64_t ret;
	int err;

	if (!t)
		mrr_fatal("out of memory");
	err = inject_fork(&ct->saved.t, &live);
	if (err) {
		mrr_err("cannot restore pid %d from its checkpoint copy %d: "
			"%s",
			ct->saved.rec_tid, ct->saved.t.tid, strerror(-err));
		free(t);
		return NULL;
	}
	*t = ct->saved;
	t->t.tid = live;
	t->t.mem_fd = -1;
	t->next = NULL;
	err = tracee_set_regs(&t->t, &ct->regs);
	if (!err)
		err = tracee_inject_syscall(&t->t, 1, SYS_getpid, NULL, &ret);
	if (!err)
		err = tracee_open_mem(&t->t);
	if (!err)
		err = cp_mem_restore(&ct->mem, t);
	if (err) {
		mrr_err("cannot restore pid %d (live pid %d): %s",
			ct->saved.rec_tid, live, strerror(-err));
		kill_task(s, live);
		tracee_close_mem(&t->t);
		free(t);
		return NULL;
	}
	return t;
}

int checkpoint_restore(struct checkpoints *s, struct checkpoint *cp)
{
	struct replayer *rp = s->rp;
	struct ptask **tail = &rp->tasks;
	size_t i;
	int err;

	kill_live(s);
	reap(s);
	err = cp_files_restore(&cp->files, rp->tmpdir);
	if (err < 0) {
		mrr_err("cannot restore the replay's files in %s at event "
			"%" PRIu64 ": %s",
			rp->tmpdir, cp->event, strerror(-err));
		return rp->status = MRR_EXIT_OSERR;
	}
	/* A file shrank back: the kernel took the private pages beyond its
	 * new end from every mapping of it, in the copies of later
	 * checkpoints too. */
	while (err > 0 && cp->next)
		checkpoint_drop(s, cp->next);
	for (i = 0; i < cp->ntasks; i++) {
		struct ptask *t = revive(s, &cp->tasks[i]);

		if (!t)
			return rp->status = MRR_EXIT_OSERR;
		*tail = t;
		tail = &t->next;
	}
	free(rp->copies);
	rp->copies = NULL;
	rp->ncopies = 0;
	if (cp->ncopies) {
		/* private_copy() grows the table 16 entries at a time */
		rp->copies = malloc(((cp->ncopies + 15) & ~(size_t)15) *
				    sizeof(*rp->copies));
		if (!rp->copies)
			mrr_fatal("out of memory");
		memcpy(rp->copies, cp->copies,
		       cp->ncopies * sizeof(*rp->copies));
		rp->ncopies = cp->ncopies;
	}
	memcpy(rp->recent, cp->recent, sizeof(rp->recent));
	rp->nrecent = cp->nrecent;
	err = session_seek(rp, cp->event);
	if (err) {
		mrr_err("cannot go back to event %" PRIu64 " of trace %s: %s",
			cp->event, rp->o->trace_dir,
			mrr_trace_error_message(rp->r));
		return rp->status = MRR_EXIT_DATAERR;
	}
	return 0;
}

int checkpoint_goto(struct checkpoints *s, uint64_t event)
{
	struct replayer *rp = s->rp;
	const struct replay_opts *o = rp->o;
	struct replay_opts quiet;
	int err, ret = 0;

	if (rp->status)
		return rp->status;
	err = checkpoint_restore(s, checkpoint_nearest_before(s, event));
	if (err)
		return err;
	quiet = *o;
	quiet.quiet = true;
	rp->o = &quiet;
	while (session_event(rp) < event) {
		ret = replay_step(rp);
		if (ret <= 0)
			break;
	}
	rp->o = o;
	if (ret == 0 && session_event(rp) < event) {
		mrr_err("trace %s ends at event %" PRIu64
			", before event %" PRIu64,
			o->trace_dir, session_event(rp), event);
		return MRR_EXIT_USAGE;
	}
	return rp->status;
}
