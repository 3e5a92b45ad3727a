/* trace_pagewrite IN OUT: copies trace IN to OUT through the trace API and
 * gives the first syscall event that writes memory one more write, of 16
 * bytes of int3 over mrr's page (0x700000000000), where no recording writes.
 * A replay of OUT must refuse the trace as corrupt (exit 65), not take mrr's
 * page away from itself.
 *
 * Exit status: 0 done, 1 error (one line on stderr), 2 usage. */
#include "core/events.h"
#include "core/tracee.h"
#include "mrr/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, int err)
{
	fprintf(stderr, "trace_pagewrite: %s: %s\n", what,
		mrr_trace_strerror(err));
	exit(1);
}

static int copy_one_file(const char *name, uint64_t size, void *arg)
{
	void **rw = arg;
	char path[4096], stored[MRR_STORED_NAME_MAX];
	int ret;

	(void)size;
	ret = mrr_trace_file_path(rw[0], name, path, sizeof(path));
	if (!ret)
		ret = mrr_trace_writer_store_file(rw[1], path, stored);
	return ret;
}

int main(int argc, char **argv)
{
	static const unsigned char int3[16] = {
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc};
	struct mrr_mem_write writes[65];
	enum mrr_trace_end end = MRR_END_COMPLETE;
	const char *why = NULL;
	mrr_trace_reader *r;
	mrr_trace_writer *w;
	struct mrr_event ev;
	char msg[512];
	void *rw[2];
	int ret, done = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: trace_pagewrite IN OUT\n");
		return 2;
	}
	ret = mrr_trace_open(argv[1], 0, &r, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "trace_pagewrite: %s\n", msg);
		return 1;
	}
	ret = mrr_trace_writer_create(argv[2], mrr_trace_info(r), 0, &w);
	if (ret)
		die(argv[2], ret);
	rw[0] = r;
	rw[1] = w;
	ret = mrr_trace_for_each_file(r, copy_one_file, rw);
	if (ret)
		die("copying the stored files", ret);
	while ((ret = mrr_trace_next(r, &ev)) == 1) {
		if (!done && ev.kind == MRR_EV_SYSCALL && ev.nwrites > 0 &&
		    ev.nwrites < 64) {
			memcpy(writes, ev.writes,
			       ev.nwrites * sizeof(writes[0]));
			writes[ev.nwrites].addr = MRR_PAGE_ADDR;
			writes[ev.nwrites].len = sizeof(int3);
			writes[ev.nwrites].data = int3;
			ev.writes = writes;
			ev.nwrites++;
			done = 1;
		}
		ret = mrr_trace_writer_append(w, &ev, NULL);
		if (ret)
			die("appending", ret);
	}
	if (ret < 0)
		die(argv[1], ret);
	if (!done) {
		fprintf(stderr, "trace_pagewrite: no syscall event writes "
				"memory\n");
		return 1;
	}
	mrr_trace_committed(r, &end, &why);
	ret = mrr_trace_writer_finish(w, end, why);
	mrr_trace_close(r);
	if (ret)
		die("committing", ret);
	return 0;
}
