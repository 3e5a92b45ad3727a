/* Cold anchors: return addresses counted instead of a hot loop's
 * instructions (preempt_int.h). */
#include "record/preempt_int.h"

#include "core/bpcount.h"
#include "core/log.h"
#include "record/retaddr.h"
#include "record/rtask.h"

#include <string.h>

/* A slot for a new anchor at addr (a loop exit that stepped aside, else
 * the oldest, never the cold anchor or the serving exit): returns its
 * index. */
int pre_new_anchor(struct rec_preempt *p, uint64_t addr, bool ret)
{
	int i;

	for (i = 0; i < p->nanchors && !p->exit_aside[i]; i++)
		;
	if (p->nanchors < NANCHORS) {
		i = p->nanchors++;
	} else if (i < p->nanchors) {
		/* it only waits for the task's return to its loop: the
		 * anchors of the code that runs now come first (one that
		 * took the last slot made a return-address candidate push
		 * out the live anchor of stress-ng bsearch's hot loop, and
		 * its next point was searched among a slice's turns) */
		bpcount_close(&p->count[i]);
		if (p->last_idx == i)
			p->last_idx = -1;
	} else {
		i = p->next_victim;
		while (i == p->cold_idx || i == p->exit_idx)
			i = (i + 1) % NANCHORS;
		p->next_victim = (i + 1) % NANCHORS;
		bpcount_close(&p->count[i]);
		if (p->last_idx == i)
			p->last_idx = -1;
	}
	p->anchor[i] = addr;
	p->ret[i] = ret;
	p->exit_anchor[i] = false;
	p->exit_aside[i] = false;
	p->acc_n[i] = p->acc_ns[i] = 0;
	p->stretch_n[i] = 0;
	p->on_stack[i] = false;
	p->streak[i] = 0;
	return i;
}

void pre_remove_anchor(struct rec_preempt *p, int i)
{
	int last = p->nanchors - 1;

	bpcount_close(&p->count[i]);
	if (p->cold_idx == i) {
		p->cold_idx = -1;
		p->cold_idle_ns = 0;
	}
	if (p->exit_idx == i) {
		p->exit_idx = -1;
		p->exit_kept = false;
	}
	if (p->last_idx == i)
		p->last_idx = -1;
	if (i != last) {
		p->anchor[i] = p->anchor[last];
		p->count[i] = p->count[last];
		p->ret[i] = p->ret[last];
		p->exit_anchor[i] = p->exit_anchor[last];
		p->exit_aside[i] = p->exit_aside[last];
		p->acc_n[i] = p->acc_n[last];
		p->acc_ns[i] = p->acc_ns[last];
		p->stretch_n[i] = p->stretch_n[last];
		p->on_stack[i] = p->on_stack[last];
		p->streak[i] = p->streak[last];
		if (p->cold_idx == last)
			p->cold_idx = i;
		if (p->exit_idx == last)
			p->exit_idx = i;
		if (p->last_idx == last)
			p->last_idx = i;
	}
	p->count[last].fd = -1;
	p->ret[last] = false;
	p->exit_anchor[last] = false;
	p->exit_aside[last] = false;
	p->nanchors = last;
	p->next_victim = 0;
}

/* Forgets return-address anchor i (unfit) and remembers not to try it
 * again. */
void pre_drop_return(struct rec_preempt *p, int i)
{
	p->skip[p->skip_next] = p->anchor[i];
	p->skip_next = (p->skip_next + 1) % NSKIP;
	if (p->nskip < NSKIP)
		p->nskip++;
	pre_remove_anchor(p, i);
}

/* Judges return-address anchor i by what it counted. */
static void judge_return(struct rec_preempt *p, int i)
{
	uint64_t n = p->acc_n[i], ns = p->acc_ns[i];

	if (ns < JUDGE_NS)
		return;
	mrr_debug("return anchor 0x%llx: %llu in %llu ns (cold %d)",
		  (unsigned long long)p->anchor[i], (unsigned long long)n,
		  (unsigned long long)ns, p->cold_idx);
	if (i == p->cold_idx) {
		/* measured alone, at the task's own speed */
		if (n && ns / n < COLD_MIN_NS)
			pre_drop_return(p, i);
		return;
	}
	if (n && ns / n < COLD_MIN_NS) {
		pre_drop_return(p, i); /* runs too often */
		return;
	}
	if (p->stretch_n[i] < 2 || (!p->on_stack[i] && p->streak[i] < 3) ||
	    p->cold_idx >= 0) {
		/* not yet; a stale word, a rare caller, or a call that is
		 * not in the loop that runs now makes room for the next
		 * candidate */
		if (ns >= JUDGE_IDLE_NS && (!n || !p->on_stack[i]))
			pre_drop_return(p, i);
		return;
	}
	{
		mrr_debug("cold anchor 0x%llx: %llu in %llu ns, %llu in the "
			  "stretch",
			  (unsigned long long)p->anchor[i],
			  (unsigned long long)n, (unsigned long long)ns,
			  (unsigned long long)p->stretch_n[i]);
		/* measured again, alone */
		p->cold_idx = i;
		p->acc_n[i] = p->acc_ns[i] = 0;
	}
}

/* Adds what the counters counted since the last restart to their
 * measures, and judges the return-address anchors. */
void pre_measure(struct rtask *t, struct rec_preempt *p, bool at_point)
{
	uint64_t now, ns, n;
	bool alone = true;

	if (p->clock_fd < 0 && cpuclock_open(&p->clock_fd, t->t.tid))
		p->clock_fd = -1;
	if (p->clock_fd < 0 || cpuclock_read(p->clock_fd, &now))
		return;
	ns = now - p->restart_ns;
	p->restart_ns = now;
	for (int i = 0; i < p->nanchors; i++)
		if (p->count[i].fd >= 0 && !p->ret[i])
			alone = false;
	for (int i = 0; i < p->nanchors; i++) {
		if (!p->ret[i] || p->count[i].fd < 0 ||
		    bpcount_read(&p->count[i], &n) < 0)
			continue;
		p->stretch_n[i] += n;
		p->streak[i] = n ? p->streak[i] + 1 : 0;
		if (i == p->cold_idx && !alone) {
			/* its rate is measured alone; meanwhile, one that
			 * does not run makes room for another */
			p->cold_idle_ns = n ? 0 : p->cold_idle_ns + ns;
			if (p->cold_idle_ns >= JUDGE_IDLE_NS)
				pre_drop_return(p, i);
			continue;
		}
		if (p->acc_ns[i] > 4 * JUDGE_IDLE_NS) {
			/* recent behaviour weighs more */
			p->acc_n[i] /= 2;
			p->acc_ns[i] /= 2;
		}
		p->acc_n[i] += n;
		p->acc_ns[i] += ns;
	}
	for (int i = p->nanchors - 1; i >= 0; i--)
		if (p->ret[i])
			judge_return(p, i);
	if (!at_point) { /* an event: a new stretch of user code */
		memset(p->stretch_n, 0, sizeof(p->stretch_n));
		memset(p->on_stack, 0, sizeof(p->on_stack));
		memset(p->streak, 0, sizeof(p->streak));
	}
}

/* Whether the cold anchor serves: it ran twice since the task's last event
 * (it came back in this stretch of user code, not only in earlier ones:
 * a program's next phase may never call it). */
bool pre_cold_active(const struct rec_preempt *p)
{
	return p->cold_idx >= 0 && p->stretch_n[p->cold_idx] >= 2;
}

/* Return addresses a point's stack scan looks at. */
#define NSCAN 8

/* At a point in a loop, without a cold anchor: notes which candidates are
 * on the stack (callers of the code running now), and makes the innermost
 * return addresses on the stack that were not judged unfit candidates
 * (NRET at once). */
void pre_learn_return(struct rtask *t, struct rec_preempt *p,
		      const struct user_regs_struct *regs)
{
	uint64_t found[NSCAN];
	int nret = 0, n;

	if (pre_cold_active(p) || p->exit_idx >= 0)
		return;
	n = rec_return_addresses(t, regs->rsp, p->skip, p->nskip, found, NSCAN);
	for (int i = 0; i < p->nanchors; i++) {
		if (!p->ret[i])
			continue;
		nret++;
		for (int k = 0; k < n; k++)
			p->on_stack[i] |= found[k] == p->anchor[i];
	}
	for (int k = 0; k < n && nret < NRET; k++) {
		bool known = false;

		for (int i = 0; i < p->nanchors; i++)
			known |= p->anchor[i] == found[k];
		if (known)
			continue;
		mrr_debug("pid %d: return address 0x%llx at rip 0x%llx",
			  t->t.tid, (unsigned long long)found[k],
			  (unsigned long long)regs->rip);
		if (rec_preempt_anchor_ok(t, found[k])) {
			p->on_stack[pre_new_anchor(p, found[k], true)] = true;
			nret++;
			continue;
		}
		p->skip[p->skip_next] = found[k];
		p->skip_next = (p->skip_next + 1) % NSKIP;
		if (p->nskip < NSKIP)
			p->nskip++;
	}
}
