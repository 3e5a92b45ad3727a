/* The recorder's thread scheduler. Tasks that share an address space (the
 * threads of a process, and CLONE_VM children) form a group, and one task
 * of a group runs user code at a time: the group's runner. Every other task
 * of the group is in a ptrace-stop (parked, its stop not yet handled) or
 * inside a syscall that may wait for another task (blocked). The trace's
 * event order is then the order in which the threads ran, and the replay
 * follows it.
 *
 * The runner gives up the slot when it enters a syscall that may block
 * (mrr_syscall_may_block), when it stops without being resumed (held back
 * by the recorder), when it is gone, and at its next traced syscall once it
 * has held the slot for a timeslice while others wait. A runner that stays
 * inside a call the table does not list as blocking is found by the stall
 * check (its /proc state) and treated as blocked. A runner that has run
 * user code without a stop for a timeslice while another task waits is
 * probed (spin.c): when it spins, waiting for memory another thread writes,
 * it is preempted at a recorded point in its loop and parked there. One
 * that computes (its state never repeats) keeps the slot, probed less and
 * less often; after MRR_SPIN_LIMIT seconds without any stop while another
 * task waits it is reported, since mrr cannot tell a spin from work
 * there. */
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/proc.h"
#include "record/preempt.h"
#include "record/rtask.h"
#include "record/shared_groups.h"
#include "record/spin.h"
#include "syscallbuf/abi.h"
#include "syscalls/table.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* A runner that entered a traced syscall after holding the slot this long
 * while others wait lets one of them run. */
#define TIMESLICE_MS 10
/* A runner without a stop for this long while others wait is checked. */
#define STALL_CHECK_MS 20
/* A runner in user code without a stop for this long while others wait
 * is probed for a spin; after a probe that found none, the next waits
 * PROBE_WAIT_MIN_MS, doubling up to PROBE_WAIT_MAX_MS. */
#define SPIN_CHECK_MS	  5
#define PROBE_WAIT_MIN_MS 10
#define PROBE_WAIT_MAX_MS 1000
/* A runner in user code without a stop while others wait gives up the
 * slot at its next buffered call after YIELD_SLOW_MS when the task that
 * waits longest made SLOW_STOPS stops or more in its own last slice (it
 * goes at ptrace speed, the runner at native speed: LTP signal06), else
 * after TIMESLICE_MS (two threads of buffered calls switch as seldom as
 * threads of traced calls). */
#define YIELD_SLOW_MS 1
#define SLOW_STOPS    16
/* The scheduler's timer period while a task waits for a slot. */
#define TICK_MS 1
/* Seconds a runner may compute without a stop while another waits. */
#define SPIN_LIMIT_DEFAULT 10

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct rgroup *group_new(void)
{
	struct rgroup *g = calloc(1, sizeof(*g));

	if (!g)
		mrr_fatal("out of memory");
	return g;
}

static void group_join(struct rtask *t, struct rgroup *g)
{
	t->grp = g;
	g->nmembers++;
}

/* Drops t from its group; returns the group if others remain in it. */
static struct rgroup *group_leave(struct rtask *t)
{
	struct rgroup *g = t->grp;

	if (!g)
		return NULL;
	t->grp = NULL;
	if (g->runner == t)
		g->runner = NULL;
	if (--g->nmembers == 0) {
		free(g);
		return NULL;
	}
	return g;
}

void rec_sched_new_task(struct rtask *t)
{
	group_join(t, group_new());
	t->tgid = t->t.tid;
}

static bool stopping(struct recorder *rec)
{
	return rec->stop_reason[0] || rec->write_err || rec_interrupted();
}

static const char *syscall_name(long nr)
{
	const char *n = mrr_syscall_name(nr);

	return n ? n : "a syscall";
}

/* The parked task of g that waited longest, or NULL. */
static struct rtask *next_parked(struct recorder *rec, struct rgroup *g)
{
	struct rtask *t, *best = NULL;

	for (t = rec->tasks; t; t = t->next)
		if (t->grp == g && t->parked &&
		    (!best || t->park_order < best->park_order))
			best = t;
	return best;
}

static bool has_parked(struct recorder *rec, struct rgroup *g)
{
	return next_parked(rec, g) != NULL;
}

/* p takes g's slot, the runner it had. */
static void new_runner(struct rgroup *g, struct rtask *p)
{
	uint64_t now = now_ms();

	if (g->runner != p) {
		g->since_ms = now;
		g->probe_at_ms = 0;
		g->probe_wait_ms = 0;
		g->yield_asked = false;
		p->slice_stops = 0;
	}
	g->runner = p;
	g->last_stop_ms = now;
}

/* g's slot is free: the longest-parked task takes it. */
static void hand_over(struct recorder *rec, struct rgroup *g, pid_t from,
		      const char *why)
{
	struct rtask *p;

	if (g->runner || stopping(rec))
		return;
	p = next_parked(rec, g);
	if (!p)
		return;
	mrr_debug("threads: tid %d runs (tid %d %s)", p->t.tid, from, why);
	rec->sched_switches++;
	p->parked = false;
	if (p->preempted) {
		/* its point is recorded: it goes on from there */
		p->preempted = false;
		new_runner(g, p);
		if (ptrace(PTRACE_CONT, p->t.tid, 0, 0) < 0 && errno != ESRCH)
			mrr_fatal("ptrace resume of pid %d failed: %s",
				  p->t.tid, strerror(errno));
		return;
	}
	rec_sched_stop(rec, p, p->parked_status);
}

/* The wait status of a new task's first stop under PTRACE_SEIZE. A new
 * group member whose first stop came before its parent's fork event is
 * parked with it, so that rec_dispatch_stop takes it as that first stop
 * when the task gets the slot (any other status would be read as a signal
 * with the stop's siginfo, SIGTRAP). */
#define NEW_TASK_STOP ((PTRACE_EVENT_STOP << 16) | (SIGTRAP << 8) | 0x7f)

static void park(struct recorder *rec, struct rtask *t, int status)
{
	t->parked = true;
	t->parked_status = status;
	t->park_order = ++rec->park_clock;
}

/* t gives up the slot at (or in) its syscall t->nr: the replay must bring
 * it to that syscall's entry here, before the others run. */
static void write_sched(struct recorder *rec, struct rtask *t, int reason)
{
	struct mrr_event ev = {0};
	struct capture c = {0};

	ev.kind = MRR_EV_SCHED;
	ev.tid = t->t.tid;
	ev.ip = t->entry_regs.rip;
	ev.nr = t->nr;
	memcpy(ev.args, t->args, sizeof(ev.args));
	ev.result = reason;
	rec_write_event(rec, t, &ev, &c);
}

/* Whether a runner whose timeslice is over lets another task run at the
 * entry of its call t->nr, before the call runs (timeslice_at_entry), rather
 * than once it is in the kernel. */
static bool switch_at_entry(struct rtask *t)
{
	if (!mrr_syscall_lookup(t->nr) || mrr_syscall_may_block(t->nr, t->args))
		return false;
	switch (t->nr) {
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
	case SYS_execve:
	case SYS_execveat:
	case SYS_exit:
	case SYS_exit_group:
		return false;
	}
	return true;
}

/* After t's stop was handled while it held the slot: does it keep it? */
static void after_dispatch(struct recorder *rec, struct rtask *t)
{
	struct rgroup *g = t->grp;
	const char *why = NULL;
	char buf[96];
	int reason = 0;

	if (!g || g->runner != t)
		return;
	if (t->in_syscall && !t->fork_written && !t->after_exec &&
	    rec_shared_merge(rec, t)) {
		/* t maps memory that a running process shares: that one keeps
		 * the slot, t waits at its call (shared_groups.h) */
		write_sched(rec, t, MRR_SCHED_BLOCKS);
		t->blocked = true;
		return;
	}
	if (g->nmembers == 1 && !t->has_held_stop && !(t->held && !t->released))
		return; /* nobody else could run */
	if (t->echo_waiting && g->nmembers > 1) {
		why = "is held at its write (output order)";
		reason = MRR_SCHED_HELD;
	} else if (t->has_held_stop || (t->held && !t->released)) {
		why = "is held back";
	} else if (t->in_syscall && t->vfork_child) {
		/* the vfork event is written: the replay needs no sched event,
		 * the parent stays in the kernel until the child execs or
		 * exits */
		why = "waits for its vfork child";
		t->blocked = true;
	} else if (t->in_syscall && (t->fork_written || t->after_exec)) {
		return; /* its next stop is the call's exit: no user code */
	} else if (t->in_syscall && mrr_syscall_may_block(t->nr, t->args)) {
		snprintf(buf, sizeof(buf), "blocks in %s", syscall_name(t->nr));
		why = buf;
		reason = MRR_SCHED_BLOCKS;
		t->blocked = true;
	} else if (t->in_syscall && !switch_at_entry(t) && has_parked(rec, g) &&
		   now_ms() - g->since_ms >= TIMESLICE_MS) {
		snprintf(buf, sizeof(buf), "used its timeslice, in %s",
			 syscall_name(t->nr));
		why = buf;
		reason = MRR_SCHED_TIMESLICE;
		t->blocked = true;
	} else if (t->exiting && t->nr == SYS_exit && t->t.tid == t->tgid &&
		   g->nmembers > 1) {
		/* A leader's death is reported only after its threads': it
		 * cannot keep the slot until then. */
		why = "exits (thread group leader)";
		reason = MRR_SCHED_EXITS;
	}
	if (!why)
		return;
	if (reason)
		write_sched(rec, t, reason);
	g->runner = NULL;
	hand_over(rec, g, t->t.tid, why);
}

/* At the entry stop of a traced call, before it runs: a runner whose
 * timeslice is over lets another task run here, so that the call takes
 * effect at its place in the trace. Let into the kernel first, the call
 * would run while the others run, and one that the replay executes
 * (mprotect, munmap, sigaction...) would change what they see earlier at
 * record than at replay (LTP signal06: another thread's mprotect made an
 * alternate signal stack read-only while a signal frame went onto it at
 * record, and only after it at replay). Calls that may block are let in,
 * as they wait for the others (after_dispatch); so are those that create
 * or end tasks, which after_dispatch handles at their exit. asked: this is
 * the first stop since rec_sched_check asked the runner to yield (its
 * slice is over then, whatever its length). */
static bool timeslice_at_entry(struct recorder *rec, struct rtask *t,
			       int status, bool asked)
{
	struct rgroup *g = t->grp;
	char why[96];
	int i;

	if (!WIFSTOPPED(status) || (status >> 16) != PTRACE_EVENT_SECCOMP ||
	    !t->started || !t->first_stop_seen || t->vfork_child ||
	    t->has_held_stop || (t->held && !t->released) ||
	    !has_parked(rec, g) ||
	    (!asked && now_ms() - g->since_ms < TIMESLICE_MS))
		return false;
	if (tracee_get_regs(&t->t, &t->entry_regs) < 0)
		return false;
	t->nr = (long)t->entry_regs.orig_rax;
	for (i = 0; i < 6; i++)
		t->args[i] = regs_arg(&t->entry_regs, i);
	if (!switch_at_entry(t))
		return false;
	/* its buffered calls go before the sched event, as after_dispatch
	 * has them */
	rec_sbuf_flush(rec, t);
	write_sched(rec, t, MRR_SCHED_TIMESLICE);
	park(rec, t, status);
	g->runner = NULL;
	snprintf(why, sizeof(why), "used its timeslice, at %s",
		 syscall_name(t->nr));
	hand_over(rec, g, t->t.tid, why);
	return true;
}

void rec_sched_stop(struct recorder *rec, struct rtask *t, int status)
{
	struct rgroup *g = t->grp;
	bool asked;

	if (rec_sbuf_block_stop(rec, t, status)) {
		/* back from a buffered call it blocked in: it goes on from
		 * there once it has the slot (sbuf_block.c) */
		t->blocked = false;
		if (g && g->runner && g->runner != t) {
			t->preempted = true;
			park(rec, t, 0);
			return;
		}
		if (g)
			new_runner(g, t);
		if (ptrace(PTRACE_CONT, t->t.tid, 0, 0) < 0 && errno != ESRCH)
			mrr_fatal("ptrace resume of pid %d failed: %s",
				  t->t.tid, strerror(errno));
		return;
	}
	if (!g) {
		rec_dispatch_stop(rec, t, status);
		return;
	}
	t->blocked = false;
	if (g->runner && g->runner != t) {
		park(rec, t, status);
		return;
	}
	asked = g->runner == t && g->yield_asked;
	g->yield_asked = false; /* its first stop since the ask, if any */
	new_runner(g, t);
	t->slice_stops++;
	if (timeslice_at_entry(rec, t, status, asked))
		return;
	rec_dispatch_stop(rec, t, status);
	after_dispatch(rec, t);
}

/* clone flags of t's clone or clone3 in progress (0 for fork, vfork). */
static uint64_t clone_flags(struct rtask *t)
{
	uint64_t flags = 0;

	if (t->nr == SYS_clone)
		flags = t->args[0];
	else if (t->nr == SYS_clone3 &&
		 tracee_read_all(&t->t, t->args[0], &flags, 8) < 0)
		flags = 0;
	return flags;
}

bool rec_sched_clone(struct recorder *rec, struct rtask *parent,
		     struct rtask *child)
{
	uint64_t flags = clone_flags(parent);

	if (child->grp)
		group_leave(child);
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK)) {
		group_join(child, parent->grp);
		child->tgid =
			(flags & CLONE_THREAD) ? parent->tgid : child->t.tid;
		/* A thread with TLS of its own registers a buffer of its
		 * own. A child without (clone(CLONE_VM|SIGCHLD)) runs on the
		 * parent's TLS, and so buffers into the parent's buffer: it
		 * is the child's too (abi.h), flushed at the child's events
		 * as the child's, which works as the two run one at a time
		 * (one group). */
		if (!mrr_sbuf_clone_inherits(flags))
			child->sbuf_addr = 0;
		if (child->held) {
			/* its first stop came first: it waits for the slot */
			child->held = false;
			park(rec, child, NEW_TASK_STOP);
		}
		return true;
	}
	child->tgid = child->t.tid;
	if ((parent->nr == SYS_vfork || (flags & CLONE_VM)) && parent->grp &&
	    parent->grp->nmembers > 1) {
		/* A vfork child (posix_spawn, Go's os/exec) runs on its
		 * parent's memory while the parent waits in the kernel; when
		 * the parent has other threads, the child runs one at a time
		 * with them, until its exec or exit (rec_sched_exec,
		 * rec_sched_gone), or what it and they write to that memory
		 * would interleave otherwise at replay. */
		group_join(child, parent->grp);
		if (child->held) {
			child->held = false;
			park(rec, child, NEW_TASK_STOP);
		}
		return true;
	}
	if (!(flags & (CLONE_VM | CLONE_VFORK)) && parent->nr != SYS_vfork &&
	    rec_shares_writable(rec, parent)) {
		/* a process sharing writable memory: one at a time, too */
		group_join(child, parent->grp);
		rec_shared_fork(parent, child);
		if (child->held) {
			child->held = false;
			park(rec, child, NEW_TASK_STOP);
		}
		return true;
	}
	group_join(child, group_new());
	return false;
}

void rec_sched_exec(struct recorder *rec, struct rtask *t)
{
	struct rgroup *g = t->grp;

	t->tgid = t->t.tid;
	rec_sbuf_block_gone(rec, t);
	if (!g || g->nmembers == 1)
		return;
	group_leave(t);
	group_join(t, group_new());
	new_runner(t->grp, t);
	hand_over(rec, g, t->t.tid, "exec'd");
}

void rec_sched_gone(struct recorder *rec, struct rtask *t)
{
	struct rgroup *g;
	bool was_runner = t->grp && t->grp->runner == t;
	pid_t tid = t->t.tid;

	rec_sbuf_block_gone(rec, t);
	g = group_leave(t);
	if (g && was_runner)
		hand_over(rec, g, tid, "exited");
}

void rec_sched_release(struct recorder *rec, struct rtask *t, const char *why)
{
	struct rgroup *g = t->grp;

	if (!g || g->runner != t)
		return;
	t->blocked = true;
	g->runner = NULL;
	hand_over(rec, g, t->t.tid, why);
}

/* SIGALRM interrupts waitpid so that the loop can look at a stalled
 * runner. */
static void on_alarm(int sig)
{
	(void)sig;
}

void rec_sched_arm(struct recorder *rec)
{
	static bool installed;
	struct itimerval it = {0};
	struct rtask *t;
	bool want = false;

	for (t = rec->tasks; t && !want; t = t->next)
		if (t->parked && t->grp && t->grp->runner)
			want = true;
	/* without a task waiting for a slot, a slow tick still comes, for
	 * the watchdog (rec_watch.c) */
	if (installed && want == rec->sched_armed)
		return;
	if (!installed) {
		struct sigaction sa = {0};

		sa.sa_handler = on_alarm; /* no SA_RESTART */
		sigaction(SIGALRM, &sa, NULL);
		installed = true;
	}
	if (want)
		it.it_value.tv_usec = it.it_interval.tv_usec = TICK_MS * 1000;
	else
		it.it_value.tv_sec = it.it_interval.tv_sec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
	rec->sched_armed = want;
}

static unsigned spin_limit_s(void)
{
	const char *s = getenv("MRR_SPIN_LIMIT");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v > 0 ? (unsigned)v : SPIN_LIMIT_DEFAULT;
}

bool rec_sched_spin_gate(struct recorder *rec, struct rtask *t,
			 const struct user_regs_struct *regs, uint64_t count)
{
	struct rgroup *g = t->grp;

	if (!g || g->runner != t || !has_parked(rec, g) || t->in_syscall ||
	    !rec_preempt_here(rec, t, regs, count, NULL, 0))
		return false;
	g->runner = NULL;
	t->preempted = true;
	park(rec, t, 0);
	hand_over(rec, g, t->t.tid, "spins: stopped at a gate");
	return true;
}

/* Probes runner t for a spin (spin.h). Returns true when the task list
 * may have changed (t preempted, or a stop of t handled). */
static bool probe(struct recorder *rec, struct rtask *t)
{
	struct rgroup *g = t->grp;
	int status, r = rec_spin_preempt(rec, t, &status);

	if (r == SPIN_PREEMPTED) {
		g->runner = NULL;
		t->preempted = true;
		park(rec, t, 0);
		hand_over(rec, g, t->t.tid, "spins: preempted in user code");
		return true;
	}
	if (r == SPIN_STOPPED) {
		rec_handle_wait(rec, t, status);
		return true;
	}
	g->probe_wait_ms =
		g->probe_wait_ms ? g->probe_wait_ms * 2 : PROBE_WAIT_MIN_MS;
	if (g->probe_wait_ms > PROBE_WAIT_MAX_MS)
		g->probe_wait_ms = PROBE_WAIT_MAX_MS;
	g->probe_at_ms = now_ms() + g->probe_wait_ms;
	return r < 0;
}

void rec_sched_check(struct recorder *rec)
{
	struct rtask *t;
	uint64_t now = now_ms();

	for (t = rec->tasks; t; t = t->next) {
		struct rgroup *g = t->grp;
		struct rtask *p;
		char st;

		if (!g || g->runner != t || !has_parked(rec, g))
			continue;
		/* In user code without a stop, where it may make buffered
		 * calls only (LTP signal06's loop of mprotects runs at native
		 * speed there, its waiting peer at ptrace speed): its next
		 * buffered call is traced (abi.h, trace_next), and it lets
		 * another task run there (timeslice_at_entry). The replay finds
		 * no record for that call either, so it is traced there too. */
		p = next_parked(rec, g);
		if (!t->in_syscall && t->sbuf_addr && !g->yield_asked &&
		    now - g->last_stop_ms >= (p && p->slice_stops >= SLOW_STOPS
						      ? YIELD_SLOW_MS
						      : TIMESLICE_MS)) {
			rec_sbuf_trace_next(t);
			g->yield_asked = true;
		}
		if (now - g->last_stop_ms < SPIN_CHECK_MS)
			continue;
		st = proc_task_state(t->t.tid);
		/* an exit_group's caller (or a zombie main thread that waits
		 * for its other threads) is not spinning: its exit and theirs
		 * come through the main loop's wait */
		if (t->exiting || st == 'Z' || st == 'X' || st == 0)
			continue;
		if (st == 'S' || st == 'D') {
			if (now - g->last_stop_ms < STALL_CHECK_MS)
				continue;
			if (!t->in_syscall) {
				/* blocked in a buffered call, maybe (looked
				 * at once per stall period) */
				if (now - t->sbuf_check_ms < STALL_CHECK_MS)
					continue;
				t->sbuf_check_ms = now;
				if (!rec_sbuf_block_check(rec, t))
					continue;
				t->blocked = true;
				g->runner = NULL;
				hand_over(rec, g, t->t.tid,
					  "blocked in a buffered call");
				return;
			}
			/* waits in a call the table does not list; a call
			 * whose event is written already (fork, exec) needs
			 * no sched event: the replay leaves it in the kernel */
			t->blocked = true;
			g->runner = NULL;
			if (!t->fork_written && !t->after_exec)
				write_sched(rec, t, MRR_SCHED_STALLED);
			hand_over(rec, g, t->t.tid, "blocked in a syscall");
			return; /* the task list may have changed */
		}
		if (!t->in_syscall && now >= g->probe_at_ms && probe(rec, t))
			return;
		if (now - g->last_stop_ms < spin_limit_s() * 1000ull)
			continue;
		p = next_parked(rec, g);
		rec_stop(
			rec, MRR_EXIT_UNSUPPORTED,
			"thread %d of pid %d ran %u s without a syscall while "
			"thread %d waits, at event %llu, and its registers and "
			"stack never repeat: mrr finds no point in that loop "
			"where the replay could stop it again "
			"(MRR_SPIN_LIMIT: seconds)",
			t->t.tid, t->tgid, spin_limit_s(), p ? p->t.tid : 0,
			(unsigned long long)mrr_trace_writer_events(rec->w));
		return;
	}
}

void rec_sched_end(struct recorder *rec)
{
	struct itimerval it = {0};
	struct rec_spin_stats sp;
	const char *v;

	setitimer(ITIMER_REAL, &it, NULL);
	rec->sched_armed = false;
	mrr_debug("threads: %lu switches between threads", rec->sched_switches);
	rec_sbuf_block_stats();
	rec_spin_stats(&sp);
	v = getenv("MRR_PREEMPT_STATS");
	if (v && strcmp(v, "1") == 0 && (sp.probes || sp.gate_points))
		fprintf(stderr,
			"mrr: record spin probes: %lu, %lu preempted (%lu "
			"with their loop's stores), %lu stops; %lu gates, "
			"%lu points at them, %lu gate stops where nobody "
			"waited\n",
			sp.probes, sp.preempted, sp.stores, sp.stops, sp.gates,
			sp.gate_points, sp.gate_declined);
}
