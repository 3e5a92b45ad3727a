/* The recorder's watchdog: a recording never waits for ever in silence.
 * The main loop sits in waitpid(-1); the scheduler's timer (threads.c)
 * interrupts it at least once a second. When no task has stopped for
 * QUIET_S seconds and none is running (every one is blocked in the kernel
 * or stopped by mrr), this says so once on stderr: what each task waits
 * for, at which event. The recording goes on: a program may sleep that
 * long. SIGINT or SIGTERM end it, the trace kept (recorder.c). */
#include "core/log.h"
#include "core/proc.h"
#include "core/tracee.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"
#include "syscalls/table.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define QUIET_S_DEFAULT 10

static uint64_t last_stop_ms;
static bool reported;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static unsigned quiet_s(void)
{
	const char *s = getenv("MRR_RECORD_QUIET");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v > 0 ? (unsigned)v : QUIET_S_DEFAULT;
}

void rec_watch_stop(void)
{
	last_stop_ms = now_ms();
	reported = false;
}

/* The first line of a small /proc file of tid, without its newline. */
static void proc_line(pid_t tid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/%s", tid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

static const char *call_name(long nr)
{
	const char *n = mrr_syscall_name(nr);

	return n ? n : "a syscall";
}

/* What t waits for, in words. */
static void describe(struct rtask *t, char *buf, size_t len)
{
	char sc[256], wchan[64], how[96] = "", held[80] = "";
	unsigned long long a[6], sp, pc;
	long nr = -1;

	proc_line(t->t.tid, "syscall", sc, sizeof(sc));
	proc_line(t->t.tid, "wchan", wchan, sizeof(wchan));
	if (sscanf(sc, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr,
		   &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &sp, &pc) != 9)
		nr = -1;
	if (t->parked)
		snprintf(how, sizeof(how),
			 "stopped by mrr until its group's slot is free "
			 "(held by pid %d)",
			 t->grp && t->grp->runner ? t->grp->runner->t.tid : 0);
	else if (t->in_syscall)
		snprintf(how, sizeof(how), "in %s", call_name(t->nr));
	else if (nr >= 0 && pc == MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL + 2)
		snprintf(how, sizeof(how), "in %s, a buffered call",
			 call_name(nr));
	else if (nr >= 0)
		snprintf(how, sizeof(how), "in %s", call_name(nr));
	else
		snprintf(how, sizeof(how), "in state %c",
			 proc_task_state(t->t.tid));
	if (t->deferred)
		snprintf(held, sizeof(held),
			 ", with signal %d held back by mrr for its next "
			 "syscall exit",
			 t->deferred_info.si_signo);
	snprintf(buf, len, "%s%s%s%s%s%s", how,
		 wchan[0] && wchan[0] != '0' ? " (kernel function " : "",
		 wchan[0] && wchan[0] != '0' ? wchan : "",
		 wchan[0] && wchan[0] != '0' ? ")" : "",
		 t->grp && t->grp->runner == t && t->grp->nmembers > 1
			 ? ", holding its group's slot"
			 : "",
		 held);
}

void rec_watch_check(struct recorder *rec)
{
	struct rtask *t;
	char what[400];
	uint64_t now = now_ms();

	if (reported || !last_stop_ms ||
	    now - last_stop_ms < quiet_s() * 1000ull)
		return;
	for (t = rec->tasks; t; t = t->next) {
		char st = proc_task_state(t->t.tid);

		if (st == 'R')
			return; /* something runs: not a silent wait */
	}
	reported = true;
	fprintf(stderr,
		"mrr: no recorded task has stopped for %u s, at event %llu, "
		"and none runs:\n",
		quiet_s(), (unsigned long long)mrr_trace_writer_events(rec->w));
	for (t = rec->tasks; t; t = t->next) {
		char who[48];

		if (t->tgid == t->t.tid)
			snprintf(who, sizeof(who), "pid %d", t->t.tid);
		else
			snprintf(who, sizeof(who), "thread %d of pid %d",
				 t->t.tid, t->tgid);
		describe(t, what, sizeof(what));
		fprintf(stderr, "mrr:   %s is %s\n", who, what);
	}
	for (t = rec->tasks; t; t = t->next)
		if (t->deferred && t->in_syscall)
			break;
	if (t)
		fprintf(stderr,
			"mrr:   pid %d waits in a call while mrr holds back "
			"a signal for that call's exit: the recording may be "
			"stuck in mrr, not in the program\n",
			t->t.tid);
	fprintf(stderr, "mrr:   the recording goes on (the program may be "
			"waiting on purpose); SIGINT or SIGTERM ends it and "
			"keeps the trace\n");
}
