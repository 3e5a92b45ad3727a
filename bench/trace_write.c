/* Trace writer throughput on a synthetic but realistic event mix: mostly
 * syscalls with small out-parameters (stat buffers, short reads, random
 * bytes), some large file reads, rdtsc traps, signals and syscall-buffer
 * flushes. Prints raw event bytes per second, events per second and the
 * compression ratio, then reads the trace back and prints reader throughput.
 *
 * Usage: bench_trace_write [events (default 1000000)] [dir (default: a new
 * directory in $TMPDIR or /tmp, removed afterwards)] [--sync]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrr/trace.h"

#define POOL (4u << 20)

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Byte pools of different entropy that events borrow their data from. */
static uint8_t *noise, *text, *structs;

static void make_pools(void)
{
	static const char *words[] = {"the ",	 "mrr ",   "trace ", "record ",
				      "replay ", "event ", "file ",  "data ",
				      "\n",	 "int ",   "0x7ff",  "= "};

	noise = malloc(POOL);
	text = malloc(POOL);
	structs = calloc(1, POOL);
	if (!noise || !text || !structs)
		exit(1);
	for (size_t i = 0; i < POOL; i += 8) {
		uint64_t v = rnd();

		memcpy(noise + i, &v, 8);
	}
	for (size_t i = 0; i < POOL;) {
		const char *w = words[rnd() % 12];
		size_t n = strlen(w);

		if (i + n > POOL)
			n = POOL - i;
		memcpy(text + i, w, n);
		i += n;
	}
	/* Mostly zero fields with a few small numbers and pointers, like
	 * struct stat or struct timespec. */
	for (size_t i = 0; i < POOL; i += 16) {
		uint64_t v = rnd();

		if (v % 3 == 0)
			memcpy(structs + i, &v, 4);
		if (v % 5 == 0) {
			uint64_t p = 0x7ffd00000000ull + (v & 0xfffff0);

			memcpy(structs + i + 8, &p, 8);
		}
	}
}

static const void *pick(size_t len)
{
	uint64_t r = rnd();
	size_t off = (size_t)(r >> 8) % (POOL - len);

	switch (r % 8) {
	case 0:
		return noise + off;
	case 1:
	case 2:
	case 3:
		return text + off;
	default:
		return structs + (off & ~(size_t)15);
	}
}

static int rm_tree(const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", path);
	return system(cmd);
}

int main(int argc, char **argv)
{
	uint64_t nevents = 1000000;
	const char *dir = NULL;
	char tmpdir[4096];
	unsigned flags = 0;
	int argi = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sync"))
			flags |= MRR_WRITER_SYNC;
		else if (argi++ == 0)
			nevents = strtoull(argv[i], NULL, 10);
		else
			dir = argv[i];
	}
	if (!dir) {
		const char *base = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/mrr-bench-trace-XXXXXX",
			 base ? base : "/tmp");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			return 1;
		}
		dir = tmpdir;
	}
	make_pools();

	struct mrr_trace_info info;

	memset(&info, 0, sizeof(info));
	strcpy(info.mrr_version, "bench");
	info.cwd = "/";
	info.exe = "/bin/bench";

	mrr_trace_writer *w;
	int ret = mrr_trace_writer_create(dir, &info, flags, &w);

	if (ret) {
		fprintf(stderr, "cannot create %s: %s\n", dir,
			mrr_trace_strerror(ret));
		return 1;
	}

	uint64_t raw = 0;
	uint64_t counts[MRR_EV_KIND_MAX + 1] = {0};
	struct mrr_mem_write writes[4];
	uint8_t extra[136];
	double t0 = now();

	for (uint64_t i = 0; i < nevents; i++) {
		struct mrr_event ev;
		uint64_t r = rnd();
		unsigned what = r % 100;

		memset(&ev, 0, sizeof(ev));
		ev.tid = 4000 + (int32_t)(r >> 40) % 4;
		ev.ip = 0x7f1234560000ull + ((r >> 8) & 0xffff);
		ev.kind = MRR_EV_SYSCALL;
		ev.nr = (int64_t)((r >> 16) % 300);
		for (int a = 0; a < 6; a++)
			ev.args[a] = a < 3 ? 0x7ffd0000a000ull + a * 64 : 0;
		if (what < 55) {
			/* Small out-parameters: 8..256 bytes. */
			size_t len = 8 + (r >> 24) % 249;

			writes[0].addr =
				0x7ffd0000a000ull + ((r >> 32) & 0xff0);
			writes[0].len = len;
			writes[0].data = pick(len);
			ev.nwrites = 1;
			ev.writes = writes;
			ev.result = (int64_t)len;
		} else if (what < 70) {
			/* No memory written (close, getpid, ...). */
			ev.result = (int64_t)(r % 3);
		} else if (what < 73) {
			/* A larger read: 4..64 KiB. */
			size_t len = 4096 + (r >> 24) % 61440;

			writes[0].addr =
				0x55550000000ull + ((r >> 20) & 0xfff000);
			writes[0].len = len;
			writes[0].data = pick(len);
			ev.nwrites = 1;
			ev.writes = writes;
			ev.nr = 0;
			ev.result = (int64_t)len;
		} else if (what < 90) {
			ev.kind = MRR_EV_RDTSC;
			ev.nr = 0;
			ev.args[0] = 0x1234567890ull + i * 2000;
			ev.args[1] = 0;
			ev.args[2] = 2;
		} else if (what < 98) {
			/* A syscall-buffer flush: several small records. */
			ev.kind = MRR_EV_BUFFER;
			ev.nwrites = 1 + (uint32_t)(r >> 30) % 4;
			for (uint32_t k = 0; k < ev.nwrites; k++) {
				size_t len = 16 + (rnd() % 512);

				writes[k].addr = 0x70000000ull + k * 4096;
				writes[k].len = len;
				writes[k].data = pick(len);
			}
			ev.writes = writes;
			ev.flags = MRR_EVF_BUFFERED;
		} else {
			ev.kind = MRR_EV_SIGNAL;
			ev.nr = 17;
			memcpy(extra, pick(sizeof(extra)), sizeof(extra));
			ev.extra = extra;
			ev.extra_len = sizeof(extra);
		}
		ret = mrr_trace_writer_append(w, &ev, NULL);
		if (ret) {
			fprintf(stderr, "append failed: %s\n",
				mrr_trace_strerror(ret));
			return 1;
		}
		counts[ev.kind]++;
		raw += ev.extra_len;
		for (uint32_t k = 0; k < ev.nwrites; k++)
			raw += ev.writes[k].len;
	}
	ret = mrr_trace_writer_finish(w, MRR_END_COMPLETE, "bench");
	double t1 = now();

	if (ret) {
		fprintf(stderr, "finish failed: %s\n", mrr_trace_strerror(ret));
		return 1;
	}

	mrr_trace_reader *r;
	char err[512];
	struct mrr_event ev;
	uint64_t nread = 0;

	ret = mrr_trace_open(dir, 0, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	while ((ret = mrr_trace_next(r, &ev)) == 1)
		nread++;
	double t2 = now();

	if (ret < 0 || nread != nevents) {
		fprintf(stderr, "read back %llu of %llu events: %s\n",
			(unsigned long long)nread, (unsigned long long)nevents,
			mrr_trace_error_message(r));
		return 1;
	}
	struct mrr_trace_stats st;

	mrr_trace_stats(r, &st);
	mrr_trace_close(r);

	double wsec = t1 - t0, rsec = t2 - t1;

	printf("events:            %llu (syscall %llu, rdtsc %llu, buffer "
	       "%llu, signal %llu)%s\n",
	       (unsigned long long)nevents,
	       (unsigned long long)counts[MRR_EV_SYSCALL],
	       (unsigned long long)counts[MRR_EV_RDTSC],
	       (unsigned long long)counts[MRR_EV_BUFFER],
	       (unsigned long long)counts[MRR_EV_SIGNAL],
	       flags & MRR_WRITER_SYNC ? " [sync]" : "");
	printf("memory+extra data: %.1f MB\n", raw / 1e6);
	printf("event stream:      %.1f MB raw, %.1f MB on disk in %llu "
	       "chunks\n",
	       st.raw_bytes / 1e6, st.compressed_bytes / 1e6,
	       (unsigned long long)st.chunks);
	printf("compression ratio: %.2f\n",
	       (double)st.raw_bytes / (double)st.compressed_bytes);
	printf("writer:            %.1f MB/s of raw event bytes, %.0f "
	       "events/s (%.2f s)\n",
	       st.raw_bytes / 1e6 / wsec, nevents / wsec, wsec);
	printf("reader:            %.1f MB/s of raw event bytes, %.0f "
	       "events/s (%.2f s)\n",
	       st.raw_bytes / 1e6 / rsec, nevents / rsec, rsec);
	if (dir == tmpdir && rm_tree(dir))
		fprintf(stderr, "could not remove %s\n", dir);
	return 0;
}
