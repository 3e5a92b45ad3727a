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

void rec_sbuf_flush(struct recorder *rec, struct rtask *t)
{
	static uint8_t *recs;
	struct mrr_syscallbuf_hdr h;
	struct mrr_event ev = {0};
	struct capture c = {0};
	const struct mrr_syscallbuf_rec *r;
	const uint8_t *data;
	size_t off = 0;
	uint32_t n = 0, zero = 0;
	char err[160];
	int k;

	if (!t->sbuf_addr)
		return;
	if (tracee_read_all(&t->t, t->sbuf_addr, &h, sizeof(h)) < 0) {
		corrupted(rec, t, "its header cannot be read");
		return;
	}
	if (h.magic != MRR_SYSCALLBUF_MAGIC ||
	    h.abi != MRR_SYSCALLBUF_ABI_VERSION) {
		corrupted(rec, t, "bad magic or version");
		return;
	}
	if (h.used == 0 || h.busy)
		return;
	if (h.used > MRR_SYSCALLBUF_SIZE - sizeof(h)) {
		corrupted(rec, t, "record bytes exceed the buffer");
		return;
	}
	if (!recs && !(recs = malloc(MRR_SYSCALLBUF_SIZE)))
		return;
	if (tracee_read_all(&t->t, t->sbuf_addr + sizeof(h), recs, h.used) <
	    0) {
		corrupted(rec, t, "its records cannot be read");
		return;
	}
	while ((k = sbuf_next(recs, h.used, &off, &r, &data, err,
			      sizeof(err))) > 0) {
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
			return;
		}
		rec_status_mend_record(rec, t, r, (uint8_t *)data);
	}
	if (k < 0) {
		corrupted(rec, t, err);
		return;
	}
	if (rec_sbuf_check_mprotects(t->t.tid, t->sbuf_addr, recs, h.used, err,
				     sizeof(err))) {
		corrupted(rec, t, err);
		return;
	}
	capture_extra(&c, recs, h.used);
	ev.kind = MRR_EV_BUFFER;
	ev.tid = t->t.tid;
	ev.args[0] = h.used;
	ev.args[1] = n;
	rec_write_event(rec, t, &ev, &c);
	free(c.extra);
	if (tracee_write_all(&t->t,
			     t->sbuf_addr +
				     offsetof(struct mrr_syscallbuf_hdr, used),
			     &zero, sizeof(zero)) < 0)
		corrupted(rec, t, "it cannot be reset");
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
