/* The addresses of mrr's execute breakpoints per task (owntrap.h). */
#include "core/owntrap.h"

#include <stddef.h>

#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif

/* A task has at most 4 breakpoints armed at once; disarmed ones stay
 * until their entry is the oldest one free. */
#define OWNTRAP_ENTRIES 512

static struct owntrap_entry {
	pid_t tid; /* 0: free */
	int live;  /* armed now, by this many counters */
	uint64_t addr;
	uint64_t stamp; /* the clock at its last arm or disarm */
} tab[OWNTRAP_ENTRIES];
static uint64_t clock_now;

static struct owntrap_entry *find(pid_t tid, uint64_t addr)
{
	for (int i = 0; i < OWNTRAP_ENTRIES; i++)
		if (tab[i].tid == tid && tab[i].addr == addr)
			return &tab[i];
	return NULL;
}

void owntrap_armed(pid_t tid, uint64_t addr)
{
	struct owntrap_entry *e = find(tid, addr), *old = NULL;

	if (!e) {
		/* a free entry, else the oldest disarmed, else the oldest */
		for (int i = 0; i < OWNTRAP_ENTRIES && !e; i++) {
			struct owntrap_entry *c = &tab[i];

			if (!c->tid)
				e = c;
			else if (!old || (c->live == 0 && old->live > 0) ||
				 ((c->live == 0) == (old->live == 0) &&
				  c->stamp < old->stamp))
				old = c;
		}
		if (!e)
			e = old;
		e->tid = tid;
		e->addr = addr;
		e->live = 0;
	}
	e->live++;
	e->stamp = ++clock_now;
}

void owntrap_disarmed(pid_t tid, uint64_t addr)
{
	struct owntrap_entry *e = find(tid, addr);

	if (!e)
		return;
	if (e->live > 0)
		e->live--;
	e->stamp = ++clock_now;
}

bool owntrap_known(pid_t tid, uint64_t addr)
{
	return tid > 0 && find(tid, addr) != NULL;
}

bool owntrap_lost(const siginfo_t *si, pid_t tid, uint64_t rip)
{
	return si->si_signo == SIGTRAP && si->si_code == TRAP_BRKPT &&
	       (uint64_t)(uintptr_t)si->si_addr == rip &&
	       owntrap_known(tid, rip);
}
