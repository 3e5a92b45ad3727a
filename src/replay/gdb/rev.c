/* Reverse execution without performance counters (LOOP.md, issue 13): go
 * back to a state before the current position (the start of the replay,
 * the one checkpoint there is), run forward again counting breakpoint and
 * watchpoint hits (the replay's own writes included) up to the current
 * position, then go to the last hit. A position inside an event is found
 * again by its registers and stack (struct replay_pos). */
#include "core/insn.h"
#include "core/log.h"
#include "replay/checkpoint.h"
#include "replay/gdb/target.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Single steps one reverse step may replay from an event boundary. */
#define MAX_REVERSE_STEPS 200000

struct gpos {
	struct replay_pos p;
	bool held; /* held at the entry stop of event p.event */
};

static void capture(struct gdb_server *s, struct gpos *g)
{
	replay_position(&s->rp, &g->p);
	g->held = replay_held_task(&s->rp) != NULL;
	if (g->held) { /* as gdb sees it: before the syscall instruction */
		struct gdb_regs r;

		if (gdb_get_regs(s, &r) == 0)
			g->p.regs = r.g;
		g->p.tid = s->tid;
	}
}

static bool at_start(struct gdb_server *s, const struct gpos *g)
{
	if (g->p.event < s->start_event)
		return true;
	return g->p.event == s->start_event && g->p.unit == REPLAY_AT_EVENT &&
	       (!g->held || s->start_held);
}

static void begin_reply(struct gdb_server *s, char *reply, size_t len)
{
	gdb_select(s, 0);
	snprintf(reply, len, "T05thread:%x;replaylog:begin;", s->tid);
}

/* From a restart, goes to g. Returns 0 or -1. */
static int go_to(struct gdb_server *s, const struct gpos *g)
{
	struct replay_stop want = {0};
	struct replay_stopped why;

	if (gdb_restart(s, g->p.event) < 0)
		return -1;
	if (g->held)
		return replay_hold(&s->rp, NULL, NULL) == 1 ? 0 : -1;
	if (g->p.unit == REPLAY_AT_EVENT)
		return 0;
	want.tid = s->tid;
	want.pid = s->pid;
	want.to = &g->p;
	if (gdb_run(s, &want, &why) < 0)
		return -1;
	if (why.why != REPLAY_STOP_POS && g->p.stack_hash) {
		struct gpos loose = *g;

		loose.p.stack_hash = 0;
		return go_to(s, &loose);
	}
	return why.why == REPLAY_STOP_POS ? 0 : -1;
}

struct hit {
	bool found;
	struct replay_stopped why;
	struct gpos at;
	uint8_t old[8]; /* the watched bytes before a data write */
	bool old_known;
};

static void read_watched(struct gdb_server *s, uint8_t (*seen)[8], bool *known)
{
	struct ptask *t = gdb_task(s);

	for (size_t i = 0; i < s->nbps; i++)
		known[i] = t && s->bps[i].type >= REPLAY_WATCH_W &&
			   tracee_read_all(&t->t, s->bps[i].addr, seen[i],
					   s->bps[i].len) == 0;
}

static void note_hit(struct gdb_server *s, const struct replay_stopped *why,
		     uint8_t (*seen)[8], bool *known, struct hit *h)
{
	h->found = true;
	h->why = *why;
	capture(s, &h->at);
	if (why->syscall) { /* before the syscall: at its entry stop */
		h->at.p.event = why->event;
		h->at.p.unit = REPLAY_AT_EVENT;
		h->at.held = true;
	}
	h->old_known = why->bp >= 0 && known[why->bp];
	if (h->old_known)
		memcpy(h->old, seen[why->bp], 8);
	read_watched(s, seen, known);
}

static bool same_place(struct gdb_server *s, const struct gpos *cur)
{
	struct replay_pos here;

	replay_position(&s->rp, &here);
	return here.regs.rip == cur->p.regs.rip &&
	       here.regs.rsp == cur->p.regs.rsp &&
	       here.regs.rax == cur->p.regs.rax &&
	       here.regs.rbx == cur->p.regs.rbx &&
	       here.regs.rcx == cur->p.regs.rcx &&
	       here.regs.rdx == cur->p.regs.rdx &&
	       here.regs.rbp == cur->p.regs.rbp &&
	       (cur->held || here.stack_hash == cur->p.stack_hash);
}

/* The last hit of gdb's breakpoints and watchpoints from the boundary
 * before event from up to hi. */
static int hit_in(struct gdb_server *s, uint64_t from, const struct gpos *hi,
		  struct hit *h)
{
	struct replay_stop want = {0};
	struct replay_stopped why;
	uint8_t seen[GDB_MAX_BPS][8];
	bool known[GDB_MAX_BPS];
	int k;

	memset(h, 0, sizeof(*h));
	if (gdb_restart(s, from) < 0)
		return -1;
	want.tid = s->tid;
	want.pid = s->pid;
	want.bps = s->bps;
	want.nbps = s->nbps;
	if (hi->p.unit != REPLAY_AT_EVENT)
		want.to = &hi->p;
	else
		want.before_event = hi->p.event;
	read_watched(s, seen, known);
	mrr_debug("reverse: hits from event %" PRIu64 " to event %" PRIu64
		  "%s (rip 0x%llx)",
		  from, hi->p.event, hi->held ? " held" : "", hi->p.regs.rip);
	for (;;) {
		if (gdb_run(s, &want, &why) < 0)
			return -1;
		mrr_debug("reverse: stop %d at event %" PRIu64
			  " addr 0x%" PRIx64,
			  why.why, s->rp.nreplayed, why.addr);
		if (why.why != REPLAY_STOP_BREAKPOINT &&
		    why.why != REPLAY_STOP_WATCH)
			break;
		/* a watchpoint (or hardware breakpoint) that fires where
		 * the sought position is, before its breakpoint does: that
		 * hit is the position itself, not one before it */
		if (hi->p.unit != REPLAY_AT_EVENT && !why.syscall &&
		    s->rp.nreplayed == hi->p.event && same_place(s, hi))
			continue;
		note_hit(s, &why, seen, known, h);
	}
	if (want.to && why.why != REPLAY_STOP_POS && hi->p.stack_hash) {
		struct gpos loose = *hi;

		loose.p.stack_hash = 0;
		return hit_in(s, from, &loose, h);
	}
	if (!hi->held || why.why != REPLAY_STOP_EVENT)
		return 0;
	while ((k = replay_hold(&s->rp, &want, &why)) == 2)
		note_hit(s, &why, seen, known, h);
	return k < 0 ? -1 : 0;
}

/* The last hit before cur: searched from the nearest checkpoint before
 * it, then from the one before that, back to the start. */
static int last_hit(struct gdb_server *s, const struct gpos *cur, struct hit *h)
{
	struct gpos bound;
	const struct gpos *hi = cur;
	uint64_t upto = cur->p.unit == REPLAY_AT_EVENT && !cur->held
				? cur->p.event - 1
				: cur->p.event;

	for (;;) {
		uint64_t from = s->start_event;

		if (s->cps) {
			uint64_t e = checkpoint_event(
				checkpoint_nearest_before(s->cps, upto));

			if (e > from)
				from = e;
		}
		if (hit_in(s, from, hi, h) < 0)
			return -1;
		if (h->found || from <= s->start_event)
			return 0;
		memset(&bound, 0, sizeof(bound));
		bound.p.event = from;
		hi = &bound;
		upto = from - 1;
	}
}

/* At a data watchpoint's hit (after the store), shows gdb the state before
 * it: the store's address in rip and the old bytes, as undoable writes;
 * going forward from there reports the hit first. */
static void before_store(struct gdb_server *s, const struct hit *h, char *reply)
{
	struct ptask *t = gdb_task(s);
	const struct replay_bp *b = &s->bps[h->why.bp];
	struct gdb_regs r;
	uint8_t code[15];
	unsigned k;

	if (!t || gdb_get_regs(s, &r) < 0 || r.g.rip < sizeof(code) ||
	    tracee_read_all(&t->t, r.g.rip - sizeof(code), code, sizeof(code)) <
		    0)
		return;
	k = mrr_store_ending_at(code, sizeof(code), r.g.rip);
	if (!k)
		return;
	s->pending_hit = true;
	snprintf(s->pending_stop, sizeof(s->pending_stop), "%s", reply);
	r.g.rip -= k;
	if (gdb_set_regs(s, &r) < 0)
		return;
	if (h->old_known) {
		struct gdb_undo *u =
			realloc(s->undo, (s->nundo + 1) * sizeof(*u));
		uint8_t *old = malloc(b->len);

		if (!u || !old)
			mrr_fatal("out of memory");
		s->undo = u;
		if (tracee_read_all(&t->t, b->addr, old, b->len) == 0 &&
		    tracee_write_all(&t->t, b->addr, h->old, b->len) == 0)
			s->undo[s->nundo++] = (struct gdb_undo){
				b->addr, (uint32_t)b->len, old};
		else
			free(old);
	}
}

void gdb_reverse_continue(struct gdb_server *s, char *reply, size_t len)
{
	struct gpos cur;
	struct hit h;

	s->pending_hit = false;
	capture(s, &cur);
	if (at_start(s, &cur)) {
		begin_reply(s, reply, len);
		return;
	}
	if (last_hit(s, &cur, &h) < 0)
		goto out_error;
	if (!h.found) {
		if (gdb_restart(s, s->start_event) < 0)
			goto out_error;
		begin_reply(s, reply, len);
		return;
	}
	if (go_to(s, &h.at) < 0)
		goto out_error;
	gdb_stop_reply(s, &h.why, reply, len);
	if (h.why.why == REPLAY_STOP_WATCH && !h.why.syscall)
		before_store(s, &h, reply);
	return;
out_error:
	mrr_err("reverse execution failed at event %" PRIu64, cur.p.event);
	snprintf(reply, len, "E01");
}

void gdb_reverse_step(struct gdb_server *s, char *reply, size_t len)
{
	struct replay_stop want = {0};
	struct replay_stopped why;
	struct gpos cur, prev;
	uint64_t n = 0, i;

	s->pending_hit = false;
	capture(s, &cur);
	if (at_start(s, &cur)) {
		begin_reply(s, reply, len);
		return;
	}
	if (cur.p.unit == REPLAY_AT_EVENT && !cur.held)
		goto out_boundary;
	/* inside an event: count the steps from its start */
	if (gdb_restart(s, cur.p.event) < 0)
		goto out_error;
	want.tid = s->tid;
	want.step = true;
	while (!same_place(s, &cur)) {
		if (++n > MAX_REVERSE_STEPS ||
		    replay_run(&s->rp, &want, &why) < 0 ||
		    why.why != REPLAY_STOP_STEP ||
		    s->rp.nreplayed != cur.p.event)
			goto out_error;
	}
	if (n == 0)
		goto out_boundary;
	if (gdb_restart(s, cur.p.event) < 0)
		goto out_error;
	for (i = 0; i + 1 < n; i++)
		if (replay_run(&s->rp, &want, &why) < 0)
			goto out_error;
	snprintf(reply, len, "T05thread:%x;", s->tid);
	return;
out_boundary:
	if (cur.p.event <= s->start_event) {
		if (gdb_restart(s, s->start_event) < 0)
			goto out_error;
		begin_reply(s, reply, len);
		return;
	}
	{
		/* just after an event: before it, if it was the task's */
		memset(&prev, 0, sizeof(prev));
		prev.p.event = cur.p.event - 1;
		prev.held = true;
		if (go_to(s, &prev) == 0 && replay_held_task(&s->rp) &&
		    replay_held_task(&s->rp)->rec_tid == s->tid) {
			snprintf(reply, len, "T05thread:%x;", s->tid);
			return;
		}
		if (go_to(s, &cur) < 0)
			goto out_error;
		snprintf(reply, len, "T05thread:%x;", s->tid);
		return;
	}
out_error:
	mrr_err("reverse step failed at event %" PRIu64, cur.p.event);
	snprintf(reply, len, "E01");
}
