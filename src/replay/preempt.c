/* Replaying preemption points (preempt.h). */
#include "replay/preempt.h"

#include "core/bpcount.h"
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/hwbp.h"
#include "core/log.h"
#include "core/owntrap.h"
#include "core/point.h"
#include "replay/fastsearch.h"
#include "replay/point_digest.h"
#include "replay/ptask.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EFLAGS_RF (1ull << 16)

static struct replay_preempt_stats stats;

void replay_preempt_stats(struct replay_preempt_stats *out)
{
	*out = stats;
}

void replay_preempt_print_stats(void)
{
	const char *v = getenv("MRR_PREEMPT_STATS");

	if (!v || strcmp(v, "1") || !stats.points)
		return;
	fprintf(stderr,
		"mrr: replay preemption points: %lu (%lu counted, %lu "
		"searched, %lu of them patched), %lu stops, longest search "
		"%lu stops\n",
		stats.points, stats.counted, stats.searched, stats.fast,
		stats.stops, stats.longest_search);
}

/* A synchronous fault, which the recording would have had as an event
 * before the point. */
static bool is_fault(const siginfo_t *si)
{
	return si->si_code > 0 &&
	       (si->si_signo == SIGSEGV || si->si_signo == SIGBUS ||
		si->si_signo == SIGFPE || si->si_signo == SIGILL ||
		si->si_signo == SIGSYS);
}

/* Whether t's SIGTRAP stop (si) is the counter's or the breakpoint's own
 * exception with its cause lost, before its instruction ran (owntrap.h). */
static bool lost_trap(struct ptask *t, const siginfo_t *si)
{
	struct user_regs_struct regs;

	return si->si_signo == SIGTRAP && tracee_get_regs(&t->t, &regs) == 0 &&
	       owntrap_lost(si, t->t.tid, regs.rip);
}

/* Resumes t with its pending signal and waits for its next stop that is
 * not a stray signal (one the kernel or another process sent at replay,
 * as SIGCHLD from a replayed child: recorded signals are injected, never
 * taken from outside). Returns 0 and
 * the status, or -1 after reporting. */
static int next_stop(struct replayer *rp, struct ptask *t, int *status,
		     siginfo_t *si)
{
	for (;;) {
		if (t->held) { /* the stop settle() waited for */
			t->held = false;
			*status = t->held_status;
		} else if (ptask_resume(rp, t, PTRACE_CONT) < 0) {
			return -1;
		} else if (tracee_wait(&t->t, status) < 0) {
			diverge(rp, t, "the task vanished");
			return -1;
		}
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return 0;
		t->stopped = true;
		if (t->fresh && WIFSTOPPED(*status) &&
		    WSTOPSIG(*status) == SIGSTOP && (*status >> 16) == 0) {
			/* a new task's first stop, before its first point */
			t->fresh = false;
			if (ptask_set_child_tid(t) < 0)
				mrr_debug("pid %d: cannot set child tid",
					  t->t.tid);
			continue;
		}
		if (t->pending_exit && WIFSTOPPED(*status) &&
		    WSTOPSIG(*status) == (SIGTRAP | 0x80)) {
			/* the exit of the fork before the point */
			ptask_finish_pending_exit(rp, t);
			continue;
		}
		if ((*status >> 16) != 0 ||
		    ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, si) < 0)
			return 0;
		if (si->si_signo != BPCOUNT_SIGNAL && si->si_signo != SIGTRAP &&
		    !is_fault(si))
			continue; /* stray: swallowed */
		if (lost_trap(t, si))
			continue; /* it hits again: swallowed */
		return 0;
	}
}

/* A task the replay resumed without waiting for it (a fork's parent goes
 * on to its call's exit stop while the events after the fork are read) may
 * still run: its debug registers can be written only in a ptrace-stop, and
 * a breakpoint set too early failed with ESRCH (stress-ng futex, whose
 * fork copies a large address space, 1 replay in 6). Waits for that stop:
 * the fork's exit gets its result and the task stays there; any other stop
 * is held for next_stop. Returns 0, or -1 after reporting. */
static int settle(struct replayer *rp, struct ptask *t)
{
	int status;

	if (t->stopped || t->held)
		return 0;
	if (tracee_wait(&t->t, &status) < 0) {
		diverge(rp, t, "the task vanished");
		return -1;
	}
	if (WIFSTOPPED(status))
		t->stopped = true;
	if (t->pending_exit && WIFSTOPPED(status) &&
	    WSTOPSIG(status) == (SIGTRAP | 0x80)) {
		ptask_finish_pending_exit(rp, t);
		return 0;
	}
	t->held = true;
	t->held_status = status;
	return 0;
}

/* The note a search's report ends with when near executions of the
 * point's instruction matched its registers and the stack near rsp but
 * not the stack above: the likely cause is a byte of the stack the
 * program never wrote, which differs from the recording. */
static const char *near_note(unsigned long near, char *buf, size_t len)
{
	buf[0] = '\0';
	if (near)
		snprintf(buf, len,
			 " (%lu execution%s of it matched the registers and "
			 "the stack near rsp, but not the stack above)",
			 near, near == 1 ? "" : "s");
	return buf;
}

/* The note a search's report ends with when executions matched all but
 * the memory digest. */
static const char *mem_note(unsigned long mem, char *buf, size_t len)
{
	buf[0] = '\0';
	if (mem)
		snprintf(buf, len,
			 "; at %lu execution%s of it the process's memory "
			 "differs from the recording's: the thread's loop "
			 "changes memory but no register",
			 mem, mem == 1 ? "" : "s");
	return buf;
}

static void report_other_stop(struct replayer *rp, struct ptask *t, int status,
			      unsigned long near, unsigned long mem)
{
	char note[128 + 160], mnote[160];

	near_note(near, note, sizeof(note));
	strncat(note, mem_note(mem, mnote, sizeof(mnote)),
		sizeof(note) - strlen(note) - 1);
	if (WIFEXITED(status) || WIFSIGNALED(status))
		diverge(rp, t,
			"the task ended (status 0x%x) before reaching the "
			"preemption point at 0x%" PRIx64 "%s",
			status, rp->ev.ip, note);
	else
		diverge(rp, t,
			"the task stopped with status 0x%x before reaching "
			"the preemption point at 0x%" PRIx64 "%s",
			status, rp->ev.ip, note);
}

/* Whether t, stopped at ip, matches the recorded point; *why explains a
 * mismatch when not NULL. */
static bool matches(struct ptask *t, const struct mrr_preempt_extra *x,
		    const struct mrr_event *ev, struct user_regs_struct *regs,
		    char *why, size_t whylen)
{
	struct user_regs_struct want;
	uint64_t hash;
	int diff;

	memcpy(&want, x->regs, sizeof(want));
	if (tracee_get_regs(&t->t, regs) < 0) {
		snprintf(why, whylen, "its registers cannot be read");
		return false;
	}
	if (!point_same_regs(regs, &want, ev->args[3], &diff)) {
		uint64_t a[MRR_NREGS], b[MRR_NREGS];

		memcpy(a, regs, sizeof(a));
		memcpy(b, &want, sizeof(b));
		snprintf(why, whylen,
			 "%s is 0x%" PRIx64 ", recorded 0x%" PRIx64,
			 point_reg_name(diff), a[diff], b[diff]);
		return false;
	}
	if (point_stack_hash_range(&t->t, ev->args[1], ev->args[2], &hash) <
		    0 ||
	    hash != x->stack_hash) {
		snprintf(why, whylen,
			 "the registers match but the %" PRIu64
			 " stack bytes at 0x%" PRIx64 " differ",
			 ev->args[2], ev->args[1]);
		return false;
	}
	return true;
}

/* Whether the whole stack above the point matches (args[4], args[5]). */
static bool deep_matches(struct ptask *t, const struct mrr_event *ev,
			 const struct user_regs_struct *regs, char *why,
			 size_t whylen)
{
	uint64_t hash;

	if (!ev->args[4])
		return true;
	if (point_deep_hash(&t->t, regs->rsp, ev->args[4], &hash) == 0 &&
	    hash == ev->args[5])
		return true;
	snprintf(why, whylen,
		 "the registers and the stack near rsp match, but not the "
		 "stack above up to 0x%" PRIx64,
		 ev->args[4]);
	return false;
}

/* The N-th execution of ev->ip: one stop. */
static int run_to_count(struct replayer *rp, struct ptask *t,
			const struct mrr_event *ev)
{
	struct bpcount c = {-1, 0};
	siginfo_t si;
	int status, err;

	err = bpcount_open(&c, t->t.tid, ev->ip, ev->args[0]);
	if (err) {
		mrr_err("event %" PRIu64 " pid %d: cannot count executions "
			"at 0x%" PRIx64 " (perf_event_open: %s)",
			ev->seq, ev->tid, ev->ip, strerror(-err));
		rp->status = MRR_EXIT_OSERR;
		return -1;
	}
	err = next_stop(rp, t, &status, &si);
	bpcount_close(&c);
	if (err)
		return -1;
	stats.stops++;
	if (!WIFSTOPPED(status) || (status >> 16) != 0 ||
	    WSTOPSIG(status) != BPCOUNT_SIGNAL || si.si_code != POLL_IN) {
		report_other_stop(rp, t, status, 0, 0);
		return -1;
	}
	return 0;
}

/* A searched point in a spin loop carries the bytes the loop's body
 * stores to (a count of its turns, in place): at a turn whose registers
 * and stack match but not the memory, they are written, and kept when the
 * memory digest then matches (the memory is the recording's: the turns
 * of the loop differ in nothing else), else put back. 1 kept, 0 put back,
 * -1 after reporting. */
static int try_loop_stores(struct replayer *rp, struct ptask *t,
			   const struct mrr_event *ev)
{
	uint8_t saved[REPLAY_POINT_MAX_WRITES][REPLAY_POINT_MAX_WRITE_LEN];
	int ret;

	for (uint32_t i = 0; i < ev->nwrites; i++)
		if (tracee_read_all(&t->t, ev->writes[i].addr, saved[i],
				    ev->writes[i].len) < 0)
			return 0; /* not mapped: not the recorded turn */
	if (apply_writes(rp, t, ev) < 0)
		return -1;
	ret = replay_point_digest(rp, t);
	if (ret != 0)
		return ret;
	for (uint32_t i = 0; i < ev->nwrites; i++)
		if (tracee_write_all(&t->t, ev->writes[i].addr, saved[i],
				     ev->writes[i].len) < 0) {
			diverge(rp, t,
				"cannot put back %" PRIu64
				" bytes at 0x%" PRIx64
				" after trying the preemption point's stores",
				ev->writes[i].len, ev->writes[i].addr);
			return -1;
		}
	return 0;
}

/* Whether t, stopped at ev->ip, is the point: its registers, the stack
 * near rsp and above, and the memory digest match. 1 yes, 0 no (why, and
 * *near or *mem counted when only the stack above or the memory
 * differed), -1 after reporting. */
static int is_point(struct replayer *rp, struct ptask *t,
		    const struct mrr_event *ev,
		    const struct mrr_preempt_extra *x, char *why, size_t whylen,
		    unsigned long *near, unsigned long *mem)
{
	struct user_regs_struct regs;
	int ret;

	if (tracee_get_regs(&t->t, &regs) < 0 || regs.rip != ev->ip ||
	    !matches(t, x, ev, &regs, why, whylen))
		return 0;
	if (!deep_matches(t, ev, &regs, why, whylen)) {
		(*near)++;
		return 0;
	}
	if (ev->nwrites && !ev->result) {
		/* no digest to check them by: the first turn that matches
		 * takes the loop's stores */
		return apply_writes(rp, t, ev) < 0 ? -1 : 1;
	}
	ret = replay_point_digest(rp, t);
	if (ret == 0 && ev->nwrites)
		ret = try_loop_stores(rp, t, ev);
	if (ret == 0) {
		(*mem)++;
		snprintf(why, whylen,
			 "the registers and the stack match, but not the "
			 "process's memory");
	}
	return ret;
}

/* Puts the search's breakpoint on ev->ip. 0, or -1 after reporting. */
static int arm_search(struct replayer *rp, struct ptask *t,
		      const struct mrr_event *ev)
{
	int err = hwbp_set(t->t.tid, REPLAY_PREEMPT_SLOT, ev->ip, HWBP_EXEC, 1);

	if (!err)
		return 0;
	mrr_err("event %" PRIu64 " pid %d: cannot set a breakpoint at "
		"0x%" PRIx64 ": %s",
		ev->seq, ev->tid, ev->ip, strerror(-err));
	rp->status = MRR_EXIT_OSERR;
	return -1;
}

/* Plain stops of a search before it patches the code (fastsearch.h);
 * MRR_FAST_SEARCH_AFTER=N sets another count (tests patch after 1). It
 * patches at a breakpoint's stop, a signal-delivery-stop, where mrr may
 * inject the syscalls that map and unmap the trampoline's page. */
#define FAST_AFTER 256

static unsigned long fast_after(void)
{
	static long v = -1;

	if (v < 0) {
		const char *e = getenv("MRR_FAST_SEARCH_AFTER");
		char *end;

		v = FAST_AFTER;
		if (e && *e) {
			long n = strtol(e, &end, 10);

			if (!*end && n > 0)
				v = n;
		}
	}
	return (unsigned long)v;
}

/* CPU time a task runs in a patched search before mrr looks at the
 * clock. */
#define FAST_SLICE_NS 500000000ull

struct searching {
	unsigned long n, near, mem;
	bool fast;
	struct fastsearch fs;
	int slice_fd;
};

/* Patches the code for t's search (t stands at ev->ip, in the stop of
 * the breakpoint there, not the point) and moves t past this execution. */
static void go_fast(struct ptask *t, const struct mrr_event *ev,
		    const struct mrr_preempt_extra *x, struct searching *s)
{
	struct user_regs_struct regs;
	const char *why;

	if (tracee_get_regs(&t->t, &regs) < 0 || regs.rip != ev->ip)
		return;
	if (fastsearch_begin(&s->fs, &t->t, ev->ip, x->regs, ev->args[3],
			     &why) < 0) {
		mrr_debug("event %" PRIu64 " pid %d: no fast search at "
			  "0x%" PRIx64 ": %s",
			  ev->seq, t->t.tid, ev->ip, why);
		return;
	}
	regs.rip = fastsearch_resume_at(&s->fs);
	if (tracee_set_regs(&t->t, &regs) < 0 ||
	    cpuslice_open(&s->slice_fd, t->t.tid) < 0 ||
	    cpuslice_arm(s->slice_fd, FAST_SLICE_NS) < 0) {
		regs.rip = ev->ip;
		if (tracee_set_regs(&t->t, &regs) < 0)
			mrr_debug("pid %d: rip not put back", t->t.tid);
		fastsearch_end(&s->fs, &t->t);
		return;
	}
	if (hwbp_clear(t->t.tid, REPLAY_PREEMPT_SLOT))
		mrr_debug("pid %d: cannot clear the breakpoint", t->t.tid);
	s->fast = true;
	stats.fast++;
}

static void end_fast(struct ptask *t, struct searching *s)
{
	if (!s->fast)
		return;
	fastsearch_end(&s->fs, &t->t);
	if (s->slice_fd >= 0)
		close(s->slice_fd);
	s->slice_fd = -1;
	s->fast = false;
}

/* A stop of a patched search: 1 t stands at an execution of ev->ip whose
 * registers match (rip moved there), 0 a stop to go on from (the CPU-time
 * slice), -1 after reporting. */
static int fast_stop(struct replayer *rp, struct ptask *t,
		     const struct mrr_event *ev, struct searching *s,
		     int status, const siginfo_t *si)
{
	struct user_regs_struct regs;

	if (WSTOPSIG(status) == BPCOUNT_SIGNAL &&
	    bpcount_is_overflow(si, s->slice_fd)) {
		t->resume_sig = 0;
		if (cpuslice_arm(s->slice_fd, FAST_SLICE_NS) == 0)
			return 0;
		diverge(rp, t, "cannot arm the search's CPU-time slice");
		return -1;
	}
	if (WSTOPSIG(status) != SIGTRAP || tracee_get_regs(&t->t, &regs) < 0)
		goto other;
	if (!fastsearch_stop(&s->fs, &regs))
		goto other;
	if (tracee_set_regs(&t->t, &regs) < 0) {
		diverge(rp, t, "cannot set the registers in the search");
		return -1;
	}
	t->resume_sig = 0;
	return 1;
other:
	mrr_err("event %" PRIu64 " pid %d: the search had patched the code "
		"at 0x%" PRIx64 " (its trampoline at 0x%" PRIx64 ")",
		ev->seq, ev->tid, ev->ip, s->fs.page);
	report_other_stop(rp, t, status, s->near, s->mem);
	return -1;
}

/* The first execution of ev->ip whose registers, stack and memory digest
 * match. */
static int search_points(struct replayer *rp, struct ptask *t,
			 const struct mrr_event *ev,
			 const struct mrr_preempt_extra *x, struct searching *s)
{
	struct timespec start, now;
	unsigned long mem_seen = 0;
	char why[160], note[128], mnote[160];
	siginfo_t si;
	int status, err;
	bool cand;

	why[0] = '\0';
	/* The point may be where the task stands: a signal that was pending
	 * when the task resumed from its previous event stopped it again
	 * before any instruction ran. */
	if (t->stopped) {
		err = is_point(rp, t, ev, x, why, sizeof(why), &s->near,
			       &s->mem);
		if (err)
			return err > 0 ? 0 : -1;
	}
	if (settle(rp, t) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (arm_search(rp, t, ev) < 0)
		return -1;
	for (;;) {
		if (next_stop(rp, t, &status, &si) < 0)
			return -1;
		if (!WIFSTOPPED(status) || (status >> 16) != 0 ||
		    (WSTOPSIG(status) != SIGTRAP && !s->fast)) {
			report_other_stop(rp, t, status, s->near, s->mem);
			return -1;
		}
		cand = true;
		if (s->fast) {
			err = fast_stop(rp, t, ev, s, status, &si);
			if (err < 0)
				return -1;
			cand = err > 0;
		}
		if (cand) {
			s->n++;
			stats.stops++;
			err = is_point(rp, t, ev, x, why, sizeof(why), &s->near,
				       &s->mem);
			if (err < 0)
				return -1;
			if (err)
				break;
			if (mrr_debug_enabled > 0)
				mrr_debug("event %" PRIu64
					  " search stop %lu: %s",
					  ev->seq, s->n, why);
		}
		if (s->n >= REPLAY_PREEMPT_MAX_SEARCH ||
		    s->mem >= REPLAY_PREEMPT_MAX_DIGESTS) {
			diverge(rp, t,
				"no execution of 0x%" PRIx64
				" among the first %lu matches the recorded "
				"preemption point (the last: %s)%s%s",
				ev->ip, s->n, why,
				near_note(s->near, note, sizeof(note)),
				mem_note(s->mem, mnote, sizeof(mnote)));
			return -1;
		}
		/* a digest may take a while in a large process: the clock
		 * after each one too */
		if ((s->n % 256 == 0 || s->mem != mem_seen || s->fast) &&
		    clock_gettime(CLOCK_MONOTONIC, &now) == 0 &&
		    now.tv_sec - start.tv_sec >= REPLAY_PREEMPT_MAX_SEARCH_S) {
			diverge(rp, t,
				"no execution of 0x%" PRIx64
				" in %d s of searching (%lu stops) matches the "
				"recorded preemption point (the last: %s)%s%s",
				ev->ip, REPLAY_PREEMPT_MAX_SEARCH_S, s->n,
				s->n ? why : "none had its registers",
				near_note(s->near, note, sizeof(note)),
				mem_note(s->mem, mnote, sizeof(mnote)));
			return -1;
		}
		mem_seen = s->mem;
		t->resume_sig = 0; /* the trap is mrr's */
		if (s->fast && cand) {
			/* not the point: on past this execution */
			struct user_regs_struct regs;

			if (tracee_get_regs(&t->t, &regs) < 0)
				return -1;
			regs.rip = fastsearch_resume_at(&s->fs);
			if (tracee_set_regs(&t->t, &regs) < 0) {
				diverge(rp, t, "cannot resume the search");
				return -1;
			}
		} else if (!s->fast && s->n == fast_after()) {
			go_fast(t, ev, x, s);
		}
	}
	if (s->n > stats.longest_search)
		stats.longest_search = s->n;
	return 0;
}

/* After a patched search t stands at the point, but in the stop of the
 * syscall that unmapped the trampoline, where a signal cannot be injected
 * as at the signal-delivery-stop a plain search ends in: a breakpoint at
 * the instruction, which fires before it runs, brings t to that stop. */
static int stop_again(struct replayer *rp, struct ptask *t,
		      const struct mrr_event *ev)
{
	struct user_regs_struct regs;
	siginfo_t si;
	int status, err;

	if (tracee_get_regs(&t->t, &regs) < 0 || regs.rip != ev->ip) {
		diverge(rp, t, "the task left the point after the search");
		return -1;
	}
	if ((regs.eflags & EFLAGS_RF) &&
	    (regs.eflags &= ~EFLAGS_RF, tracee_set_regs(&t->t, &regs) < 0)) {
		diverge(rp, t, "cannot set the registers at the point");
		return -1;
	}
	if (arm_search(rp, t, ev) < 0)
		return -1;
	t->resume_sig = 0;
	err = next_stop(rp, t, &status, &si);
	if (hwbp_clear(t->t.tid, REPLAY_PREEMPT_SLOT))
		mrr_debug("pid %d: cannot clear the breakpoint", t->t.tid);
	if (err)
		return -1;
	if (!WIFSTOPPED(status) || (status >> 16) != 0 ||
	    WSTOPSIG(status) != SIGTRAP || tracee_get_regs(&t->t, &regs) < 0 ||
	    regs.rip != ev->ip) {
		report_other_stop(rp, t, status, 0, 0);
		return -1;
	}
	t->resume_sig = 0;
	return 0;
}

static int search(struct replayer *rp, struct ptask *t,
		  const struct mrr_event *ev, const struct mrr_preempt_extra *x)
{
	struct searching s = {.slice_fd = -1};
	int ret = search_points(rp, t, ev, x, &s);
	bool patched = s.fast;

	/* the code is put back at the point too (rip stays on ip there) */
	end_fast(t, &s);
	if (hwbp_clear(t->t.tid, REPLAY_PREEMPT_SLOT))
		mrr_debug("pid %d: cannot clear the breakpoint", t->t.tid);
	if (ret == 0 && patched)
		ret = stop_again(rp, t, ev);
	return ret;
}

/* Sets the registers that mask leaves out (the caller-saved ones after
 * buffered calls, the outputs of a cpuid just run) to x's. */
static void set_uncompared(struct user_regs_struct *regs,
			   const struct mrr_preempt_extra *x, uint64_t mask)
{
	const uint64_t settable = POINT_REGS_CALLER_SAVED | POINT_REGS_CPUID;
	uint64_t w[MRR_NREGS];

	memcpy(w, regs, sizeof(w));
	for (int i = 0; i < MRR_NREGS; i++)
		if ((settable >> i & 1) && !(mask >> i & 1))
			w[i] = x->regs[i];
	memcpy(regs, w, sizeof(w));
}

/* A point's writes: only a searched one has any, at most
 * REPLAY_POINT_MAX_WRITES of at most REPLAY_POINT_MAX_WRITE_LEN bytes. */
static bool writes_ok(const struct mrr_event *ev)
{
	if (ev->nwrites && ev->args[0])
		return false;
	if (ev->nwrites > REPLAY_POINT_MAX_WRITES)
		return false;
	for (uint32_t i = 0; i < ev->nwrites; i++)
		if (!ev->writes[i].len ||
		    ev->writes[i].len > REPLAY_POINT_MAX_WRITE_LEN)
			return false;
	return true;
}

void replay_preempt(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	struct mrr_preempt_extra x;
	struct user_regs_struct regs;
	char why[160];

	if (ev->extra_len != sizeof(x) ||
	    ev->args[2] > MRR_PREEMPT_STACK_BELOW + MRR_PREEMPT_STACK_ABOVE ||
	    (ev->nr != MRR_PREEMPT_TIMESLICE && ev->nr != MRR_PREEMPT_SIGNAL) ||
	    (ev->args[3] & ~POINT_REGS_ALL) || !(ev->args[3] >> 16 & 1) ||
	    !writes_ok(ev)) {
		mrr_err("trace %s: preemption event %" PRIu64 " is malformed",
			rp->o->trace_dir, ev->seq);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	memcpy(&x, ev->extra, sizeof(x));
	if (x.regs[offsetof(struct user_regs_struct, rip) / 8] != ev->ip ||
	    (ev->args[4] && (ev->args[4] < x.regs[19] ||
			     ev->args[4] - x.regs[19] > POINT_DEEP_MAX))) {
		mrr_err("trace %s: preemption event %" PRIu64 " is malformed",
			rp->o->trace_dir, ev->seq);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	stats.points++;
	if (ev->args[0]) {
		stats.counted++;
		if (run_to_count(rp, t, ev) < 0)
			return;
		if (!matches(t, &x, ev, &regs, why, sizeof(why))) {
			diverge(rp, t,
				"at execution %" PRIu64 " of 0x%" PRIx64
				", the recorded preemption point, %s",
				ev->args[0], ev->ip, why);
			return;
		}
	} else {
		stats.searched++;
		if (search(rp, t, ev, &x) < 0)
			return;
		if (tracee_get_regs(&t->t, &regs) < 0) {
			diverge(rp, t,
				"cannot read the registers at the point");
			return;
		}
	}
	/* Registers left out of the comparison (what the syscall buffer
	 * library's code may leave differently: r11 holds the flags of its
	 * last syscall at record, not at replay) take their recorded values,
	 * so that the task goes on exactly as at record and the next point,
	 * which may compare them (no buffered call between the two), finds
	 * them as recorded. */
	set_uncompared(&regs, &x, ev->args[3]);
	/* The resume flag as at record, so that the instruction at ip is
	 * counted (or not) by the next point's counter as it was then. */
	regs.eflags = (regs.eflags & ~EFLAGS_RF) |
		      (x.regs[offsetof(struct user_regs_struct, eflags) / 8] &
		       EFLAGS_RF);
	if (tracee_set_regs(&t->t, &regs) < 0) {
		diverge(rp, t, "cannot set the registers at the point");
		return;
	}
	t->resume_sig = 0;
	t->at_point = true;
}
