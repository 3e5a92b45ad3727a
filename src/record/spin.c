/* Preempting spinning threads (spin.h). */
#include "record/spin.h"

#include "core/bpcount.h"
#include "core/events.h"
#include "core/log.h"
#include "core/point.h"
#include "core/proc.h"
#include "record/preempt.h"
#include "record/rtask.h"
#include "record/spinloop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Executions of the stopped-at instruction watched for a state that comes
 * back: a spin loop with an inner counter (a pause loop of a few turns)
 * repeats within a few dozen. */
#define SPIN_PROBES 24
/* CPU time the probe waits for the instruction to run again. */
#define PROBE_NS 2000000ull
/* Wall time after which the probe stops the task itself (a lost overflow
 * signal, a task that does not get the CPU). */
#define PROBE_WALL_NS 200000000ll

/* A task's state at one execution of the watched instruction. */
struct state {
	struct user_regs_struct regs;
	uint64_t near, near_len, deep;
};

static struct rec_spin_stats stats;

void rec_spin_stats(struct rec_spin_stats *out)
{
	*out = stats;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Waits for t's next stop. The scheduler's timer interrupts the wait
 * (rec_sched_arm runs it while a task waits for the slot): past the
 * deadline, t is kicked so that it stops (its stop is then a kick). A task
 * that is dead (a zombie main thread waits for its other threads, whose
 * exits only the main loop's wait collects) never stops: -ESRCH. Ctrl-C
 * and SIGTERM end the wait too (-EINTR). */
static int wait_stop(struct rtask *t, int *status, int64_t deadline)
{
	bool kicked = false;

	for (;;) {
		pid_t p = waitpid(t->t.tid, status, __WALL);
		char st;

		if (p == t->t.tid)
			return 0;
		if (p < 0 && errno != EINTR)
			return -errno;
		if (rec_interrupted())
			return -EINTR;
		st = proc_task_state(t->t.tid);
		if (st == 'Z' || st == 'X' || st == 0)
			return -ESRCH;
		if (!kicked && mono_ns() > deadline) {
			kicked = true;
			syscall(SYS_tkill, t->t.tid, BPCOUNT_SIGNAL);
		}
	}
}

/* Whether status is a signal-delivery-stop for BPCOUNT_SIGNAL (si gets
 * its siginfo). */
static bool counter_stop(pid_t tid, int status, siginfo_t *si)
{
	return WIFSTOPPED(status) && (status >> 16) == 0 &&
	       WSTOPSIG(status) == BPCOUNT_SIGNAL &&
	       ptrace(PTRACE_GETSIGINFO, tid, 0, si) == 0;
}

static bool is_kick(const siginfo_t *si)
{
	return si->si_code == SI_TKILL && si->si_pid == getpid();
}

/* Whether the task at rip may be preempted there, and the end of the
 * mapping that holds rsp (the stack hashed whole), at most POINT_DEEP_MAX
 * above it. mrr's page and the syscall buffer library run differently at
 * replay. */
static bool where(pid_t tid, const struct user_regs_struct *regs,
		  uint64_t *stack_end)
{
	struct proc_vma *v = NULL;
	long n;
	bool ok = false;

	*stack_end = 0;
	if (regs->rip >= MRR_PAGE_ADDR &&
	    regs->rip < MRR_PAGE_ADDR + MRR_PAGE_SIZE)
		return false;
	n = proc_read_vmas(tid, false, &v);
	for (long i = 0; i < n; i++) {
		if (regs->rip >= v[i].start && regs->rip < v[i].end)
			ok = !strstr(v[i].name, "libmrr_preload");
		if (regs->rsp >= v[i].start && regs->rsp < v[i].end)
			*stack_end = v[i].end;
	}
	free(v);
	if (*stack_end - regs->rsp > POINT_DEEP_MAX)
		*stack_end = regs->rsp + POINT_DEEP_MAX;
	return ok;
}

static void take_state(struct rtask *t, const struct user_regs_struct *regs,
		       uint64_t stack_end, struct state *s)
{
	struct point_stack st;

	s->regs = *regs;
	point_stack_hash(&t->t, regs->rsp, true, &st);
	s->near = st.hash;
	s->near_len = st.len;
	if (stack_end <= regs->rsp ||
	    point_deep_hash(&t->t, regs->rsp, stack_end, &s->deep) < 0)
		s->deep = 0;
}

static bool same_state(const struct state *a, const struct state *b)
{
	int diff;

	return point_same_regs(&a->regs, &b->regs, POINT_REGS_ALL, &diff) &&
	       a->near == b->near && a->near_len == b->near_len &&
	       a->deep == b->deep;
}

struct spin_gates {
	uint64_t addr[SPIN_GATES];
	struct bpcount c[SPIN_GATES];
	uint64_t used[SPIN_GATES]; /* LRU: the clock at its last point */
	uint64_t clock;
	int n;
	unsigned declined; /* stops where nobody waited, this stretch */
};

static void gate_open(struct rtask *t, struct spin_gates *g, int i)
{
	int err = bpcount_open(&g->c[i], t->t.tid, g->addr[i], 1);

	if (err)
		mrr_debug("pid %d: no gate at 0x%llx: %s", t->t.tid,
			  (unsigned long long)g->addr[i], strerror(-err));
}

/* t stands at a point just written in the loop that starts at lo: lo
 * becomes a gate (the least recently used one goes), counting from here,
 * as from the point's event. */
static void gate_learn(struct rtask *t, uint64_t lo)
{
	struct spin_gates *g = t->gates;
	int i, victim = 0;

	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return;
		for (i = 0; i < SPIN_GATES; i++)
			g->c[i].fd = -1;
		t->gates = g;
	}
	g->clock++;
	for (i = 0; i < g->n; i++)
		if (g->addr[i] == lo) {
			g->used[i] = g->clock;
			if (g->c[i].fd < 0)
				gate_open(t, g, i);
			return;
		}
	if (g->n < SPIN_GATES) {
		victim = g->n++;
	} else {
		for (i = 1; i < g->n; i++)
			if (g->used[i] < g->used[victim])
				victim = i;
		bpcount_close(&g->c[victim]);
	}
	g->addr[victim] = lo;
	g->used[victim] = g->clock;
	stats.gates++;
	gate_open(t, g, victim);
}

void rec_spin_gates_close(struct rtask *t)
{
	if (!t->gates)
		return;
	for (int i = 0; i < t->gates->n; i++)
		bpcount_close(&t->gates->c[i]);
}

void rec_spin_gates_free(struct rtask *t)
{
	rec_spin_gates_close(t);
	free(t->gates);
	t->gates = NULL;
}

void rec_spin_gates_restart(struct rtask *t, const struct mrr_event *ev)
{
	struct spin_gates *g = t->gates;

	if (!g)
		return;
	if (ev->kind == MRR_EV_EXEC) {
		rec_spin_gates_free(t);
		return;
	}
	g->declined = 0;
	for (int i = 0; i < g->n; i++) {
		if (g->c[i].fd >= 0 && bpcount_reset(&g->c[i]) == 0)
			continue;
		bpcount_close(&g->c[i]);
		gate_open(t, g, i);
	}
}

bool rec_spin_gate_stop(struct recorder *rec, struct rtask *t,
			const siginfo_t *si,
			const struct user_regs_struct *regs)
{
	struct spin_gates *g = t->gates;
	uint64_t n = 0;
	int i;

	if (!g || si->si_signo != BPCOUNT_SIGNAL)
		return false;
	for (i = 0; i < g->n; i++)
		if (g->c[i].fd >= 0 && bpcount_is_overflow(si, g->c[i].fd))
			break;
	if (i == g->n)
		return false;
	if (regs->rip == g->addr[i] && bpcount_read(&g->c[i], &n) == 0 &&
	    n > 0 && rec_sched_spin_gate(rec, t, regs, n)) {
		g->used[i] = ++g->clock;
		stats.gate_points++;
		return true;
	}
	stats.gate_declined++;
	if (++g->declined >= SPIN_GATE_DECLINES)
		rec_spin_gates_close(t);
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
}

/* Watches the executions of the instruction at seen[0]'s rip (t stopped
 * there). Returns SPIN_PREEMPTED, SPIN_STOPPED (*status), SPIN_NOT (t
 * stopped at a point that is not recorded, to be resumed), or -errno. */
static int watch(struct recorder *rec, struct rtask *t, struct state *seen,
		 uint64_t stack_end, int *status)
{
	struct bpcount c = {-1, 0};
	struct user_regs_struct regs;
	struct spin_loop loop;
	int64_t deadline = mono_ns() + PROBE_WALL_NS;
	int slice = -1, n = 1, ret = SPIN_NOT;
	bool first = true;
	siginfo_t si;

	if (bpcount_open(&c, t->t.tid, seen[0].regs.rip, 1) < 0) {
		/* the gates may hold the debug registers */
		rec_spin_gates_close(t);
		if (bpcount_open(&c, t->t.tid, seen[0].regs.rip, 1) < 0)
			return SPIN_NOT;
	}
	if (cpuslice_open(&slice, t->t.tid) < 0)
		slice = -1;
	else if (cpuslice_arm(slice, PROBE_NS) < 0)
		mrr_debug("pid %d: cannot arm the probe's slice", t->t.tid);
	while (n <= SPIN_PROBES) {
		if (ptrace(PTRACE_CONT, t->t.tid, 0, 0) < 0 ||
		    wait_stop(t, status, deadline) < 0) {
			ret = -ESRCH;
			break;
		}
		if (!counter_stop(t->t.tid, *status, &si)) {
			ret = SPIN_STOPPED;
			break;
		}
		if (is_kick(&si) || bpcount_is_overflow(&si, slice))
			break; /* the instruction does not come back soon */
		if (!bpcount_is_overflow(&si, c.fd)) {
			ret = SPIN_STOPPED; /* preempt.c's */
			break;
		}
		stats.stops++;
		if (tracee_get_regs(&t->t, &regs) < 0) {
			ret = -ESRCH;
			break;
		}
		take_state(t, &regs, stack_end, &seen[n]);
		if (first && same_state(&seen[0], &seen[n])) {
			/* the kick stopped t before the instruction, and
			 * resuming there hits the new breakpoint at once
			 * (no resume flag): the same execution */
			first = false;
			continue;
		}
		first = false;
		for (int i = 0; i < n; i++) {
			if (!same_state(&seen[i], &seen[n]))
				continue;
			/* the loop came back to a state it had: a point at
			 * its first pass there is this one, but for the
			 * memory its body stores to in place (a count of its
			 * turns), which the point carries (spinloop.h) */
			bpcount_close(&c);
			if (slice >= 0)
				close(slice);
			if (rec_spin_loop(t, &regs, &loop) < 0)
				loop.nstores = 0;
			if (!rec_preempt_here(rec, t, &regs, 0, loop.store,
					      loop.nstores > 0 ? loop.nstores
							       : 0))
				return SPIN_NOT;
			if (loop.nstores > 0)
				stats.stores++;
			if (loop.lo)
				gate_learn(t, loop.lo);
			stats.preempted++;
			return SPIN_PREEMPTED;
		}
		n++;
	}
	bpcount_close(&c);
	if (slice >= 0)
		close(slice);
	return ret;
}

int rec_spin_preempt(struct recorder *rec, struct rtask *t, int *status)
{
	struct state seen[SPIN_PROBES + 1];
	struct user_regs_struct regs;
	uint64_t stack_end;
	siginfo_t si;
	int ret;

	stats.probes++;
	if (syscall(SYS_tkill, t->t.tid, BPCOUNT_SIGNAL) < 0)
		return -errno;
	if (wait_stop(t, status, mono_ns() + PROBE_WALL_NS) < 0)
		return -ECHILD;
	if (!counter_stop(t->t.tid, *status, &si) || !is_kick(&si))
		return SPIN_STOPPED; /* the kick comes later, swallowed */
	if (tracee_get_regs(&t->t, &regs) < 0)
		return -ESRCH;
	stats.stops++;
	ret = SPIN_NOT;
	if ((int64_t)regs.orig_rax == -1 &&
	    where(t->t.tid, &regs, &stack_end)) {
		take_state(t, &regs, stack_end, &seen[0]);
		ret = watch(rec, t, seen, stack_end, status);
	}
	if (ret == SPIN_NOT && ptrace(PTRACE_CONT, t->t.tid, 0, 0) < 0)
		return -ESRCH;
	return ret;
}
