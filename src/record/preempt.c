/* Preemption points and asynchronous signals at record (preempt.h). */
#include "record/preempt.h"

#include "core/bpcount.h"
#include "core/events.h"
#include "core/log.h"
#include "core/point.h"
#include "core/proc.h"
#include "record/point_digest.h"
#include "record/rtask.h"
#include "record/signals.h"
#include "record/spin.h"
#include "record/spinloop.h"
#include "record/vptrace.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/preempt_int.h"

static struct rec_preempt_stats stats;

/* Processes that armed a timer (alarm, setitimer, timer_settime): only
 * their tasks get timeslice points for a timer handler. A handler alone
 * (sort, Go's runtime and many others install one for every signal) is
 * not a timer: without one, no timer signal can land in a loop without
 * syscalls. Conservative: never cleared, but a fork's child starts
 * without (the kernel gives it no timers), and past the table's size
 * every process counts as armed. Interval timers survive execve, so an
 * exec keeps the entry. */
#define MAX_ARMED 256
static pid_t armed_tgid[MAX_ARMED];
static int narmed;
static bool armed_overflow;

static bool timer_armed(pid_t tgid)
{
	if (armed_overflow)
		return true;
	for (int i = 0; i < narmed; i++)
		if (armed_tgid[i] == tgid)
			return true;
	return false;
}

static void arm_timer(struct recorder *rec, struct rtask *t)
{
	struct rtask *o;

	if (timer_armed(t->tgid))
		return;
	if (narmed == MAX_ARMED)
		armed_overflow = true;
	else
		armed_tgid[narmed++] = t->tgid;
	/* its tasks decide again at their next event */
	for (o = rec->tasks; o; o = o->next)
		if (o->tgid == t->tgid && o->pre)
			o->pre->timer_handler = -1;
}

static struct rec_preempt *get_pre(struct rtask *t)
{
	struct rec_preempt *p = t->pre;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		mrr_fatal("out of memory for pid %d", t->t.tid);
	p->slice_fd = -1;
	p->timer_handler = -1;
	p->runto.fd = -1;
	p->last_idx = -1;
	p->cold_idx = -1;
	p->exit_idx = -1;
	p->clock_fd = -1;
	for (int i = 0; i < NANCHORS; i++)
		p->count[i].fd = -1;
	t->pre = p;
	return p;
}

static void drop_anchors(struct rec_preempt *p)
{
	for (int i = 0; i < NANCHORS; i++)
		bpcount_close(&p->count[i]);
	memset(p->ret, 0, sizeof(p->ret));
	memset(p->exit_anchor, 0, sizeof(p->exit_anchor));
	memset(p->exit_aside, 0, sizeof(p->exit_aside));
	p->nanchors = 0;
	p->next_victim = 0;
	p->last_idx = -1;
	p->cold_idx = -1;
	p->exit_idx = -1;
	p->exit_kept = false;
	p->nskip = 0;
	p->nhot = 0;
}

void rec_preempt_free(struct rtask *t)
{
	struct rec_preempt *p = t->pre;

	if (!p)
		return;
	drop_anchors(p);
	bpcount_close(&p->runto);
	if (p->slice_fd >= 0)
		close(p->slice_fd);
	if (p->clock_fd >= 0)
		close(p->clock_fd);
	stats.dropped += (unsigned long)p->npending;
	free(p->pending);
	free(p);
	t->pre = NULL;
}

void rec_preempt_stats(struct rec_preempt_stats *out)
{
	*out = stats;
	out->exits = pre_exit_set;
	out->exit_points = pre_exit_points;
	out->exit_lost = pre_exit_lost;
}

void rec_preempt_print_stats(void)
{
	const char *v = getenv("MRR_PREEMPT_STATS");

	if (!v || strcmp(v, "1") ||
	    !(stats.points || stats.deferred || stats.dropped))
		return;
	fprintf(stderr,
		"mrr: record preemption points: %lu (%lu counted, %lu "
		"searched), %lu more not needed, %lu stops, %lu signals "
		"deferred to a syscall; %lu taken at return addresses, %lu "
		"signals waited for one in vain; %lu loop exits counted, %lu "
		"points at them, %lu signals waited for one in vain\n",
		stats.points, stats.counted, stats.searched, stats.dropped,
		stats.stops, stats.deferred, stats.cold, stats.cold_lost,
		pre_exit_set, pre_exit_points, pre_exit_lost);
}

/* Whether the task catches a timer signal (SigCgt in /proc). */
static bool catches_timer_signal(pid_t tid)
{
	const unsigned long long timers = 1ull << (SIGALRM - 1) |
					  1ull << (SIGVTALRM - 1) |
					  1ull << (SIGPROF - 1);
	struct proc_sigmasks m;

	if (proc_sigmasks(tid, &m) < 0)
		return false;
	return m.caught & timers;
}

/* Whether the task stands in a syscall (interrupted, to be restarted). */
static bool in_syscall(const struct user_regs_struct *regs)
{
	return (int64_t)regs->orig_rax != -1;
}

/* When the instruction at addr is a rep string instruction (point.h): the
 * address of the instruction after it; else 0. A task stopped on one
 * may be between two of its iterations, where no point can be. */
static uint64_t rep_string_end(struct rtask *t, uint64_t addr)
{
	uint8_t code[16];
	ssize_t n = tracee_read(&t->t, addr, code, sizeof(code));
	unsigned len = n > 0 ? point_rep_string_len(code, (size_t)n) : 0;

	return len ? addr + len : 0;
}

/* Whether a cpuid (0f a2) may have run just before addr: those bytes in
 * the CPUID_BEFORE bytes before it. Its outputs differ from one processor
 * to another (leaf 1 gives the initial APIC id in ebx), and a slice often
 * ends a few instructions after one (it leaves the virtual machine, which
 * takes long): a point there found ebx as another processor's at replay
 * (stress-ng regs, whose startup probes the CPU: the search ran past the
 * point, and the replay diverged on one of two processors). Bytes that
 * are not a cpuid only make the point compare fewer registers. */
#define CPUID_BEFORE 16
static bool after_cpuid(struct rtask *t, uint64_t addr)
{
	uint8_t code[CPUID_BEFORE];

	if (addr < CPUID_BEFORE ||
	    tracee_read(&t->t, addr - CPUID_BEFORE, code, sizeof(code)) !=
		    (ssize_t)sizeof(code))
		return false;
	for (int i = 0; i + 1 < CPUID_BEFORE; i++)
		if (code[i] == 0x0f && code[i + 1] == 0xa2)
			return true;
	return false;
}

/* Whether addr is in the program's code: not in mrr's page or the syscall
 * buffer library, whose code paths differ at replay. */
static bool program_code(pid_t tid, uint64_t addr)
{
	struct proc_vma *v = NULL;
	bool ok = false;
	long n;

	if (addr >= MRR_PAGE_ADDR && addr < MRR_PAGE_ADDR + MRR_PAGE_SIZE)
		return false;
	n = proc_read_vmas(tid, false, &v);
	for (long i = 0; i < n; i++) {
		if (addr < v[i].start || addr >= v[i].end)
			continue;
		ok = !strstr(v[i].name, "libmrr_preload");
		break;
	}
	free(v);
	return ok;
}

/* Whether addr may be a point or an anchor: program code, and not a rep
 * string instruction. */
bool rec_preempt_anchor_ok(struct rtask *t, uint64_t addr)
{
	return !rep_string_end(t, addr) && program_code(t->t.tid, addr);
}

/* The end of the mapping that holds addr (the stack above a point), at
 * most POINT_DEEP_MAX above it; 0 if unmapped. */
static uint64_t mapping_end(struct rtask *t, uint64_t addr)
{
	struct proc_vma *v = NULL;
	long n = proc_read_vmas(t->t.tid, false, &v);
	uint64_t end = 0, lib_lo = UINT64_MAX, lib_hi = 0;

	for (long i = 0; i < n; i++) {
		if (addr >= v[i].start && addr < v[i].end)
			end = v[i].end;
		if ((v[i].prot & PROT_EXEC) &&
		    strstr(v[i].name, "libmrr_preload")) {
			lib_lo = v[i].start < lib_lo ? v[i].start : lib_lo;
			lib_hi = v[i].end > lib_hi ? v[i].end : lib_hi;
		}
	}
	free(v);
	if (end && end - addr > POINT_DEEP_MAX)
		end = addr + POINT_DEEP_MAX;
	if (!end || !t->sbuf_addr || lib_hi <= lib_lo)
		return end;
	/* The syscall buffer library's frames leave bytes the replay does
	 * not have: the stack is hashed up to a little below the lowest
	 * return address into the library (its frames' locals lie below
	 * their return addresses). */
	for (uint64_t at = addr; at < end;) {
		uint64_t w[512];
		size_t len =
			end - at < sizeof(w) ? (size_t)(end - at) : sizeof(w);

		if (tracee_read_all(&t->t, at, w, len) < 0)
			return 0;
		for (size_t i = 0; i < len / 8; i++) {
			uint64_t slot = at + 8 * i;

			if (w[i] < lib_lo || w[i] >= lib_hi)
				continue;
			if (slot < addr + LIB_FRAME_MARGIN)
				return 0;
			return (slot - LIB_FRAME_MARGIN) & ~7ull;
		}
		at += len;
	}
	return end;
}

/* Makes addr an anchor, unless an anchor ran just before the task's last
 * event: its loop has one already, and each anchor in a loop costs a
 * debug exception per execution. */
static void add_anchor(struct rec_preempt *p, uint64_t addr)
{
	int i;

	if (p->was_hot || pre_exit_refuses(p, addr))
		return;
	for (i = 0; i < p->nanchors; i++)
		if (p->anchor[i] == addr)
			return;
	pre_new_anchor(p, addr, false);
}

/* The anchor other than skip that ran most since the task's last event,
 * or -1. */
static int live_anchor_but(struct rec_preempt *p, int skip)
{
	uint64_t best = 0, n;
	int idx = -1;

	for (int i = 0; i < p->nanchors; i++) {
		if (i == skip || p->count[i].fd < 0 ||
		    bpcount_read(&p->count[i], &n) < 0)
			continue;
		if (n > best) {
			best = n;
			idx = i;
		}
	}
	return idx;
}

/* The anchor that ran most since the task's last event, or -1. */
static int live_anchor(struct rec_preempt *p)
{
	return live_anchor_but(p, -1);
}

/* Bytes of records in t's syscall buffer (0 without one). */
static uint32_t sbuf_used(struct rtask *t)
{
	uint32_t used = 0;

	if (!t->sbuf_addr ||
	    tracee_read_all(&t->t,
			    t->sbuf_addr +
				    offsetof(struct mrr_syscallbuf_hdr, used),
			    &used, sizeof(used)) < 0)
		return 0;
	return used;
}

/* The point where t stands (regs), to be written later. buffered: calls
 * of the syscall buffer ran since the task's previous point or event. */
static void take_point(struct recorder *rec, struct rtask *t,
		       const struct user_regs_struct *regs, uint64_t count,
		       int reason, bool buffered, struct pending_point *pp)
{
	struct mrr_event *ev = &pp->ev;
	struct point_stack st;
	uint64_t mask = POINT_REGS_ALL;

	memset(pp, 0, sizeof(*pp));
	/* After calls into the syscall buffer library, whose code runs
	 * differently at replay, only what a call preserves is compared.
	 * Its frames leave bytes in the stack that stay there across later
	 * events, in slots the program does not write again (return
	 * addresses into it at record, other bytes at replay). So in a task
	 * that has a buffer, the red zone is never hashed, and a counted
	 * point (exact by its count) compares registers only: its stack
	 * could only make a false divergence. */
	if (buffered)
		mask &= ~POINT_REGS_CALLER_SAVED;
	/* after a cpuid, its outputs are taken as recorded (the replay sets
	 * the registers left out of the mask to the recorded values) */
	if (after_cpuid(t, regs->rip))
		mask &= ~POINT_REGS_CPUID;
	memcpy(pp->x.regs, regs, sizeof(pp->x.regs));
	if (t->sbuf_addr && count)
		point_stack_none(regs->rsp, &st);
	else
		point_stack_hash(&t->t, regs->rsp, !t->sbuf_addr, &st);
	pp->x.stack_hash = st.hash;
	ev->kind = MRR_EV_PREEMPT;
	ev->tid = t->t.tid;
	ev->ip = regs->rip;
	ev->nr = reason;
	ev->args[0] = count;
	ev->args[1] = st.start;
	ev->args[2] = st.len;
	ev->args[3] = mask;
	/* the whole stack above the point: tells apart the executions of a
	 * loop that repeats the same work (outer loop counters), which a
	 * search needs even where the library may have left bytes the
	 * replay does not have (then the replay reports a divergence rather
	 * than take the wrong execution). A counted point needs none. */
	ev->args[4] = t->sbuf_addr && count ? 0 : mapping_end(t, regs->rsp);
	if (ev->args[4] > regs->rsp + DEEP_HASH_MAX)
		ev->args[4] = regs->rsp + DEEP_HASH_MAX;
	if (!ev->args[4] ||
	    point_deep_hash(&t->t, regs->rsp, ev->args[4], &ev->args[5]) < 0)
		ev->args[4] = ev->args[5] = 0;
	/* a search stops at the first turn of a loop whose registers and
	 * stack match: the memory tells apart the turns of a loop that
	 * changes only memory (point_digest.h) */
	if (!count)
		ev->result = (int64_t)rec_point_digest(rec, t);
}

/* stores (n of them): the bytes a spin loop's body stores to, carried by
 * a searched point (spinloop.h) */
static void emit_point(struct recorder *rec, struct rtask *t,
		       struct pending_point *pp,
		       const struct spin_store *stores, int nstores)
{
	struct capture c = {0};

	capture_extra(&c, &pp->x, sizeof(pp->x));
	for (int i = 0; i < nstores && !pp->ev.args[0]; i++)
		if (capture_add(&c, t, stores[i].addr, stores[i].len) < 0)
			mrr_debug("pid %d: cannot read the loop's store at "
				  "0x%llx",
				  t->t.tid, (unsigned long long)stores[i].addr);
	stats.points++;
	if (pp->ev.args[0])
		stats.counted++;
	else
		stats.searched++;
	rec_write_event(rec, t, &pp->ev, &c);
	free(c.extra);
	free(c.data);
}

/* Writes t's pending points (after the flush of the buffered calls before
 * them, which the caller did). */
static void emit_pending(struct recorder *rec, struct rtask *t,
			 struct rec_preempt *p)
{
	p->emitting = true;
	for (int i = 0; i < p->npending; i++)
		emit_point(rec, t, &p->pending[i], NULL, 0);
	p->emitting = false;
	p->npending = 0;
}

static void write_point_stores(struct recorder *rec, struct rtask *t,
			       const struct user_regs_struct *regs,
			       uint64_t count, int reason,
			       const struct spin_store *stores, int nstores)
{
	struct rec_preempt *p = get_pre(t);
	struct pending_point pp;
	bool buffered = p->flushed || sbuf_used(t) > p->sbuf_mark;

	/* the buffered calls before the point, in the trace before it, then
	 * the points taken since the task's last event */
	rec_sbuf_flush(rec, t);
	emit_pending(rec, t, p);
	take_point(rec, t, regs, count, reason, buffered, &pp);
	emit_point(rec, t, &pp, stores, nstores);
	t->have_exit_regs = false;
}

static void write_point(struct recorder *rec, struct rtask *t,
			const struct user_regs_struct *regs, uint64_t count,
			int reason)
{
	write_point_stores(rec, t, regs, count, reason, NULL, 0);
}

/* Records the signal at the point where t stands and delivers it. */
static void deliver_here(struct recorder *rec, struct rtask *t,
			 const siginfo_t *si,
			 const struct user_regs_struct *regs, uint64_t count)
{
	if (t->vp) {
		/* its tracer sees the signal first, and may drop it: the
		 * point stands alone (no MRR_SIG_AT_POINT need follow) */
		write_point(rec, t, regs, count, MRR_PREEMPT_TIMESLICE);
		rec_vptrace_point(rec, t, si, regs);
		return;
	}
	write_point(rec, t, regs, count, MRR_PREEMPT_SIGNAL);
	rec_write_signal(rec, t, regs, si, MRR_SIG_AT_POINT);
	ptrace(PTRACE_SETSIGINFO, t->t.tid, 0, si);
	ptrace(PTRACE_CONT, t->t.tid, 0, si->si_signo);
}

/* The counters and the slice start again from where t stands (after an
 * event, or at a point when at_point). level 1: the long slice right away.
 * At a point, with a cold anchor, only that one counts, and the slice is
 * long. */
static void restart_counting(struct rtask *t, struct rec_preempt *p, int level,
			     bool at_point)
{
	bool cold;
	uint64_t ns;

	pre_measure(t, p, at_point);
	p->exit_fresh = false;
	cold = at_point && pre_cold_active(p);
	p->was_hot = false;
	for (int i = 0; i < p->nanchors; i++) {
		uint64_t n;
		int err;

		if (cold && i != p->cold_idx) {
			bpcount_close(&p->count[i]);
			continue;
		}
		if (p->count[i].fd >= 0 &&
		    bpcount_read(&p->count[i], &n) == 0 && n > 0)
			p->was_hot = true;
		err = p->count[i].fd >= 0 ? bpcount_reset(&p->count[i])
					  : bpcount_open(&p->count[i], t->t.tid,
							 p->anchor[i], 0);
		if (err)
			mrr_debug("pid %d: no counter at 0x%llx: %s", t->t.tid,
				  (unsigned long long)p->anchor[i],
				  strerror(-err));
	}
	p->slice_level = cold ? 1 : level;
	ns = level || cold ? SLICE_LONG_NS : SLICE_NS;
	if (p->timer_handler < 0)
		p->timer_handler =
			timer_armed(t->tgid) && catches_timer_signal(t->t.tid);
	if (p->timer_handler) {
		if (p->slice_fd < 0 && cpuslice_open(&p->slice_fd, t->t.tid))
			p->slice_fd = -1;
		if (p->slice_fd >= 0 && cpuslice_arm(p->slice_fd, ns))
			mrr_debug("pid %d: cannot arm the slice", t->t.tid);
	} else if (p->slice_fd >= 0) {
		if (cpuslice_disarm(p->slice_fd))
			mrr_debug("pid %d: cannot disarm the slice", t->t.tid);
	}
}

/* Takes the point where t stands without writing it (pending), and
 * resumes t. */
static void take_pending(struct recorder *rec, struct rtask *t,
			 struct rec_preempt *p,
			 const struct user_regs_struct *regs, uint64_t count)
{
	uint32_t used = sbuf_used(t);

	if (p->npending == MAX_PENDING) {
		write_point(rec, t, regs, count, MRR_PREEMPT_TIMESLICE);
	} else {
		if (p->npending == p->cap) {
			int cap = p->cap ? 2 * p->cap : 16;
			void *n = realloc(p->pending,
					  (size_t)cap * sizeof(*p->pending));

			if (!n)
				mrr_fatal("out of memory for pid %d", t->t.tid);
			p->pending = n;
			p->cap = cap;
		}
		take_point(rec, t, regs, count, MRR_PREEMPT_TIMESLICE,
			   p->flushed || used > p->sbuf_mark,
			   &p->pending[p->npending++]);
		p->sbuf_mark = used;
		p->flushed = false;
		p->after_syscall = false;
		pre_exit_judge(t, p, regs);
		if (p->timer_handler > 0)
			pre_learn_return(t, p, regs);
		/* the short slice first, also after a counted point: a task
		 * that left its anchors' loop gets its next point soon, so
		 * that the search for it stays short (with a cold anchor,
		 * the next point is at its next executions) */
		restart_counting(t, p, 0, true);
	}
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
}

void rec_preempt_after_event(struct recorder *rec, struct rtask *t,
			     const struct mrr_event *ev)
{
	struct rec_preempt *p = get_pre(t);

	if (ev->kind == MRR_EV_BUFFER)
		p->flushed = true;
	if (p->emitting || ev->kind == MRR_EV_BUFFER ||
	    ev->kind == MRR_EV_BACKTRACE)
		return;
	/* points not needed: the task reached an event first */
	stats.dropped += (unsigned long)p->npending;
	p->npending = 0;
	p->sbuf_mark = 0;
	p->flushed = false;
	p->after_syscall = ev->kind == MRR_EV_SYSCALL;
	if (ev->kind == MRR_EV_EXEC) {
		drop_anchors(p);
		p->timer_handler = -1;
	} else if (ev->kind == MRR_EV_SYSCALL && ev->nr == SYS_sigaltstack) {
		rec_point_digest_note_syscall(t, ev->nr, ev->args[0],
					      ev->result);
	} else if (ev->kind == MRR_EV_SYSCALL && ev->nr == SYS_rt_sigaction) {
		p->timer_handler = -1;
	} else if (ev->kind == MRR_EV_SYSCALL && ev->result >= 0 &&
		   (ev->nr == SYS_alarm || ev->nr == SYS_setitimer ||
		    ev->nr == SYS_timer_settime)) {
		arm_timer(rec, t);
	}
	if (p->held) {
		/* t reached an event before the anchor: a held signal goes
		 * out after its next syscall, as without anchors. */
		p->held = false;
		bpcount_close(&p->runto);
		if (p->has_sig) {
			stats.deferred++;
			if (!t->deferred) {
				t->deferred = true;
				t->deferred_info = p->held_si;
				/* a task that makes only buffered calls
				 * (and their flushes, skipped calls) would
				 * reach no syscall exit */
				rec_sbuf_trace_next(t);
			}
		}
	}
	restart_counting(t, p, 0, false);
	rec_spin_gates_restart(t, ev);
}

/* Waits (t resumed) for the next execution of addr (anchor idx, or -1:
 * not an anchor) to record a point there, and deliver si if not NULL.
 * Returns false when no counter can be set (t not resumed). */
static bool run_to(struct rtask *t, struct rec_preempt *p, int idx,
		   uint64_t addr, const siginfo_t *si, uint64_t ns)
{
	if (bpcount_open(&p->runto, t->t.tid, addr, 1) != 0)
		return false;
	stats.stops++;
	p->held = true;
	p->has_sig = si != NULL;
	if (si)
		p->held_si = *si;
	p->runto_idx = idx;
	/* if the anchor does not come back soon, the slice ends the wait
	 * (slice_stop) */
	if (p->slice_fd < 0 && cpuslice_open(&p->slice_fd, t->t.tid))
		p->slice_fd = -1;
	if (p->slice_fd >= 0 && cpuslice_arm(p->slice_fd, ns))
		mrr_debug("pid %d: cannot arm the slice", t->t.tid);
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
}

static bool run_to_anchor(struct rtask *t, struct rec_preempt *p, int idx,
			  const siginfo_t *si)
{
	uint64_t n = 0, wait = RUNTO_NS;

	/* For a timeslice point, another anchor that ran n times in the
	 * slice comes back within a few of its periods, or the task left its
	 * loop (then every microsecond waited adds to the next point's search
	 * at replay). A signal waits as long as it may, for a counted point. */
	if (!si && idx != p->cold_idx &&
	    bpcount_read(&p->count[idx], &n) == 0 && n > 0) {
		wait = 8 * (SLICE_NS + (p->slice_level ? SLICE_LONG_NS : 0)) /
		       n;
		if (wait < RUNTO_HOT_NS)
			wait = RUNTO_HOT_NS;
		if (wait > RUNTO_NS)
			wait = RUNTO_NS;
	}
	if (si && idx == p->exit_idx)
		wait = EXIT_WAIT_NS; /* a loop exit: once per run of its loop */
	return run_to(t, p, idx, p->anchor[idx], si, wait);
}

/* t stopped on a rep string instruction, perhaps between two iterations:
 * the point (for si, if not NULL) is at the instruction after it, where
 * the replay can find it. Returns false when regs are not on one, or no
 * counter can be set (t not resumed). */
static bool run_past_rep(struct rtask *t, struct rec_preempt *p,
			 const struct user_regs_struct *regs,
			 const siginfo_t *si)
{
	uint64_t end = in_syscall(regs) ? 0 : rep_string_end(t, regs->rip);
	siginfo_t copy;

	if (!end || !program_code(t->t.tid, regs->rip))
		return false;
	if (si) {
		copy = *si;
		si = &copy;
	}
	return run_to(t, p, -1, end, si, RUNTO_NS);
}

/* t is in the loop of its serving exit: no point there (it would be
 * searched among the loop's iterations), but at the exit's next execution
 * (counted), or a slice later (then again, while t stays in the loop). */
static void exit_slice(struct rtask *t, struct rec_preempt *p)
{
	if (run_to(t, p, p->exit_idx, p->anchor[p->exit_idx], NULL,
		   EXIT_SLICE_NS))
		return;
	if (cpuslice_arm(p->slice_fd, EXIT_SLICE_NS))
		mrr_debug("pid %d: cannot arm the slice", t->t.tid);
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
}

/* A point where t stands (count 0), if it may be one; resumes t. In a
 * loop that ends by itself, the point is at the loop's exit instead, which
 * the replay finds among the few runs of the loop, not among its
 * iterations. */
static void point_here(struct recorder *rec, struct rtask *t,
		       struct rec_preempt *p,
		       const struct user_regs_struct *regs)
{
	if (p->exit_idx < 0 && !in_syscall(regs) &&
	    pre_exit_enter(t, p, regs)) {
		exit_slice(t, p);
		return;
	}
	if (run_past_rep(t, p, regs, NULL))
		return;
	if (!in_syscall(regs) && rec_preempt_anchor_ok(t, regs->rip)) {
		add_anchor(p, regs->rip);
		take_pending(rec, t, p, regs, 0);
		return;
	}
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
}

/* The slice ended at regs. The first slice after an event: a point where
 * the task is (a short search at replay), unless an anchor ran (then the
 * long slice). A long slice: a counted point at the next execution of the
 * anchor that ran most, so that the task's last event stays recent. */
static void slice_stop(struct recorder *rec, struct rtask *t,
		       struct rec_preempt *p,
		       const struct user_regs_struct *regs)
{
	int idx = live_anchor(p);

	if (cpuslice_disarm(p->slice_fd))
		mrr_debug("pid %d: cannot disarm the slice", t->t.tid);
	if (p->held) {
		/* the anchor did not come: record where the task is */
		p->held = false;
		bpcount_close(&p->runto);
		if (p->runto_idx >= 0 && p->runto_idx == p->exit_idx) {
			if (!p->has_sig && !in_syscall(regs) &&
			    pre_exit_inside(t, p, regs)) {
				/* no timeslice point in the exit's loop */
				exit_slice(t, p);
				return;
			}
			if (p->has_sig)
				pre_exit_lost++;
			mrr_debug("pid %d: loop exit 0x%llx did not come",
				  t->t.tid,
				  (unsigned long long)p->anchor[p->exit_idx]);
			if (p->has_sig)
				pre_exit_fail(p);
			else
				pre_exit_leave(p);
			p->runto_idx = -2; /* its slot may hold another now */
			/* t left that loop (not through its exit) for another
			 * one that ends by itself: the next point at that
			 * one's exit */
			if (!p->has_sig && !in_syscall(regs) &&
			    pre_exit_enter(t, p, regs)) {
				exit_slice(t, p);
				return;
			}
		}
		if (p->runto_idx >= 0 && p->runto_idx == p->cold_idx) {
			stats.cold_lost++;
			mrr_debug(
				"pid %d: cold anchor 0x%llx did not come "
				"(%llu in %llu ns, %llu in the stretch)",
				t->t.tid,
				(unsigned long long)p->anchor[p->cold_idx],
				(unsigned long long)p->acc_n[p->cold_idx],
				(unsigned long long)p->acc_ns[p->cold_idx],
				(unsigned long long)p->stretch_n[p->cold_idx]);
			pre_drop_return(p, p->cold_idx); /* it did not come */
		}
		if (!p->has_sig) {
			point_here(rec, t, p, regs);
			return;
		}
		if (run_past_rep(t, p, regs, &p->held_si))
			return;
		if (p->exit_idx < 0 && !in_syscall(regs) &&
		    pre_exit_enter(t, p, regs) &&
		    run_to_anchor(t, p, p->exit_idx, &p->held_si))
			return;
		if (!in_syscall(regs) && rec_preempt_anchor_ok(t, regs->rip)) {
			if (!t->vp) /* a tracee's loop goes on uncounted */
				add_anchor(p, regs->rip);
			deliver_here(rec, t, &p->held_si, regs, 0);
			return;
		}
		stats.deferred++;
		t->deferred = true;
		t->deferred_info = p->held_si;
		rec_sbuf_trace_next(t);
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
	if (p->exit_idx >= 0 && idx != p->exit_idx && !in_syscall(regs)) {
		/* the exit did not run since the last point: no point while
		 * the task is in its loop, else the exit goes */
		if (pre_exit_inside(t, p, regs)) {
			exit_slice(t, p);
			return;
		}
		/* the exit that steps aside ran last before that loop: no
		 * wait for it */
		idx = live_anchor_but(p, pre_exit_step_out(p));
	}
	if (idx < 0 && pre_cold_active(p) && !in_syscall(regs) &&
	    regs->rip != p->anchor[p->cold_idx] &&
	    run_to_anchor(t, p, p->cold_idx, NULL))
		return; /* the cold anchor comes less often than the slice */
	if (idx < 0) {
		/* No anchor ran yet: the loop of the task's last counted
		 * point is likely to come back (the same work after a
		 * syscall), and a point there is counted, where one here
		 * would be searched (and ambiguous in a loop whose state
		 * repeats). If it does not come soon, the point is here. */
		if (p->slice_level == 0 && p->after_syscall &&
		    p->last_idx >= 0 && p->count[p->last_idx].fd >= 0 &&
		    !in_syscall(regs) && regs->rip != p->anchor[p->last_idx] &&
		    run_to(t, p, p->last_idx, p->anchor[p->last_idx], NULL,
			   LAST_ANCHOR_NS))
			return;
		point_here(rec, t, p, regs);
		return;
	}
	if (p->slice_level == 0 && pre_cold_active(p)) {
		/* a point now, from which only the cold anchor counts */
		if (!run_to_anchor(t, p, idx, NULL))
			point_here(rec, t, p, regs);
		return;
	}
	if (p->slice_level == 0) {
		p->slice_level = 1;
		if (cpuslice_arm(p->slice_fd, SLICE_LONG_NS))
			mrr_debug("pid %d: cannot arm the slice", t->t.tid);
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
	if (!run_to_anchor(t, p, idx, NULL))
		point_here(rec, t, p, regs);
}

bool rec_preempt_own_stop(struct recorder *rec, struct rtask *t,
			  const siginfo_t *si, struct user_regs_struct *regs)
{
	struct rec_preempt *p = t->pre;
	uint64_t n = 0;

	if (si->si_signo != BPCOUNT_SIGNAL)
		return false;
	if (p && p->held && bpcount_is_overflow(si, p->runto.fd)) {
		stats.stops++;
		p->held = false;
		bpcount_close(&p->runto);
		if (p->runto_idx < 0) {
			/* past a rep string instruction: uncounted */
			if (regs->rip != p->runto.addr)
				mrr_debug("pid %d: stop at 0x%llx unexpected",
					  t->t.tid,
					  (unsigned long long)regs->rip);
		} else if (p->runto_idx == p->exit_idx && p->exit_fresh) {
			/* the exit counts since mid-stretch: searched */
			pre_exit_points++;
		} else if (bpcount_read(&p->count[p->runto_idx], &n) < 0 ||
			   n == 0 || regs->rip != p->anchor[p->runto_idx]) {
			/* cannot happen; deliver uncounted rather than lose
			 * the signal */
			mrr_debug("pid %d: anchor stop at 0x%llx unexpected",
				  t->t.tid, (unsigned long long)regs->rip);
			n = 0;
		}
		if (n)
			p->last_idx = p->runto_idx;
		if (n && p->runto_idx == p->cold_idx)
			stats.cold++;
		if (n && p->runto_idx == p->exit_idx)
			pre_exit_points++;
		if (p->has_sig)
			deliver_here(rec, t, &p->held_si, regs, n);
		else
			take_pending(rec, t, p, regs, n);
		return true;
	}
	if (p && bpcount_is_overflow(si, p->slice_fd)) {
		stats.stops++;
		slice_stop(rec, t, p, regs);
		return true;
	}
	if (si->si_code == POLL_IN ||
	    (si->si_code == SI_TKILL && si->si_pid == getpid())) {
		/* a stale overflow, or a kick that came late: mrr's own */
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return true;
	}
	return false;
}

bool rec_preempt_hold(struct recorder *rec, struct rtask *t,
		      const siginfo_t *si, struct user_regs_struct *regs)
{
	struct rec_preempt *p = get_pre(t);
	int idx, kept = -1;

	(void)rec;
	if (p->held && !p->has_sig) {
		/* on the way to an anchor for a timeslice: the signal goes
		 * out at that point */
		p->has_sig = true;
		p->held_si = *si;
		if (p->runto_idx >= 0 && p->runto_idx == p->exit_idx &&
		    cpuslice_arm(p->slice_fd, EXIT_WAIT_NS))
			mrr_debug("pid %d: cannot arm the slice", t->t.tid);
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return true;
	}
	if (p->held || in_syscall(regs))
		return false;
	if (p->exit_idx >= 0 && regs->rip != p->anchor[p->exit_idx]) {
		/* in the exit's loop: the signal waits for the exit */
		if (pre_exit_inside(t, p, regs))
			return run_to_anchor(t, p, p->exit_idx, si);
		kept = pre_exit_step_out(p);
	}
	idx = live_anchor_but(p, kept);
	if (idx < 0 && pre_cold_active(p) &&
	    regs->rip != p->anchor[p->cold_idx])
		idx = p->cold_idx; /* it runs less often than points */
	if (idx < 0 && p->exit_idx < 0 && pre_exit_enter(t, p, regs))
		idx = p->exit_idx; /* in a loop that ends by itself */
	return idx >= 0 && run_to_anchor(t, p, idx, si);
}

bool rec_preempt_signal(struct recorder *rec, struct rtask *t,
			const siginfo_t *si, struct user_regs_struct *regs)
{
	struct rec_preempt *p = get_pre(t);

	if (p->held || in_syscall(regs))
		return false;
	if (run_past_rep(t, p, regs, si))
		return true;
	if (!rec_preempt_anchor_ok(t, regs->rip))
		return false;
	stats.stops++;
	/* not for a tracee: it goes on in that loop, and an anchor there
	 * would count each of its turns (a debug exception each) */
	if (!t->vp)
		add_anchor(p, regs->rip);
	deliver_here(rec, t, si, regs, 0);
	return true;
}

/* t, stopped by mrr on a rep string instruction at regs, runs to the
 * instruction after it. Returns 1 (stopped there, regs updated), 0 when t
 * stopped otherwise first (*status), or -errno. */
static int finish_rep(struct rtask *t, struct user_regs_struct *regs,
		      int *status)
{
	struct bpcount c = {-1, 0};
	siginfo_t si;
	int err = bpcount_open(&c, t->t.tid, rep_string_end(t, regs->rip), 1);

	if (err)
		return err;
	stats.stops++;
	if (ptrace(PTRACE_CONT, t->t.tid, 0, 0) < 0 ||
	    tracee_wait(&t->t, status) < 0) {
		bpcount_close(&c);
		return -ESRCH;
	}
	err = WIFSTOPPED(*status) && (*status >> 16) == 0 &&
	      WSTOPSIG(*status) == BPCOUNT_SIGNAL &&
	      ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) == 0 &&
	      bpcount_is_overflow(&si, c.fd);
	bpcount_close(&c);
	if (!err)
		return 0;
	return tracee_get_regs(&t->t, regs) < 0 ? -ESRCH : 1;
}

int rec_preempt_now(struct recorder *rec, struct rtask *t, int *status)
{
	struct rec_preempt *p = get_pre(t);
	struct user_regs_struct regs;
	siginfo_t si;

	if (syscall(SYS_tkill, t->t.tid, BPCOUNT_SIGNAL) < 0)
		return -errno;
	if (tracee_wait(&t->t, status) < 0)
		return -ECHILD;
	if (!WIFSTOPPED(*status) || (*status >> 16) != 0 ||
	    WSTOPSIG(*status) != BPCOUNT_SIGNAL)
		return 0;
	if (ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) < 0 ||
	    tracee_get_regs(&t->t, &regs) < 0)
		return -ESRCH;
	if (si.si_code != SI_TKILL || si.si_pid != getpid())
		return 0; /* an overflow: the caller's to handle */
	stats.stops++;
	/* Out of mrr's code first: its paths differ at replay. */
	for (int steps = 0; !program_code(t->t.tid, regs.rip); steps++) {
		if (steps > 100000 ||
		    ptrace(PTRACE_SINGLESTEP, t->t.tid, 0, 0) < 0 ||
		    tracee_wait(&t->t, status) < 0)
			return -ESRCH;
		stats.stops++;
		if (!WIFSTOPPED(*status) || (*status >> 16) != 0 ||
		    WSTOPSIG(*status) != SIGTRAP)
			return 0;
		if (tracee_get_regs(&t->t, &regs) < 0)
			return -ESRCH;
	}
	if (rep_string_end(t, regs.rip)) {
		int err = finish_rep(t, &regs, status);

		if (err <= 0)
			return err;
	}
	add_anchor(p, regs.rip);
	write_point(rec, t, &regs, 0, MRR_PREEMPT_TIMESLICE);
	return 1;
}

bool rec_preempt_here(struct recorder *rec, struct rtask *t,
		      const struct user_regs_struct *regs, uint64_t count,
		      const struct spin_store *stores, int nstores)
{
	if (in_syscall(regs) || !rec_preempt_anchor_ok(t, regs->rip))
		return false;
	write_point_stores(rec, t, regs, count, MRR_PREEMPT_TIMESLICE, stores,
			   nstores);
	return true;
}
