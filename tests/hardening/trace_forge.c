/* trace_forge: makes hostile and huge traces for the hardening tests and the
 * dump benchmark, and measures what reading them costs.
 *
 *   trace_forge exe PATH IN OUT
 *       Copies trace IN to OUT (through the trace API) with the header's
 *       program path set to PATH: the header no longer names what the
 *       first exec event runs.
 *   trace_forge bomb MIB IN OUT
 *       Copies the events of IN up to its first syscall event with memory
 *       writes, then gives that event one more write of MIB MiB of zeros
 *       (at 0x100000000000, where nothing is mapped) and ends the trace
 *       there, committed as complete. The chunk holding it is written below
 *       the API with a streaming compressor: a 2 GiB write takes about
 *       70 KB on disk and little memory to make.
 *   trace_forge scale OUT MMAPS CLONES TIDS
 *       A synthetic trace for `mrr dump`: an exec, MMAPS anonymous mmaps at
 *       distinct addresses, CLONES forks spread among them (the children
 *       exit at the end), and TIDS getpid calls each from another tid.
 *       Nothing in it replays.
 *   trace_forge maxrss FILE CMD [ARGS...]
 *       Runs CMD, writes its peak resident set size in KiB into FILE, and
 *       exits with its status (128+N if signal N killed it).
 *
 * Exit status: 0 done, 1 error (one line on stderr), 2 usage.
 */
#include "core/events.h"
#include "mrr/trace.h"
#include "trace/format.h"
#include "trace/xxh64.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zstd.h>

static void usage(void)
{
	fprintf(stderr, "usage: trace_forge exe PATH IN OUT\n"
			"       trace_forge bomb MIB IN OUT\n"
			"       trace_forge scale OUT MMAPS CLONES TIDS\n"
			"       trace_forge maxrss FILE CMD [ARGS...]\n");
	exit(2);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "trace_forge: %s: %s\n", what, mrr_trace_strerror(err));
	exit(1);
}

static int copy_one_file(const char *name, uint64_t size, void *arg)
{
	void **rw = arg;
	char path[PATH_MAX], stored[MRR_STORED_NAME_MAX];
	int ret;

	(void)size;
	ret = mrr_trace_file_path(rw[0], name, path, sizeof(path));
	if (!ret)
		ret = mrr_trace_writer_store_file(rw[1], path, stored);
	return ret;
}

/* Opens IN and creates OUT with IN's header (exe replaced when given) and
 * stored files. */
static void open_copy(const char *in, const char *out, const char *exe,
		      mrr_trace_reader **r, mrr_trace_writer **w)
{
	struct mrr_trace_info info;
	char msg[512];
	void *rw[2];
	int ret;

	ret = mrr_trace_open(in, 0, r, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "trace_forge: %s\n", msg);
		exit(1);
	}
	info = *mrr_trace_info(*r);
	if (exe)
		info.exe = exe;
	ret = mrr_trace_writer_create(out, &info, 0, w);
	if (ret)
		die(out, ret);
	rw[0] = *r;
	rw[1] = *w;
	ret = mrr_trace_for_each_file(*r, copy_one_file, rw);
	if (ret)
		die("copying the stored files", ret);
}

static int forge_exe(const char *exe, const char *in, const char *out)
{
	mrr_trace_reader *r;
	mrr_trace_writer *w;
	struct mrr_event ev;
	enum mrr_trace_end end = MRR_END_COMPLETE;
	const char *why = NULL;
	int ret;

	open_copy(in, out, exe, &r, &w);
	while ((ret = mrr_trace_next(r, &ev)) == 1) {
		ret = mrr_trace_writer_append(w, &ev, NULL);
		if (ret)
			die("appending", ret);
	}
	if (ret < 0)
		die(in, ret);
	mrr_trace_committed(r, &end, &why);
	ret = mrr_trace_writer_finish(w, end, why);
	mrr_trace_close(r);
	if (ret)
		die("committing", ret);
	return 0;
}

/* ---- bomb: one chunk written below the API ---- */

struct chunk_out {
	ZSTD_CCtx *cctx;
	uint8_t *comp;
	size_t comp_len, comp_cap;
};

static void chunk_feed(struct chunk_out *c, const void *data, size_t len,
		       ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {data, len, 0};

	for (;;) {
		ZSTD_outBuffer out;
		size_t left;

		if (c->comp_cap - c->comp_len < (1u << 16)) {
			c->comp_cap = c->comp_cap * 2 + (1u << 20);
			c->comp = realloc(c->comp, c->comp_cap);
			if (!c->comp)
				die("compressing", -ENOMEM);
		}
		out.dst = c->comp + c->comp_len;
		out.size = c->comp_cap - c->comp_len;
		out.pos = 0;
		left = ZSTD_compressStream2(c->cctx, &out, &in, mode);
		if (ZSTD_isError(left)) {
			fprintf(stderr, "trace_forge: zstd: %s\n",
				ZSTD_getErrorName(left));
			exit(1);
		}
		c->comp_len += out.pos;
		if (in.pos == in.size && (mode != ZSTD_e_end || left == 0))
			break;
	}
}

/* The event's encoding (FORMAT.md section 6) up to its data bytes. */
static size_t encode_head(uint8_t *p, const struct mrr_event *ev,
			  uint64_t bomb_len)
{
	uint64_t v[14];
	size_t n = 0;
	int i;

	v[0] = ev->kind;
	v[1] = ev->flags;
	v[2] = zigzag(ev->tid);
	v[3] = ev->ip;
	v[4] = zigzag(ev->nr);
	for (i = 0; i < 6; i++)
		v[5 + i] = ev->args[i];
	v[11] = zigzag(ev->result);
	v[12] = ev->nwrites + 1;
	v[13] = ev->extra_len;
	for (i = 0; i < 14; i++)
		n += put_varint(p + n, v[i]);
	for (uint32_t k = 0; k < ev->nwrites; k++) {
		n += put_varint(p + n, ev->writes[k].addr);
		n += put_varint(p + n, ev->writes[k].len);
	}
	n += put_varint(p + n, 0x100000000000ull);
	n += put_varint(p + n, bomb_len);
	return n;
}

static void rewrite_commit(const char *out, uint64_t events, uint64_t chunks,
			   uint64_t stream_len)
{
	char path[PATH_MAX];
	uint8_t c[TRACE_COMMIT_FIXED + TRACE_MESSAGE_MAX + 8];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/commit", out);
	f = fopen(path, "r+b");
	if (!f)
		die(path, -errno);
	len = fread(c, 1, sizeof(c), f);
	if (len < TRACE_COMMIT_FIXED + 8)
		die(path, -EIO);
	put_le64(c + 16, events);
	put_le64(c + 24, chunks);
	put_le64(c + 32, stream_len);
	put_le64(c + len - 8, trace_xxh64(c, len - 8, 0));
	if (fseek(f, 0, SEEK_SET) || fwrite(c, 1, len, f) != len || fclose(f))
		die(path, -EIO);
}

static int forge_bomb(uint64_t mib, const char *in, const char *out)
{
	static uint8_t zeros[1 << 20];
	struct chunk_out c = {0};
	struct mrr_trace_stats ts;
	mrr_trace_reader *r;
	mrr_trace_writer *w;
	struct mrr_event ev;
	uint8_t head[16 * 10 + 65537 * 20], hdr[TRACE_CHUNK_HDR];
	uint64_t bomb_len, data_len, raw_len, seq = 0, left;
	char path[PATH_MAX];
	size_t hlen;
	FILE *f;
	int ret;

	open_copy(in, out, NULL, &r, &w);
	while ((ret = mrr_trace_next(r, &ev)) == 1) {
		if (ev.kind == MRR_EV_SYSCALL && ev.nwrites > 0 &&
		    ev.nwrites < MRR_MAX_WRITES_PER_EVENT)
			break;
		ret = mrr_trace_writer_append(w, &ev, &seq);
		if (ret)
			die("appending", ret);
	}
	if (ret != 1)
		die("no syscall event with writes", ret ? ret : -ENOENT);
	data_len = ev.extra_len;
	for (uint32_t k = 0; k < ev.nwrites; k++)
		data_len += ev.writes[k].len;
	bomb_len = mib << 20;
	if (bomb_len > MRR_MAX_EVENT_BYTES - data_len)
		bomb_len = MRR_MAX_EVENT_BYTES - data_len;
	hlen = encode_head(head, &ev, bomb_len);
	raw_len = hlen + data_len + bomb_len;

	c.cctx = ZSTD_createCCtx();
	if (!c.cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c.cctx, ZSTD_c_compressionLevel,
						1)) ||
	    ZSTD_isError(
		    ZSTD_CCtx_setParameter(c.cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(c.cctx, raw_len)))
		die("zstd setup", -ENOMEM);
	chunk_feed(&c, head, hlen, ZSTD_e_continue);
	chunk_feed(&c, ev.extra, ev.extra_len, ZSTD_e_continue);
	for (uint32_t k = 0; k < ev.nwrites; k++)
		chunk_feed(&c, ev.writes[k].data, ev.writes[k].len,
			   ZSTD_e_continue);
	for (left = bomb_len; left;) {
		size_t n = left < sizeof(zeros) ? left : sizeof(zeros);

		chunk_feed(&c, zeros, n, ZSTD_e_continue);
		left -= n;
	}
	chunk_feed(&c, NULL, 0, ZSTD_e_end);
	ZSTD_freeCCtx(c.cctx);
	mrr_trace_close(r); /* ev and its data are not used from here on */

	seq = mrr_trace_writer_events(w);
	ret = mrr_trace_writer_finish(w, MRR_END_COMPLETE, NULL);
	if (ret)
		die("committing", ret);
	/* the chunk count of the copy, from reading it back */
	ret = mrr_trace_open(out, 0, &r, NULL, 0);
	if (ret)
		die(out, ret);
	while ((ret = mrr_trace_next(r, &ev)) == 1)
		;
	mrr_trace_stats(r, &ts);
	mrr_trace_close(r);

	memset(hdr, 0, sizeof(hdr));
	put_le32(hdr, TRACE_CHUNK_MAGIC);
	put_le32(hdr + 4, (uint32_t)c.comp_len);
	put_le32(hdr + 8, (uint32_t)raw_len);
	put_le32(hdr + 12, 1);
	put_le64(hdr + 16, seq);
	put_le32(hdr + 24, (uint32_t)trace_xxh64(c.comp, c.comp_len, 0));
	put_le32(hdr + 28, (uint32_t)trace_xxh64(hdr, 28, 0));
	snprintf(path, sizeof(path), "%s/events", out);
	f = fopen(path, "ab");
	if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    fwrite(c.comp, 1, c.comp_len, f) != c.comp_len || fclose(f))
		die(path, -EIO);
	rewrite_commit(out, seq + 1, ts.chunks + 1,
		       ts.compressed_bytes + sizeof(hdr) + c.comp_len);
	free(c.comp);
	return 0;
}

/* ---- scale: many mappings, forks and tids ---- */

static void append(mrr_trace_writer *w, struct mrr_event *ev)
{
	int ret = mrr_trace_writer_append(w, ev, NULL);

	if (ret)
		die("appending", ret);
}

static int forge_scale(const char *out, long mmaps, long clones, long tids)
{
	static const char argv_blob[] = "/forged\0";
	struct mrr_trace_info info = {0};
	struct {
		struct mrr_exec_extra x;
		char path[8];
	} exec_extra;
	mrr_trace_writer *w;
	struct mrr_event ev;
	int32_t tid = 1000, next_tid = 2000;
	long step, forks = 0;
	int ret;

	snprintf(info.mrr_version, sizeof(info.mrr_version), "forged");
	info.cwd = "/";
	info.exe = "/forged";
	info.argv = argv_blob;
	info.argv_len = sizeof(argv_blob) - 1;
	info.env = "";
	info.env_len = 0;
	ret = mrr_trace_writer_create(out, &info, 0, &w);
	if (ret)
		die(out, ret);

	memset(&exec_extra, 0, sizeof(exec_extra));
	memcpy(exec_extra.path, "/forged", 8);
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRR_EV_EXEC;
	ev.tid = tid;
	ev.nr = SYS_execve;
	ev.extra = &exec_extra;
	ev.extra_len = sizeof(exec_extra);
	append(w, &ev);

	/* forks spread evenly among the mappings, each copying those made
	 * before it */
	step = clones && mmaps / clones > 0 ? mmaps / clones : 1;
	for (long i = 0; i < mmaps || forks < clones; i++) {
		if (i < mmaps) {
			memset(&ev, 0, sizeof(ev));
			ev.kind = MRR_EV_SYSCALL;
			ev.tid = tid;
			ev.nr = SYS_mmap;
			ev.args[1] = 4096;
			ev.args[2] = 3;	   /* PROT_READ | PROT_WRITE */
			ev.args[3] = 0x22; /* MAP_PRIVATE | MAP_ANONYMOUS */
			ev.args[4] = (uint64_t)-1;
			/* top down, with gaps, as the kernel places them */
			ev.result = (int64_t)(0x7f0000000000ull -
					      (uint64_t)i * 0x2000);
			append(w, &ev);
		}
		if (forks < clones && (i >= mmaps || (i + 1) % step == 0)) {
			int32_t child = next_tid++;

			forks++;
			memset(&ev, 0, sizeof(ev));
			ev.kind = MRR_EV_SYSCALL;
			ev.tid = tid;
			ev.nr = SYS_clone;
			ev.args[0] = 17; /* SIGCHLD */
			ev.result = child;
			append(w, &ev);
		}
	}
	/* the children live to the end, each with its copy of the map */
	for (int32_t child = 2000; child < 2000 + forks; child++) {
		memset(&ev, 0, sizeof(ev));
		ev.kind = MRR_EV_EXIT;
		ev.tid = child;
		ev.nr = SYS_exit_group;
		append(w, &ev);
	}
	for (long i = 0; i < tids; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.kind = MRR_EV_SYSCALL;
		ev.tid = next_tid++;
		ev.nr = SYS_getpid;
		ev.result = ev.tid;
		append(w, &ev);
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRR_EV_EXIT;
	ev.tid = tid;
	ev.nr = SYS_exit_group;
	append(w, &ev);
	ret = mrr_trace_writer_finish(w, MRR_END_COMPLETE, NULL);
	if (ret)
		die("committing", ret);
	return 0;
}

/* ---- maxrss ---- */

static int maxrss(const char *file, char **cmd)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "trace_forge: cannot run %s\n", cmd[0]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4", -errno);
	f = fopen(file, "w");
	if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f))
		die(file, -EIO);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static long num(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end || v < 0)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "exe") && argc == 5)
		return forge_exe(argv[2], argv[3], argv[4]);
	if (!strcmp(argv[1], "bomb") && argc == 5)
		return forge_bomb((uint64_t)num(argv[2]), argv[3], argv[4]);
	if (!strcmp(argv[1], "scale") && argc == 6)
		return forge_scale(argv[2], num(argv[3]), num(argv[4]),
				   num(argv[5]));
	if (!strcmp(argv[1], "maxrss") && argc >= 4)
		return maxrss(argv[2], argv + 3);
	usage();
	return 2;
}
