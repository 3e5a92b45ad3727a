/* Loop exits as anchors instead of hot loop instructions (preempt_int.h,
 * loopexit.h). */
#include "record/preempt_int.h"

#include "core/bpcount.h"
#include "core/log.h"
#include "record/loopexit.h"
#include "record/rtask.h"

unsigned long pre_exit_set, pre_exit_points, pre_exit_lost;

static bool is_hot(const struct rec_preempt *p, uint64_t addr)
{
	for (int i = 0; i < p->nhot; i++)
		if (p->hot[i] == addr)
			return true;
	return false;
}

/* The anchor at addr, or -1. */
static int find_anchor(const struct rec_preempt *p, uint64_t addr)
{
	for (int i = 0; i < p->nanchors; i++)
		if (p->anchor[i] == addr)
			return i;
	return -1;
}

static void mark_hot(struct rec_preempt *p, uint64_t addr)
{
	if (is_hot(p, addr))
		return;
	p->hot[p->hot_next] = addr;
	p->hot_next = (p->hot_next + 1) % NHOT;
	if (p->nhot < NHOT)
		p->nhot++;
}

bool pre_exit_refuses(const struct rec_preempt *p, uint64_t addr)
{
	if (is_hot(p, addr))
		return true;
	return p->exit_idx >= 0 && addr >= p->exit_lo &&
	       addr < p->anchor[p->exit_idx];
}

void pre_exit_fail(struct rec_preempt *p)
{
	if (p->exit_idx >= 0)
		mark_hot(p, p->anchor[p->exit_idx]);
	pre_exit_leave(p);
}

void pre_exit_leave(struct rec_preempt *p)
{
	if (p->exit_idx >= 0)
		pre_remove_anchor(p, p->exit_idx);
}

int pre_exit_step_out(struct rec_preempt *p)
{
	int i = p->exit_idx;

	if (i < 0)
		return -1;
	if (p->exit_fresh || p->count[i].fd < 0) {
		pre_remove_anchor(p, i);
		return -1;
	}
	/* it counts since the last restart of the counters: it stays, a
	 * plain anchor, until the task comes back to its loop */
	p->exit_idx = -1;
	p->exit_kept = false;
	p->exit_aside[i] = true;
	mrr_debug("loop exit 0x%llx steps aside, still counting",
		  (unsigned long long)p->anchor[i]);
	return i;
}

bool pre_exit_inside(struct rtask *t, const struct rec_preempt *p,
		     const struct user_regs_struct *regs)
{
	return p->exit_idx >= 0 &&
	       rec_in_loop_of(t, regs->rip, regs->rsp, p->anchor[p->exit_idx]);
}

/* The first exit around regs that may serve: not hot, not skip, a possible
 * anchor. */
static int pick_exit(struct rtask *t, struct rec_preempt *p,
		     const struct user_regs_struct *regs, uint64_t skip,
		     struct loop_exit *out, int *why)
{
	struct loop_exit ex[LOOPEXIT_MAX];
	int n = rec_loop_exits(t, regs->rip, regs->rsp, ex, LOOPEXIT_MAX, why);

	for (int i = 0; i < n; i++) {
		if (is_hot(p, ex[i].addr) || ex[i].addr == skip ||
		    !rec_preempt_anchor_ok(t, ex[i].addr))
			continue;
		*out = ex[i];
		return 1;
	}
	return 0;
}

/* Makes anchor i, at loop exit ex, the task's exit anchor (how: what the
 * debug line says of it). */
static void serve_exit(struct rtask *t, struct rec_preempt *p, int i,
		       const struct loop_exit *ex,
		       const struct user_regs_struct *regs, const char *how)
{
	p->exit_idx = i;
	p->exit_anchor[i] = true;
	p->exit_aside[i] = false;
	p->exit_lo = ex->lo;
	pre_exit_set++;
	mrr_debug("pid %d: loop exit 0x%llx (loop from 0x%llx) %s, at rip "
		  "0x%llx",
		  t->t.tid, (unsigned long long)ex->addr,
		  (unsigned long long)ex->lo, how,
		  (unsigned long long)regs->rip);
}

void pre_exit_judge(struct rtask *t, struct rec_preempt *p,
		    const struct user_regs_struct *regs)
{
	uint64_t now, ns, n;
	bool hot[NANCHORS] = {false}, any = false;
	struct loop_exit ex;
	int why = 0;

	if (p->clock_fd < 0 || cpuclock_read(p->clock_fd, &now) ||
	    now <= p->restart_ns)
		return;
	ns = now - p->restart_ns;
	for (int i = 0; i < p->nanchors; i++) {
		if (p->ret[i] || p->count[i].fd < 0 ||
		    bpcount_read(&p->count[i], &n) < 0 || n < HOT_MIN_RUNS ||
		    ns / n >= HOT_NS)
			continue;
		hot[i] = true;
		any = true;
	}
	/* a point in a loop judged hot before (another run of it) */
	if (p->exit_idx < 0 && is_hot(p, regs->rip))
		any = true;
	if (!any)
		return;
	if (p->exit_idx >= 0 && hot[p->exit_idx] &&
	    (p->exit_kept ||
	     !pick_exit(t, p, regs, p->anchor[p->exit_idx], &ex, &why))) {
		/* Runs too often itself, but no outer loop's exit may serve:
		 * it stays. Any instruction of its loop would run as often
		 * at least (zlib's longest_match, once per input byte, in
		 * deflate_slow's loop on the input left, which tests
		 * memory); without any anchor, each point would be searched
		 * among the executions of an instruction of the loop at
		 * replay. */
		if (!p->exit_kept)
			mrr_debug("pid %d: loop exit 0x%llx is hot, but no "
				  "outer loop's exit may serve: it stays",
				  t->t.tid,
				  (unsigned long long)p->anchor[p->exit_idx]);
		p->exit_kept = true;
		for (int i = p->nanchors - 1; i >= 0; i--) {
			if (!hot[i] || i == p->exit_idx)
				continue;
			mark_hot(p, p->anchor[i]);
			pre_remove_anchor(p, i);
		}
		return;
	}
	if (p->exit_idx >= 0 && hot[p->exit_idx]) {
		/* runs too often itself: an outer loop's exit serves */
		mrr_debug("pid %d: loop exit 0x%llx is hot", t->t.tid,
			  (unsigned long long)p->anchor[p->exit_idx]);
		int i = p->exit_idx, last = p->nanchors - 1;

		mark_hot(p, p->anchor[i]);
		pre_exit_leave(p); /* the last anchor moves to slot i */
		hot[i] = i != last && hot[last];
		hot[last] = false;
	} else if (p->exit_idx >= 0) {
		return; /* hot plain anchors while an exit serves: none here */
	}
	if (!pick_exit(t, p, regs, 0, &ex, &why)) {
		/* No exit: the hot anchors keep counting (slow, but each
		 * point stays found at replay by its count) when a loop
		 * around them may not end. But one where the code cannot be
		 * followed (a jump through a PLT entry) or where no loop was
		 * found (a small function called from a large loop) goes:
		 * another point in the loop may show its exits. */
		mrr_debug("pid %d: hot anchors at rip 0x%llx, no loop exit "
			  "(%s)",
			  t->t.tid, (unsigned long long)regs->rip,
			  why == LOOPEXIT_LOOP	    ? "a loop that may not end"
			  : why == LOOPEXIT_UNKNOWN ? "code not followed"
						    : "none found");
		for (int i = p->nanchors - 1; i >= 0; i--) {
			if (!hot[i] || why == LOOPEXIT_LOOP ||
			    p->anchor[i] != regs->rip)
				continue;
			mrr_debug("pid %d: hot anchor 0x%llx goes (no loop "
				  "around it found)",
				  t->t.tid, (unsigned long long)p->anchor[i]);
			mark_hot(p, p->anchor[i]);
			pre_remove_anchor(p, i);
		}
		return;
	}
	for (int i = p->nanchors - 1; i >= 0; i--) {
		if (hot[i] || p->ret[i]) {
			if (hot[i])
				mark_hot(p, p->anchor[i]);
			pre_remove_anchor(p, i);
		}
	}
	/* an exit that stepped aside may be an anchor already: one counter
	 * (the counters restart at this point) */
	p->exit_idx = find_anchor(p, ex.addr);
	if (p->exit_idx < 0)
		p->exit_idx = pre_new_anchor(p, ex.addr, false);
	serve_exit(t, p, p->exit_idx, &ex, regs,
		   "counts instead of hot anchors");
}

bool pre_exit_enter(struct rtask *t, struct rec_preempt *p,
		    const struct user_regs_struct *regs)
{
	struct loop_exit ex;
	int i;

	if (p->exit_idx >= 0 || !pick_exit(t, p, regs, 0, &ex, NULL))
		return false;
	for (i = p->nanchors - 1; i >= 0; i--)
		if (p->ret[i])
			pre_remove_anchor(p, i);
	i = find_anchor(p, ex.addr);
	if (i >= 0 && p->count[i].fd >= 0) {
		/* an exit that stepped aside (or a plain anchor there): it
		 * counts since the last restart of the counters, so a point
		 * at it is counted, not searched among the runs of its loop
		 * (stress-ng prefetch alternates two loops: each point at an
		 * exit was searched, with a memory digest of 270 MB) */
		serve_exit(t, p, i, &ex, regs, "serves again");
		p->exit_fresh = false;
		return true;
	}
	if (i >= 0)
		pre_remove_anchor(p, i);
	i = pre_new_anchor(p, ex.addr, false);
	if (bpcount_open(&p->count[i], t->t.tid, ex.addr, 0) != 0) {
		pre_remove_anchor(p, i);
		return false;
	}
	serve_exit(t, p, i, &ex, regs, "serves");
	p->exit_fresh = true;
	return true;
}
