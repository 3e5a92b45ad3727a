/* trace_edit: copies an mrr trace through the public trace API, changing one
 * thing on the way, to make traces that a faithful replayer must reject.
 *
 *   trace_edit [--nr NR] [--nth K] [--result VALUE] IN OUT
 *       Changes the result of the K-th (default first) SYSCALL event whose
 *       syscall number is NR (default 1, write) to VALUE (default: the old
 *       result minus one if it was positive, else plus one). Prints
 *       "event SEQ: syscall NR result OLD -> NEW" on stdout.
 *   trace_edit --buffer-arg SEQ IN OUT
 *       Adds one to the first argument of the first record of the syscall
 *       buffer flush that is event SEQ, as a trace whose buffered calls do
 *       not match the program would have.
 *   trace_edit --swap SEQ IN OUT
 *       Writes event SEQ after event SEQ+1 instead of before it, as a
 *       recorder that wrote two tasks' events in the wrong order would.
 *   trace_edit --truncate N IN OUT
 *       Copies the first N events and leaves OUT uncommitted, as a recorder
 *       that was killed would.
 *   trace_edit --abi N IN OUT
 *       Copies every event and sets the header's syscall buffer protocol
 *       version to N, as a trace from an older or newer mrr would have.
 *   trace_edit --digest K IN OUT
 *       Flips a bit of the written-bytes digest (MRR_EVF_DIGEST) of the K-th
 *       event that has one, as a recording whose program wrote other bytes
 *       would hold. Prints "event SEQ: digest OLD -> NEW".
 *
 * OUT must not exist. Every stored file is copied, the header and the end
 * status are kept. Exit status: 0 done, 1 error, 2 usage, 3 no such event.
 */
#include <mrr/trace.h>

#include "syscallbuf/abi.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct copy_files {
	mrr_trace_reader *r;
	mrr_trace_writer *w;
	uint64_t count;
};

static int copy_one_file(const char *name, uint64_t size, void *arg)
{
	struct copy_files *c = arg;
	char path[PATH_MAX], stored[MRR_STORED_NAME_MAX];
	int ret;

	ret = mrr_trace_file_path(c->r, name, path, sizeof(path));
	if (ret) {
		fprintf(stderr, "trace_edit: stored file %s: %s\n", name,
			mrr_trace_strerror(ret));
		return ret;
	}
	ret = mrr_trace_writer_store_file(c->w, path, stored);
	if (ret) {
		fprintf(stderr, "trace_edit: cannot store %s: %s\n", path,
			mrr_trace_strerror(ret));
		return ret;
	}
	/* Stored names come from the content, so replay finds the copy under
	 * the name the events use. */
	if (strcmp(stored, name)) {
		fprintf(stderr, "trace_edit: %s was stored as %s\n", name,
			stored);
		return -EINVAL;
	}
	c->count++;
	return 0;
}

/* A deep copy of an event whose buffers the next mrr_trace_next() reuses. */
struct held_event {
	struct mrr_event ev;
	struct mrr_mem_write *writes;
	uint8_t *bytes;
};

static int hold_event(struct held_event *h, const struct mrr_event *ev)
{
	size_t total = ev->extra_len, off;
	uint32_t k;

	for (k = 0; k < ev->nwrites; k++)
		total += ev->writes[k].len;
	h->ev = *ev;
	h->writes = calloc(ev->nwrites ? ev->nwrites : 1, sizeof(*h->writes));
	h->bytes = malloc(total ? total : 1);
	if (!h->writes || !h->bytes)
		return -ENOMEM;
	if (ev->extra_len)
		memcpy(h->bytes, ev->extra, ev->extra_len);
	h->ev.extra = h->bytes;
	off = ev->extra_len;
	for (k = 0; k < ev->nwrites; k++) {
		h->writes[k] = ev->writes[k];
		if (ev->writes[k].len)
			memcpy(h->bytes + off, ev->writes[k].data,
			       ev->writes[k].len);
		h->writes[k].data = h->bytes + off;
		off += ev->writes[k].len;
	}
	h->ev.writes = h->writes;
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	return errno || !*s || *end ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: trace_edit [--nr NR] [--nth K] [--result "
			"VALUE] IN OUT\n"
			"       trace_edit --swap SEQ IN OUT\n"
			"       trace_edit --truncate N IN OUT\n"
			"       trace_edit --abi N IN OUT\n"
			"       trace_edit --digest K IN OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int64_t nr = 1, nth = 1, new_result = 0, truncate_at = -1, swap = -1,
		buffer_arg = -1, abi = -1, digest = -1, digests = 0;
	uint8_t *changed_extra = NULL;
	struct held_event held = {0};
	int holding = 0;
	int have_result = 0, seen = 0, changed = 0, ret, i;
	char errbuf[512];
	mrr_trace_reader *r = NULL;
	mrr_trace_writer *w = NULL;
	struct copy_files files;
	struct mrr_trace_info info;
	struct mrr_event ev;
	enum mrr_trace_end end = MRR_END_COMPLETE;
	const char *message = NULL;
	uint64_t seq, copied = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
		int64_t *slot;

		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--nr")) {
			slot = &nr;
		} else if (!strcmp(argv[i], "--nth")) {
			slot = &nth;
		} else if (!strcmp(argv[i], "--result")) {
			slot = &new_result;
			have_result = 1;
		} else if (!strcmp(argv[i], "--buffer-arg")) {
			slot = &buffer_arg;
		} else if (!strcmp(argv[i], "--swap")) {
			slot = &swap;
		} else if (!strcmp(argv[i], "--truncate")) {
			slot = &truncate_at;
		} else if (!strcmp(argv[i], "--abi")) {
			slot = &abi;
		} else if (!strcmp(argv[i], "--digest")) {
			slot = &digest;
		} else {
			usage();
		}
		if (parse_i64(argv[i + 1], slot))
			usage();
	}
	if (argc - i != 2 || nth < 1)
		usage();

	ret = mrr_trace_open(argv[i], 0, &r, errbuf, sizeof(errbuf));
	if (ret) {
		fprintf(stderr, "trace_edit: %s\n", errbuf);
		return 1;
	}
	info = *mrr_trace_info(r);
	if (abi >= 0) {
		info.syscallbuf_abi = (uint32_t)abi;
		changed = 1;
	}
	ret = mrr_trace_writer_create(argv[i + 1], &info, 0, &w);
	if (ret) {
		fprintf(stderr, "trace_edit: cannot create %s: %s\n",
			argv[i + 1], mrr_trace_strerror(ret));
		goto out_close_reader;
	}
	files.r = r;
	files.w = w;
	files.count = 0;
	ret = mrr_trace_for_each_file(r, copy_one_file, &files);
	if (ret)
		goto out_abort;

	while ((ret = mrr_trace_next(r, &ev)) == 1) {
		if (truncate_at >= 0 && copied == (uint64_t)truncate_at)
			break;
		int64_t old = ev.result;
		if (swap >= 0 && ev.seq == (uint64_t)swap) {
			if (hold_event(&held, &ev)) {
				fprintf(stderr, "trace_edit: out of memory\n");
				goto out_abort;
			}
			holding = 1;
			continue;
		}
		if (buffer_arg >= 0 && ev.seq == (uint64_t)buffer_arg &&
		    ev.kind == MRR_EV_BUFFER &&
		    ev.extra_len >= sizeof(struct mrr_syscallbuf_rec)) {
			struct mrr_syscallbuf_rec rec;

			changed_extra = malloc(ev.extra_len);
			if (!changed_extra)
				goto out_abort;
			memcpy(changed_extra, ev.extra, ev.extra_len);
			memcpy(&rec, changed_extra, sizeof(rec));
			rec.args[0]++;
			memcpy(changed_extra, &rec, sizeof(rec));
			ev.extra = changed_extra;
			changed = 1;
			printf("event %" PRIu64 ": first buffered %u call's "
			       "argument 0 -> 0x%" PRIx64 "\n",
			       ev.seq, rec.nr, rec.args[0]);
		}
		if (digest > 0 && !changed && (ev.flags & MRR_EVF_DIGEST) &&
		    ev.extra_len >= 8 && ++digests == digest) {
			changed_extra = malloc(ev.extra_len);
			if (!changed_extra)
				goto out_abort;
			memcpy(changed_extra, ev.extra, ev.extra_len);
			changed_extra[ev.extra_len - 8] ^= 1;
			ev.extra = changed_extra;
			changed = 1;
			printf("event %" PRIu64 ": digest bit 0 flipped\n",
			       ev.seq);
		}
		int hit = truncate_at < 0 && swap < 0 && buffer_arg < 0 &&
			  abi < 0 && digest < 0 && !changed &&
			  ev.kind == MRR_EV_SYSCALL && ev.nr == nr &&
			  ++seen == nth;
		if (hit && have_result)
			ev.result = new_result;
		else if (hit)
			ev.result = old > 0 ? old - 1 : old + 1;
		ret = mrr_trace_writer_append(w, &ev, &seq);
		if (ret) {
			fprintf(stderr,
				"trace_edit: cannot append event %" PRIu64
				": %s\n",
				ev.seq, mrr_trace_strerror(ret));
			goto out_abort;
		}
		if (holding) {
			holding = 0;
			changed = 1;
			ret = mrr_trace_writer_append(w, &held.ev, &seq);
			if (ret) {
				fprintf(stderr,
					"trace_edit: cannot append: %s\n",
					mrr_trace_strerror(ret));
				goto out_abort;
			}
			printf("event %" PRId64 " now follows event %" PRId64
			       "\n",
			       swap, swap + 1);
		}
		if (hit) {
			changed = 1;
			printf("event %" PRIu64 ": syscall %" PRId64
			       " result %" PRId64 " -> %" PRId64 "\n",
			       seq, nr, old, ev.result);
		}
		copied++;
	}
	if (ret < 0) {
		fprintf(stderr, "trace_edit: %s\n", mrr_trace_error_message(r));
		goto out_abort;
	}

	if (truncate_at >= 0) {
		ret = mrr_trace_writer_flush(w);
		if (ret) {
			fprintf(stderr, "trace_edit: cannot write %s: %s\n",
				argv[i + 1], mrr_trace_strerror(ret));
			goto out_abort;
		}
		mrr_trace_writer_abort(w);
		printf("copied %" PRIu64 " events and %" PRIu64
		       " files, left uncommitted\n",
		       copied, files.count);
		mrr_trace_close(r);
		return 0;
	}
	if (!changed && buffer_arg >= 0) {
		fprintf(stderr,
			"trace_edit: event %" PRId64 " is no buffer flush\n",
			buffer_arg);
		ret = 3;
		goto out_abort;
	}
	if (!changed && digest >= 0) {
		fprintf(stderr,
			"trace_edit: the trace has %" PRId64 " events with a "
			"digest, not %" PRId64 "\n",
			digests, digest);
		ret = 3;
		goto out_abort;
	}
	if (!changed && swap >= 0) {
		fprintf(stderr,
			"trace_edit: no events %" PRId64 " and %" PRId64 "\n",
			swap, swap + 1);
		ret = 3;
		goto out_abort;
	}
	if (!changed) {
		fprintf(stderr,
			"trace_edit: the trace has %d SYSCALL events with nr "
			"%" PRId64 ", not %" PRId64 "\n",
			seen, nr, nth);
		ret = 3;
		goto out_abort;
	}
	mrr_trace_committed(r, &end, &message);
	ret = mrr_trace_writer_finish(w, end, message);
	if (ret) {
		fprintf(stderr, "trace_edit: cannot commit %s: %s\n",
			argv[i + 1], mrr_trace_strerror(ret));
		goto out_close_reader;
	}
	mrr_trace_close(r);
	free(held.writes);
	free(held.bytes);
	free(changed_extra);
	return 0;

out_abort:
	mrr_trace_writer_abort(w);
out_close_reader:
	mrr_trace_close(r);
	return ret == 3 ? 3 : 1;
}
