/* The recorder's side of the syscall buffer (protocol in
 * src/syscallbuf/abi.h): registration, and flushing the task's records into
 * the trace before each of its traced events. The buffer lives in the
 * recorded program's memory, so everything read from it is checked. */
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/sbuf_records.h"
#include "core/seccomp_filter.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A task killed from outside (SIGKILL) while mrr reads its buffer loses its
 * memory under mrr's feet: that is its death, which the recorder sees next,
 * not a corrupted buffer. */
static bool task_dying(pid_t tid)
{
	char path[64], buf[4096];
	bool has_mm = false, kill_pending = false;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	for (char *line = buf; line && *line; line = strchr(line, '\n')) {
		unsigned long long mask;

		if (*line == '\n')
			line++;
		if (!strncmp(line, "State:", 6) &&
		    (strstr(line, "zombie") || strstr(line, "dead")))
			return true;
		if (!strncmp(line, "VmSize:", 7))
			has_mm = true;
		if ((sscanf(line, "SigPnd: %llx", &mask) == 1 ||
		     sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
		    (mask & (1ull << (SIGKILL - 1))))
			kill_pending = true;
	}
	return !has_mm || kill_pending;
}

static void corrupted(struct recorder *rec, struct rtask *t, const char *why)
{
	if (task_dying(t->t.tid))
		return;
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "the syscall buffer of pid %d is corrupted (%s) at event "
		 "%llu; the program overwrote it",
		 t->t.tid, why,
		 (unsigned long long)mrr_trace_writer_events(rec->w));
}

/* The task whose offset says how much of t's buffer is in the trace
 * already (rec_sbuf_flush_busy): t itself, or a CLONE_VM task that buffers
 * into the same buffer (abi.h) and flushed it while blocked; NULL when
 * none did. */
static struct rtask *flushed_by(struct recorder *rec, struct rtask *t)
{
	struct rtask *p;

	if (t->sbuf_flushed || !rec->sbuf_partial)
		return t->sbuf_flushed ? t : NULL;
	for (p = rec->tasks; p; p = p->next)
		if (p != t && p->sbuf_flushed && p->sbuf_addr == t->sbuf_addr &&
		    syscall(SYS_kcmp, p->t.tid, t->t.tid, KCMP_VM, 0, 0) == 0)
			return p;
	return NULL;
}

/* Writes t's records [from, h->used) as one MRR_EV_BUFFER event. Returns
 * 0, or -1 when it stopped the recording. */
static int write_records(struct recorder *rec, struct rtask *t,
			 const struct mrr_syscallbuf_hdr *h, uint32_t from)
{
	static uint8_t *recs;
	struct mrr_event ev = {0};
	struct capture c = {0};
	const struct mrr_syscallbuf_rec *r;
	const uint8_t *data;
	uint32_t len = h->used - from;
	size_t off = 0;
	uint32_t n = 0;
	char err[160];
	int k;

	if (!recs && !(recs = malloc(MRR_SYSCALLBUF_SIZE)))
		return -1;
	if (tracee_read_all(&t->t, t->sbuf_addr + sizeof(*h) + from, recs,
			    len) < 0) {
		corrupted(rec, t, "its records cannot be read");
		return -1;
	}
	while ((k = sbuf_next(recs, len, &off, &r, &data, err, sizeof(err))) >
	       0) {
		n++;
		/* The library never buffers a call on mrr's page: this one
		 * came from the program's own code. */
		if (r->nr == SYS_madvise && r->args[1] &&
		    r->args[0] < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
		    r->args[0] + r->args[1] > MRR_PAGE_ADDR) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d called madvise on mrr's page at "
				 "0x%llx without a stop, found in its syscall "
				 "buffer at event %llu; the recording stops "
				 "here",
				 t->t.tid, (unsigned long long)MRR_PAGE_ADDR,
				 (unsigned long long)mrr_trace_writer_events(
					 rec->w));
			return -1;
		}
		rec_status_mend_record(rec, t, r, (uint8_t *)data);
	}
	if (k < 0) {
		corrupted(rec, t, err);
		return -1;
	}
	if (rec_sbuf_check_mprotects(t->t.tid, t->sbuf_addr, recs, len, err,
				     sizeof(err))) {
		corrupted(rec, t, err);
		return -1;
	}
	capture_extra(&c, recs, len);
	ev.kind = MRR_EV_BUFFER;
	ev.tid = t->t.tid;
	ev.args[0] = len;
	ev.args[1] = n;
	rec_write_event(rec, t, &ev, &c);
	free(c.extra);
	return 0;
}

/* Reads and checks t's buffer header. Returns 0, or -1 when it stopped the
 * recording. */
static int read_header(struct recorder *rec, struct rtask *t,
		       struct mrr_syscallbuf_hdr *h)
{
	if (tracee_read_all(&t->t, t->sbuf_addr, h, sizeof(*h)) < 0) {
		corrupted(rec, t, "its header cannot be read");
		return -1;
	}
	if (h->magic != MRR_SYSCALLBUF_MAGIC ||
	    h->abi != MRR_SYSCALLBUF_ABI_VERSION) {
		corrupted(rec, t, "bad magic or version");
		return -1;
	}
	if (h->used > MRR_SYSCALLBUF_SIZE - sizeof(*h)) {
		corrupted(rec, t, "record bytes exceed the buffer");
		return -1;
	}
	return 0;
}

void rec_sbuf_flush(struct recorder *rec, struct rtask *t)
{
	struct mrr_syscallbuf_hdr h;
	struct rtask *by;
	uint32_t zero = 0, from = 0;

	if (!t->sbuf_addr)
		return;
	if (read_header(rec, t, &h) < 0 || h.used == 0 || h.busy)
		return;
	by = flushed_by(rec, t);
	if (by) {
		from = by->sbuf_flushed;
		if (h.used < from) {
			corrupted(rec, t, "fewer records than were flushed");
			return;
		}
	}
	if (h.used > from && write_records(rec, t, &h, from) < 0)
		return;
	if (by) {
		by->sbuf_flushed = 0;
		rec->sbuf_partial--;
	}
	if (tracee_write_all(&t->t,
			     t->sbuf_addr +
				     offsetof(struct mrr_syscallbuf_hdr, used),
			     &zero, sizeof(zero)) < 0)
		corrupted(rec, t, "it cannot be reset");
}

void rec_sbuf_flush_busy(struct recorder *rec, struct rtask *t)
{
	struct mrr_syscallbuf_hdr h;
	struct rtask *by;
	uint32_t from = 0;

	if (!t->sbuf_addr || read_header(rec, t, &h) < 0)
		return;
	by = flushed_by(rec, t);
	if (by)
		from = by->sbuf_flushed;
	if (h.used < from) {
		corrupted(rec, t, "fewer records than were flushed");
		return;
	}
	if (h.used == from || write_records(rec, t, &h, from) < 0)
		return;
	if (!by) {
		by = t;
		rec->sbuf_partial++;
	}
	by->sbuf_flushed = h.used;
}

/* Adds bits to the buffer's no_probe (abi.h). */
static void add_no_probe(struct rtask *t, uint32_t bits)
{
	const uint64_t at =
		t->sbuf_addr + offsetof(struct mrr_syscallbuf_hdr, no_probe);
	uint32_t v = 0;

	if (!t->sbuf_addr || !bits)
		return;
	if (tracee_read_all(&t->t, at, &v, sizeof(v)) < 0)
		v = 0;
	v |= bits;
	if (tracee_write_all(&t->t, at, &v, sizeof(v)) < 0)
		t->sbuf_addr = 0;
}

/* REGISTER at its seccomp stop. Returns the result the library sees. */
int64_t rec_sbuf_register(struct recorder *rec, struct rtask *t)
{
	struct mrr_syscallbuf_hdr h;
	uint64_t addr = t->args[0];

	if (!rec->syscallbuf || t->args[1] != MRR_SYSCALLBUF_ABI_VERSION)
		return -ENOSYS;
	if ((addr & 4095) || tracee_read_all(&t->t, addr, &h, sizeof(h)) < 0 ||
	    h.magic != MRR_SYSCALLBUF_MAGIC)
		return -EINVAL;
	t->sbuf_addr = addr;
	add_no_probe(t, mrr_seccomp_sbuf_bits(&t->t, -1, NULL));
	return 0;
}

/* The program changes its seccomp state: a filter of its own would see the
 * MADV_COLD probes, so buffered madvise stops, and one that may answer with
 * a signal stops all buffering. */
void rec_sbuf_no_probe(struct rtask *t)
{
	add_no_probe(t, mrr_seccomp_sbuf_bits(&t->t, t->nr, t->args));
}

/* A signal is held back for t: make its next buffered call a traced one,
 * where the signal can be delivered. */
void rec_sbuf_trace_next(struct rtask *t)
{
	uint32_t one = 1;

	if (t->sbuf_addr &&
	    tracee_write_all(&t->t,
			     t->sbuf_addr + offsetof(struct mrr_syscallbuf_hdr,
						     trace_next),
			     &one, sizeof(one)) < 0)
		t->sbuf_addr = 0;
}
