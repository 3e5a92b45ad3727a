/* libFuzzer target for the syscall buffer record walker (sbuf_next): the
 * recorder runs it on bytes the recorded program may have scribbled over,
 * and the replayer and dump on trace contents. Any input must end in 0 or
 * -EBADMSG, never a crash or a read outside the input, and every record it
 * returns must lie inside the input.
 *
 * Built with -DSBUF_SEEDS instead, this file is a program that writes a
 * seed corpus of well-formed flushes into the directory argv[1]. */
#include "core/sbuf_records.h"
#include "syscallbuf/calls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SBUF_SEEDS

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	const struct mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	uint8_t *recs;
	char err[200], line[200];
	size_t off = 0, prev;
	int k;

	/* The walker requires 8-aligned records, as malloc gives. */
	recs = malloc(len ? len : 1);
	if (!recs)
		return 0;
	memcpy(recs, in, len);
	for (;;) {
		prev = off;
		k = sbuf_next(recs, len, &off, &rec, &data, err, sizeof(err));
		if (k <= 0)
			break;
		if (off <= prev || off > len ||
		    (const uint8_t *)rec != recs + prev ||
		    data + rec->data_len > recs + off ||
		    !sbuf_call_name(rec->nr))
			abort();
		sbuf_describe(rec, line, sizeof(line));
	}
	if (k == 0 ? off != len : (k != -EBADMSG || off != prev || !err[0]))
		abort();
	free(recs);
	return 0;
}

#else

static uint8_t flush[4096];
static size_t flush_len;

static void add(uint32_t nr, int64_t result, uint32_t data_len)
{
	struct mrr_syscallbuf_rec r = {0};

	r.size = (uint32_t)((sizeof(r) + data_len + 7) & ~7ul);
	r.nr = nr;
	r.result = result;
	r.args[0] = 3;
	r.args[1] = 0x7ffc1000;
	r.args[2] = data_len;
	r.data_len = data_len;
	memcpy(flush + flush_len, &r, sizeof(r));
	memset(flush + flush_len + sizeof(r), 0xa5, data_len);
	flush_len += r.size;
}

static int save(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(flush, 1, flush_len, f) != flush_len ||
	    fclose(f) != 0) {
		perror(path);
		return -1;
	}
	flush_len = 0;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	add(__NR_pread64, 64, 64);
	add(__NR_pread64, 61, 61);
	add(__NR_read, 0, 0);
	if (save(argv[1], "reads") < 0)
		return 1;
	add(__NR_fstat, 0, MRR_SB_STAT_SIZE);
	add(__NR_newfstatat, -ENOENT, 0);
	add(__NR_statx, 0, MRR_SB_STATX_SIZE);
	if (save(argv[1], "stats") < 0)
		return 1;
	add(__NR_clock_gettime, 0, MRR_SB_TIMESPEC_SIZE);
	add(__NR_gettimeofday, 0, MRR_SB_TIMEVAL_SIZE);
	add(__NR_time, 1700000000, MRR_SB_TIME_SIZE);
	add(__NR_time, 1700000000, 0);
	add(__NR_getpid, 100, 0);
	add(__NR_gettid, 100, 0);
	add(__NR_getrandom, 16, 16);
	if (save(argv[1], "time_ids") < 0)
		return 1;
	add(__NR_readv, 1600, 1600);
	add(__NR_lseek, 42, 0);
	add(__NR_close, 0, 0);
	add(__NR_madvise, 0, 0);
	if (save(argv[1], "misc") < 0)
		return 1;
	/* Calls buffered since issue 14: fds and ids have result rules. */
	add(__NR_openat, 3, 0);
	add(__NR_openat, -ENOENT, 0);
	add(__NR_access, -ENOENT, 0);
	add(__NR_readlink, 4, 4);
	add(__NR_readlinkat, -EINVAL, 0);
	add(__NR_getuid, 1000, 0);
	add(__NR_getgid, 0, 0);
	add(__NR_geteuid, 4294967295ll, 0);
	add(__NR_getegid, 65534, 0);
	if (save(argv[1], "open_ids") < 0)
		return 1;
	return 0;
}

#endif
