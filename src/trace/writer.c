/* Trace writer: header at create, chunks of events as they fill, stored files
 * on demand, and the commit last (trace-format/FORMAT.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrr/trace.h"
#include "trace/chunkq.h"
#include "trace/format.h"
#include "trace/io.h"
#include "trace/xxh64.h"

/* A file stored earlier, remembered so that storing it again skips hashing. */
struct stored_memo {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool linked;
	char name[MRR_STORED_NAME_MAX];
};

struct mrr_trace_writer {
	int parent_fd; /* where the trace directory was made, as name */
	char name[NAME_MAX + 1];
	int dir_fd;
	int files_fd;
	int events_fd;
	unsigned flags;
	bool started; /* the header is written */
	int err; /* sticky: once a write failed, the trace cannot be committed;
		  * -EINVAL until the header is written */

	uint64_t next_seq;
	uint64_t chunk_first_seq;
	uint32_t chunk_events;
	uint64_t header_check;

	uint8_t *raw;
	size_t raw_len;
	size_t raw_cap;
	struct chunkq cq; /* compresses and writes chunks on its thread */

	struct stored_memo *memo;
	size_t nmemo;
	size_t memo_cap;
	unsigned tmp_counter;
};

static int ensure_cap(uint8_t **buf, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 4096;
	uint8_t *nbuf;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap = ncap * 2 > ncap ? ncap * 2 : need;
	nbuf = realloc(*buf, ncap);
	if (!nbuf)
		return -ENOMEM;
	*buf = nbuf;
	*cap = ncap;
	return 0;
}

static size_t str_field_len(const char *s)
{
	return s ? strlen(s) + 1 : 1;
}

static void copy_fixed(uint8_t *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memset(dst, 0, size);
	memcpy(dst, src, n);
}

static int write_header(mrr_trace_writer *w, const struct mrr_trace_info *info)
{
	size_t cwd_len = str_field_len(info->cwd);
	size_t exe_len = str_field_len(info->exe);
	size_t argv_len = info->argv ? info->argv_len : 0;
	size_t env_len = info->env ? info->env_len : 0;
	size_t total;
	uint8_t *buf, *p;
	int fd, ret;

	if (cwd_len > TRACE_STRING_MAX || exe_len > TRACE_STRING_MAX ||
	    argv_len > TRACE_STRING_MAX || env_len > TRACE_STRING_MAX)
		return MRR_E_TOO_BIG;
	if ((argv_len && info->argv[argv_len - 1]) ||
	    (env_len && info->env[env_len - 1]))
		return -EINVAL;
	total = TRACE_HEADER_FIXED + cwd_len + exe_len + argv_len + env_len + 8;
	buf = calloc(1, total);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, TRACE_HEADER_MAGIC, 8);
	put_le32(buf + 8, MRR_TRACE_FORMAT_VERSION);
	put_le32(buf + 12, (uint32_t)total);
	put_le32(buf + 16, info->flags);
	put_le32(buf + 20, info->syscallbuf_abi);
	put_le64(buf + 24, (uint64_t)info->start_time_ns);
	/* A random id makes every trace's header, and so the checksum the
	 * commit repeats, unique: a commit cannot complete another trace. */
	if (getrandom(buf + 32, 16, 0) != 16) {
		ret = -EIO;
		goto out_free;
	}
	copy_fixed(buf + 48, info->mrr_version, sizeof(info->mrr_version));
	copy_fixed(buf + 80, info->kernel, sizeof(info->kernel));
	copy_fixed(buf + 208, info->cpu, sizeof(info->cpu));
	put_le32(buf + 336, (uint32_t)cwd_len);
	put_le32(buf + 340, (uint32_t)exe_len);
	put_le32(buf + 344, (uint32_t)argv_len);
	put_le32(buf + 348, (uint32_t)env_len);
	p = buf + TRACE_HEADER_FIXED;
	if (info->cwd)
		memcpy(p, info->cwd, cwd_len);
	p += cwd_len;
	if (info->exe)
		memcpy(p, info->exe, exe_len);
	p += exe_len;
	if (argv_len)
		memcpy(p, info->argv, argv_len);
	p += argv_len;
	if (env_len)
		memcpy(p, info->env, env_len);
	p += env_len;
	w->header_check = trace_xxh64(buf, total - 8, 0);
	put_le64(p, w->header_check);

	/* Written under a temporary name so that "header" is whole or absent.
	 */
	fd = trace_create_file_at(w->dir_fd, TRACE_HEADER_TMP, 0600);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	ret = trace_write_all(fd, buf, total);
	if (!ret && (w->flags & MRR_WRITER_SYNC) && fsync(fd))
		ret = -errno;
	close(fd);
	if (ret)
		goto out_free;
	if (renameat(w->dir_fd, TRACE_HEADER_TMP, w->dir_fd, TRACE_HEADER_NAME))
		ret = -errno;
out_free:
	free(buf);
	return ret;
}

int mrr_trace_writer_open_at(int parent_fd, const char *name, unsigned flags,
			     mrr_trace_writer **out)
{
	mrr_trace_writer *w;
	int ret;

	*out = NULL;
	if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strlen(name) > NAME_MAX ||
	    (flags & ~MRR_WRITER_SYNC))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->flags = flags;
	w->err = -EINVAL;
	w->dir_fd = -1;
	w->files_fd = -1;
	w->events_fd = -1;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->parent_fd = fcntl(parent_fd, F_DUPFD_CLOEXEC, 0);
	if (w->parent_fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/* Always a new directory: one that exists, even empty, may belong to
	 * or be reachable by someone else. */
	ret = trace_mkdir_at(w->parent_fd, name);
	if (ret)
		goto out_free;
	ret = trace_open_new_dir(w->parent_fd, name);
	if (ret < 0)
		goto out_free; /* not the directory we made: leave it alone */
	w->dir_fd = ret;
	ret = trace_mkdir_at(w->dir_fd, TRACE_FILES_DIR);
	if (ret)
		goto out_remove;
	ret = trace_open_new_dir(w->dir_fd, TRACE_FILES_DIR);
	if (ret < 0)
		goto out_remove;
	w->files_fd = ret;
	/* The stream exists before the header, so a trace with a header
	 * always has a stream. */
	ret = trace_create_file_at(w->dir_fd, TRACE_EVENTS_NAME, 0600);
	if (ret < 0)
		goto out_remove;
	w->events_fd = ret;
	ret = chunkq_init(&w->cq, w->events_fd, TRACE_ZSTD_LEVEL);
	if (ret)
		goto out_remove;
	*out = w;
	return 0;
out_remove:
	mrr_trace_writer_remove(w);
	return ret;
out_free:
	mrr_trace_writer_abort(w);
	return ret;
}

int mrr_trace_writer_open(const char *dir, unsigned flags,
			  mrr_trace_writer **out)
{
	char parent[PATH_MAX], *slash, *name;
	size_t len;
	int parent_fd, ret;

	*out = NULL;
	if (!dir || !dir[0])
		return -ENOENT;
	len = strlen(dir);
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, dir, len + 1);
	while (len > 1 && parent[len - 1] == '/')
		parent[--len] = 0;
	slash = strrchr(parent, '/');
	if (!slash) {
		name = parent;
		parent_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		name = slash + 1;
		if (slash == parent)
			parent_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		else {
			*slash = 0;
			parent_fd =
				open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		}
	}
	if (parent_fd < 0)
		return -errno;
	/* "/", "." and ".." exist. */
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		ret = -EEXIST;
	else
		ret = mrr_trace_writer_open_at(parent_fd, name, flags, out);
	close(parent_fd);
	return ret;
}

int mrr_trace_writer_start(mrr_trace_writer *w,
			   const struct mrr_trace_info *info)
{
	int ret;

	if (!w || !info || w->started)
		return -EINVAL;
	ret = write_header(w, info);
	if (!ret) {
		w->started = true;
		w->err = 0;
	}
	return ret;
}

int mrr_trace_writer_create(const char *dir, const struct mrr_trace_info *info,
			    unsigned flags, mrr_trace_writer **out)
{
	mrr_trace_writer *w;
	int ret;

	*out = NULL;
	if (!dir || !info)
		return -EINVAL;
	ret = mrr_trace_writer_open(dir, flags, &w);
	if (ret)
		return ret;
	ret = mrr_trace_writer_start(w, info);
	if (ret) {
		mrr_trace_writer_remove(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* Hands the buffered events to the chunk queue, which compresses them into
 * one chunk and appends it to the stream on its own thread. */
static int write_chunk(mrr_trace_writer *w)
{
	int ret;

	if (w->err)
		return w->err;
	ret = chunkq_err(&w->cq);
	if (ret || !w->chunk_events)
		return ret;
	ret = chunkq_submit(&w->cq, &w->raw, &w->raw_cap, w->raw_len,
			    w->chunk_events, w->chunk_first_seq);
	w->raw_len = 0;
	w->chunk_events = 0;
	w->chunk_first_seq = w->next_seq;
	return ret;
}

static int check_event(const struct mrr_event *ev, uint64_t *size)
{
	uint64_t data = ev->extra_len;

	if (ev->kind < MRR_EV_EXEC || ev->kind > MRR_EV_KIND_MAX ||
	    (ev->flags & ~TRACE_KNOWN_EVF))
		return -EINVAL;
	if (ev->nwrites > MRR_MAX_WRITES_PER_EVENT ||
	    ev->extra_len > MRR_MAX_EXTRA_BYTES)
		return MRR_E_TOO_BIG;
	if ((ev->nwrites && !ev->writes) || (ev->extra_len && !ev->extra))
		return -EINVAL;
	for (uint32_t i = 0; i < ev->nwrites; i++) {
		const struct mrr_mem_write *mw = &ev->writes[i];

		if (mw->len && !mw->data)
			return -EINVAL;
		if (mw->addr + mw->len < mw->addr && mw->addr + mw->len != 0)
			return -EINVAL;
		if (mw->len > MRR_MAX_EVENT_BYTES)
			return MRR_E_TOO_BIG;
		data += mw->len;
		if (data > MRR_MAX_EVENT_BYTES)
			return MRR_E_TOO_BIG;
	}
	*size = data + 14 * 10 + (uint64_t)ev->nwrites * 20;
	return 0;
}

int mrr_trace_writer_append(mrr_trace_writer *w, const struct mrr_event *ev,
			    uint64_t *seq_out)
{
	uint64_t size;
	uint8_t *p;
	int ret;

	if (w->err)
		return w->err;
	ret = chunkq_err(&w->cq);
	if (ret)
		return ret;
	ret = check_event(ev, &size);
	if (ret)
		return ret;
	if (w->chunk_events && (w->raw_len + size > TRACE_CHUNK_TARGET ||
				w->chunk_events == UINT32_MAX)) {
		ret = write_chunk(w);
		if (ret)
			return ret;
	}
	ret = ensure_cap(&w->raw, &w->raw_cap, w->raw_len + size);
	if (ret)
		return ret;
	p = w->raw + w->raw_len;
	p += put_varint(p, ev->kind);
	p += put_varint(p, ev->flags);
	p += put_varint(p, zigzag(ev->tid));
	p += put_varint(p, ev->ip);
	p += put_varint(p, zigzag(ev->nr));
	for (int i = 0; i < 6; i++)
		p += put_varint(p, ev->args[i]);
	p += put_varint(p, zigzag(ev->result));
	p += put_varint(p, ev->nwrites);
	p += put_varint(p, ev->extra_len);
	for (uint32_t i = 0; i < ev->nwrites; i++) {
		p += put_varint(p, ev->writes[i].addr);
		p += put_varint(p, ev->writes[i].len);
	}
	if (ev->extra_len) {
		memcpy(p, ev->extra, ev->extra_len);
		p += ev->extra_len;
	}
	for (uint32_t i = 0; i < ev->nwrites; i++) {
		if (ev->writes[i].len) {
			memcpy(p, ev->writes[i].data, ev->writes[i].len);
			p += ev->writes[i].len;
		}
	}
	w->raw_len = (size_t)(p - w->raw);
	if (!w->chunk_events)
		w->chunk_first_seq = w->next_seq;
	w->chunk_events++;
	if (seq_out)
		*seq_out = w->next_seq;
	w->next_seq++;
	if (w->raw_len >= TRACE_CHUNK_TARGET)
		return write_chunk(w);
	return 0;
}

int mrr_trace_writer_flush(mrr_trace_writer *w)
{
	return write_chunk(w);
}

uint64_t mrr_trace_writer_events(const mrr_trace_writer *w)
{
	return w->next_seq;
}

static const struct stored_memo *
memo_find(const mrr_trace_writer *w, const struct stat *st, unsigned flags)
{
	for (size_t i = 0; i < w->nmemo; i++) {
		const struct stored_memo *m = &w->memo[i];

		if ((flags & MRR_STORE_COPY) && m->linked)
			continue; /* the link may not hold it any more */
		if (m->dev == st->st_dev && m->ino == st->st_ino &&
		    m->size == st->st_size &&
		    m->mtime.tv_sec == st->st_mtim.tv_sec &&
		    m->mtime.tv_nsec == st->st_mtim.tv_nsec)
			return m;
	}
	return NULL;
}

static void memo_add(mrr_trace_writer *w, const struct stat *st,
		     const char *name, bool linked)
{
	struct stored_memo *m;

	if (w->nmemo == w->memo_cap) {
		size_t ncap = w->memo_cap ? w->memo_cap * 2 : 16;
		struct stored_memo *nm = realloc(w->memo, ncap * sizeof(*nm));

		if (!nm)
			return; /* only an optimisation */
		w->memo = nm;
		w->memo_cap = ncap;
	}
	m = &w->memo[w->nmemo++];
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->size = st->st_size;
	m->mtime = st->st_mtim;
	m->linked = linked;
	snprintf(m->name, sizeof(m->name), "%s", name);
}

static int store_file(mrr_trace_writer *w, const char *local_path,
		      unsigned flags, char name_out[MRR_STORED_NAME_MAX]);

int mrr_trace_writer_store_file(mrr_trace_writer *w, const char *local_path,
				char name_out[MRR_STORED_NAME_MAX])
{
	return store_file(w, local_path, 0, name_out);
}

int mrr_trace_writer_store_file_flags(mrr_trace_writer *w,
				      const char *local_path, unsigned flags,
				      char name_out[MRR_STORED_NAME_MAX])
{
	return store_file(w, local_path, flags, name_out);
}

/* A stored file may be a hard link to the original only when nothing the
 * recorded program can do will change it: the program runs with the
 * recording user's ids, so a file that user may write is copied (and so is
 * every file when recording as root). A set-ID program is copied too, so
 * that the link does not keep it, with its bits, reachable after the system
 * replaced it. */
static bool may_link(int src_fd, const struct stat *st, unsigned flags)
{
	char proc[64];

	if ((flags & MRR_STORE_COPY) || (st->st_mode & (S_ISUID | S_ISGID)))
		return false;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", src_fd);
	if (faccessat(AT_FDCWD, proc, W_OK, AT_EACCESS) == 0)
		return false;
	return errno == EACCES || errno == EPERM || errno == EROFS;
}

/* Copies src_fd into the new file tmp in files_fd, hashing what the copy
 * holds: a reflink where the file system shares blocks, else byte by
 * byte. */
static int copy_file(mrr_trace_writer *w, int src_fd, const char *tmp,
		     mode_t mode, struct trace_xxh64_state *hs, uint64_t *size)
{
	int dst_fd, rd_fd, ret;

	dst_fd = trace_create_file_at(w->files_fd, tmp, mode);
	if (dst_fd < 0)
		return dst_fd;
	if (ioctl(dst_fd, FICLONE, src_fd) == 0) {
		/* Hash the clone, not the source, which may change. */
		rd_fd = openat(w->files_fd, tmp,
			       O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (rd_fd < 0) {
			ret = -errno;
		} else {
			ret = trace_hash_file(rd_fd, -1, hs, size);
			close(rd_fd);
		}
	} else {
		ret = trace_hash_file(src_fd, dst_fd, hs, size);
	}
	if (!ret && (w->flags & MRR_WRITER_SYNC) && fsync(dst_fd))
		ret = -errno;
	close(dst_fd);
	return ret;
}

/* A small file's content, read once into memory: when files/ already
 * holds that content (a file mapped again, another memfd with the same
 * bytes) nothing is written, so storing it needs no disk space; else the
 * copy is written from the very bytes hashed. Returns 0 with the name,
 * 1 when the file is not small (or changed size while read), or -errno. */
#define STORE_SMALL_MAX (1u << 20)
static int store_small(mrr_trace_writer *w, int src_fd, const struct stat *st,
		       const char *tmp, char name[MRR_STORED_NAME_MAX])
{
	uint8_t *buf;
	ssize_t n;
	struct stat have;
	int fd, ret = 0;

	if (st->st_size < 0 || (uint64_t)st->st_size > STORE_SMALL_MAX)
		return 1;
	buf = malloc((size_t)st->st_size + 1);
	if (!buf)
		return -ENOMEM;
	/* one byte more than expected tells a file that grew */
	n = trace_pread_all(src_fd, buf, (size_t)st->st_size + 1, 0);
	if (n != (ssize_t)st->st_size) {
		free(buf);
		return n < 0 ? (int)n : 1;
	}
	snprintf(name, MRR_STORED_NAME_MAX, "%016" PRIx64 "-%" PRIx64,
		 trace_xxh64(buf, (size_t)n, 0), (uint64_t)n);
	/* (a program needs its copy executable) */
	if (fstatat(w->files_fd, name, &have, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(have.st_mode) && have.st_size == n &&
	    (!(st->st_mode & 0111) || (have.st_mode & 0100))) {
		free(buf);
		return 0;
	}
	fd = trace_create_file_at(w->files_fd, tmp,
				  (st->st_mode & 0111) ? 0700 : 0600);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	ret = trace_write_all(fd, buf, (size_t)n);
	if (!ret && (w->flags & MRR_WRITER_SYNC) && fsync(fd))
		ret = -errno;
	close(fd);
	free(buf);
	if (!ret && renameat(w->files_fd, tmp, w->files_fd, name))
		ret = -errno;
	if (ret)
		unlinkat(w->files_fd, tmp, 0);
	return ret;
}

static int store_file_once(mrr_trace_writer *w, const char *local_path,
			   unsigned flags, char name_out[MRR_STORED_NAME_MAX]);

/* A full file system may be the recorded program's doing, for a moment
 * (it holds the space, and frees it later): the space the chunk queue
 * holds for the stream is given to the file, once. */
static int store_file(mrr_trace_writer *w, const char *local_path,
		      unsigned flags, char name_out[MRR_STORED_NAME_MAX])
{
	int ret = store_file_once(w, local_path, flags, name_out);

	if ((ret == -ENOSPC || ret == -EDQUOT) &&
	    chunkq_release_reserve(&w->cq) > 0)
		ret = store_file_once(w, local_path, flags, name_out);
	return ret;
}

static int store_file_once(mrr_trace_writer *w, const char *local_path,
			   unsigned flags, char name_out[MRR_STORED_NAME_MAX])
{
	struct trace_xxh64_state hs;
	char tmp[64], proc[64], name[MRR_STORED_NAME_MAX];
	const struct stored_memo *m;
	struct stat st;
	uint64_t size = 0;
	int src_fd, ret;
	bool linked = false;

	if (w->err)
		return w->err;
	src_fd = open(local_path, O_RDONLY | O_CLOEXEC);
	if (src_fd < 0)
		return -errno;
	if (fstat(src_fd, &st)) {
		ret = -errno;
		goto out_close_src;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out_close_src;
	}
	m = memo_find(w, &st, flags);
	if (m) {
		memcpy(name_out, m->name, MRR_STORED_NAME_MAX);
		ret = 0;
		goto out_close_src;
	}
	snprintf(tmp, sizeof(tmp), ".tmp.%d.%u", (int)getpid(),
		 w->tmp_counter++);
	trace_xxh64_init(&hs, 0);
	/* Link the very inode we opened, then name it by what it holds. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", src_fd);
	if (may_link(src_fd, &st, flags) &&
	    linkat(AT_FDCWD, proc, w->files_fd, tmp, AT_SYMLINK_FOLLOW) == 0) {
		linked = true;
		ret = trace_hash_file(src_fd, -1, &hs, &size);
		if (!ret && (w->flags & MRR_WRITER_SYNC) && fsync(src_fd))
			ret = -errno;
	} else if ((ret = store_small(w, src_fd, &st, tmp, name)) <= 0) {
		if (ret)
			goto out_close_src;
		memcpy(name_out, name, MRR_STORED_NAME_MAX);
		memo_add(w, &st, name, false);
		close(src_fd);
		return 0;
	} else {
		/* Programs stay executable for the replay's execve. */
		ret = copy_file(w, src_fd, tmp,
				(st.st_mode & 0111) ? 0700 : 0600, &hs, &size);
	}
	if (ret)
		goto out_unlink;
	snprintf(name, sizeof(name), "%016" PRIx64 "-%" PRIx64,
		 trace_xxh64_digest(&hs), size);
	if (renameat(w->files_fd, tmp, w->files_fd, name)) {
		ret = -errno;
		goto out_unlink;
	}
	/* rename() of two links to one inode does nothing. */
	if (linked)
		unlinkat(w->files_fd, tmp, 0);
	memcpy(name_out, name, MRR_STORED_NAME_MAX);
	if ((uint64_t)st.st_size == size)
		memo_add(w, &st, name, linked);
	close(src_fd);
	return 0;
out_unlink:
	unlinkat(w->files_fd, tmp, 0);
out_close_src:
	close(src_fd);
	return ret;
}

static int write_commit(mrr_trace_writer *w, enum mrr_trace_end end,
			const char *message)
{
	size_t mlen = message ? strnlen(message, TRACE_MESSAGE_MAX) : 0;
	size_t total = TRACE_COMMIT_FIXED + mlen + 8;
	uint8_t buf[TRACE_COMMIT_FIXED + TRACE_MESSAGE_MAX + 8];
	int fd, ret;

	memcpy(buf, TRACE_COMMIT_MAGIC, 8);
	put_le32(buf + 8, MRR_TRACE_FORMAT_VERSION);
	put_le32(buf + 12, (uint32_t)end);
	put_le64(buf + 16, w->next_seq);
	put_le64(buf + 24, w->cq.chunks);
	put_le64(buf + 32, w->cq.stream_len);
	put_le64(buf + 40, w->header_check);
	put_le32(buf + 48, (uint32_t)mlen);
	if (mlen)
		memcpy(buf + TRACE_COMMIT_FIXED, message, mlen);
	put_le64(buf + TRACE_COMMIT_FIXED + mlen,
		 trace_xxh64(buf, TRACE_COMMIT_FIXED + mlen, 0));

	fd = trace_create_file_at(w->dir_fd, TRACE_COMMIT_TMP, 0600);
	if (fd < 0)
		return fd;
	ret = trace_write_all(fd, buf, total);
	if (!ret && (w->flags & MRR_WRITER_SYNC) && fsync(fd))
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	if (renameat(w->dir_fd, TRACE_COMMIT_TMP, w->dir_fd, TRACE_COMMIT_NAME))
		return -errno;
	if ((w->flags & MRR_WRITER_SYNC) && fsync(w->dir_fd))
		return -errno;
	return 0;
}

int mrr_trace_writer_finish(mrr_trace_writer *w, enum mrr_trace_end end,
			    const char *message)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (end < MRR_END_COMPLETE || end > MRR_END_ERROR) {
		ret = -EINVAL;
		goto out_free;
	}
	ret = write_chunk(w);
	if (!ret)
		ret = chunkq_drain(&w->cq);
	if (ret)
		goto out_free;
	chunkq_release_reserve(&w->cq); /* before the commit: nothing after */
	if (w->flags & MRR_WRITER_SYNC) {
		if (fsync(w->events_fd) || fsync(w->files_fd) ||
		    fsync(w->dir_fd)) {
			ret = -errno;
			goto out_free;
		}
	}
	ret = write_commit(w, end, message);
out_free:
	mrr_trace_writer_abort(w);
	return ret;
}

void mrr_trace_writer_abort(mrr_trace_writer *w)
{
	if (!w)
		return;
	/* What was appended reaches the disk: an aborted trace salvages. */
	chunkq_destroy(&w->cq, false);
	if (w->events_fd >= 0)
		close(w->events_fd);
	if (w->files_fd >= 0)
		close(w->files_fd);
	if (w->dir_fd >= 0)
		close(w->dir_fd);
	if (w->parent_fd >= 0)
		close(w->parent_fd);
	free(w->raw);
	free(w->memo);
	free(w);
}

void mrr_trace_writer_remove(mrr_trace_writer *w)
{
	if (!w)
		return;
	chunkq_destroy(&w->cq, true);
	trace_remove_dir_fds(w->parent_fd, w->name, w->dir_fd, w->files_fd);
	mrr_trace_writer_abort(w);
}
