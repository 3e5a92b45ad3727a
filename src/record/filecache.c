/* The per-user cache of stored files (filecache.h). */
#include "record/filecache.h"

#include "core/log.h"
#include "core/tsc_patch.h"
#include "trace/format.h"
#include "trace/io.h"
#include "trace/xxh64.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "MRRFCE1"
#define SITES_MAGIC "MRRFCS1"
#define RACY_NS	    2000000000ll /* changed this recently: do not enter */
#define MAX_SITES   (1 << 20)

struct filecache {
	int dir_fd;   /* the cache directory itself */
	int files_fd; /* its files/ */
	int index_fd; /* its index/ */
	int sites_fd; /* its sites/ */
	int trace_fd; /* the trace's files/ */
	bool sync;    /* --sync: fsync what a trace links */
};

/* index/KEY: what the cache knows of one source file. */
struct fc_entry {
	char magic[8];
	uint64_t key[7]; /* dev, ino, size, mtime s, ns, ctime s, ns */
	char name[MRR_STORED_NAME_MAX];
	uint64_t obj_ino, obj_size, obj_mtime_s, obj_mtime_ns;
	uint64_t check; /* XXH64 of the bytes before it */
};

static void key_of(const struct stat *st, uint64_t key[7])
{
	key[0] = (uint64_t)st->st_dev;
	key[1] = (uint64_t)st->st_ino;
	key[2] = (uint64_t)st->st_size;
	key[3] = (uint64_t)st->st_mtim.tv_sec;
	key[4] = (uint64_t)st->st_mtim.tv_nsec;
	key[5] = (uint64_t)st->st_ctim.tv_sec;
	key[6] = (uint64_t)st->st_ctim.tv_nsec;
}

static void key_name(const uint64_t key[7], char *buf, size_t len)
{
	snprintf(buf, len,
		 "%" PRIx64 "-%" PRIx64 "-%" PRIx64 "-%" PRIx64 ".%" PRIx64
		 "-%" PRIx64 ".%" PRIx64,
		 key[0], key[1], key[2], key[3], key[4], key[5], key[6]);
}

/* Makes (when missing) and opens the directory name in parent_fd, which
 * must be a real directory of ours that nobody else may write. Returns the
 * fd, -errno, or -EPERM after a warning. */
static int open_private_dir(int parent_fd, const char *name, const char *shown,
			    bool quiet)
{
	struct stat st;
	int fd;

	if (mkdirat(parent_fd, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(parent_fd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if ((errno == ELOOP || errno == ENOTDIR) && !quiet) {
			mrr_err("not using the file cache %s: it is not a "
				"directory",
				shown);
			return -EPERM;
		}
		return -errno;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -errno;
	}
	if (st.st_uid != geteuid()) {
		if (!quiet)
			mrr_err("not using the file cache %s: it belongs to "
				"uid %u, "
				"not to uid %u",
				shown, (unsigned)st.st_uid,
				(unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		if (!quiet)
			mrr_err("not using the file cache %s: other users can "
				"write "
				"to it",
				shown);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* mkdir -p of an absolute path, new directories 0700. */
static void make_parents(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++)
		if (buf[i] == '/' || buf[i] == 0) {
			char c = buf[i];

			buf[i] = 0;
			if (mkdir(buf, 0700) < 0 && errno != EEXIST)
				return;
			buf[i] = c;
		}
}

/* Opens (making what is missing) the user's cache directory; -1 when the
 * cache is off, cannot be made, or is not safe to use (after a warning
 * unless quiet). */
static char shown[PATH_MAX + 16]; /* the cache directory, for messages */

static int open_cache_dir(bool quiet)
{
	const char *off = getenv("MRR_NO_CACHE"), *xdg, *home;
	char base[PATH_MAX];
	int base_fd, fd;

	if (off && off[0] && strcmp(off, "0") != 0)
		return -1;
	xdg = getenv("XDG_CACHE_HOME");
	home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		snprintf(base, sizeof(base), "%s", xdg);
	else if (home && home[0] == '/')
		snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return -1;
	make_parents(base);
	base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base_fd < 0) {
		mrr_debug("no file cache: cannot open %s: %s", base,
			  strerror(errno));
		return -1;
	}
	snprintf(shown, sizeof(shown), "%s/mrr", base);
	fd = open_private_dir(base_fd, "mrr", shown, quiet);
	close(base_fd);
	return fd < 0 ? -1 : fd;
}

struct filecache *filecache_open(const char *trace_dir, bool sync)
{
	char path[PATH_MAX + 8];
	struct filecache *fc;
	struct stat st;
	int dir_fd;

	dir_fd = open_cache_dir(false);
	if (dir_fd < 0)
		return NULL;
	fc = calloc(1, sizeof(*fc));
	if (!fc) {
		close(dir_fd);
		return NULL;
	}
	fc->dir_fd = dir_fd;
	fc->files_fd = fc->index_fd = fc->sites_fd = fc->trace_fd = -1;
	fc->sync = sync;
	fc->files_fd = open_private_dir(dir_fd, "files", shown, false);
	fc->index_fd = open_private_dir(dir_fd, "index", shown, false);
	fc->sites_fd = open_private_dir(dir_fd, "sites", shown, false);
	if (fc->files_fd < 0 || fc->index_fd < 0 || fc->sites_fd < 0)
		goto out_free;
	/* The writer made the trace's files/ a moment ago, 0700 in a trace
	 * directory of ours; check that it still is that. */
	snprintf(path, sizeof(path), "%s/files", trace_dir);
	fc->trace_fd =
		open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fc->trace_fd < 0 || fstat(fc->trace_fd, &st) < 0 ||
	    st.st_uid != geteuid() || (st.st_mode & 077))
		goto out_free;
	return fc;
out_free:
	filecache_close(fc);
	return NULL;
}

void filecache_close(struct filecache *fc)
{
	if (!fc)
		return;
	if (fc->dir_fd >= 0)
		close(fc->dir_fd);
	if (fc->files_fd >= 0)
		close(fc->files_fd);
	if (fc->index_fd >= 0)
		close(fc->index_fd);
	if (fc->sites_fd >= 0)
		close(fc->sites_fd);
	if (fc->trace_fd >= 0)
		close(fc->trace_fd);
	free(fc);
}

/* Reads exactly len bytes of the regular file name in dir_fd. */
static int read_small(int dir_fd, const char *name, void *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	fd = openat(dir_fd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size != len) {
		ret = -ENOENT;
		goto out;
	}
	n = pread(fd, buf, len, 0);
	if (n != (ssize_t)len)
		ret = -ENOENT;
out:
	close(fd);
	return ret;
}

/* A temporary name no other recording or replay uses. */
static void tmp_name(char *buf, size_t len)
{
	static unsigned counter;

	snprintf(buf, len, ".tmp.%d.%u", (int)getpid(), counter++);
}

/* Writes buf as name in dir_fd: a temporary file renamed over it. */
static void write_atomic(int dir_fd, const char *name, const void *buf,
			 size_t len)
{
	char tmp[64];
	ssize_t n;
	int fd;

	tmp_name(tmp, sizeof(tmp));
	fd = openat(dir_fd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = write(fd, buf, len);
	if (close(fd) < 0 || n != (ssize_t)len ||
	    renameat(dir_fd, tmp, dir_fd, name) < 0)
		unlinkat(dir_fd, tmp, 0);
}

static bool same_object(const struct fc_entry *e, const struct stat *o)
{
	return S_ISREG(o->st_mode) && o->st_uid == geteuid() &&
	       e->obj_ino == (uint64_t)o->st_ino &&
	       e->obj_size == (uint64_t)o->st_size &&
	       e->obj_mtime_s == (uint64_t)o->st_mtim.tv_sec &&
	       e->obj_mtime_ns == (uint64_t)o->st_mtim.tv_nsec;
}

int filecache_lookup(struct filecache *fc, const struct stat *st,
		     char name[MRR_STORED_NAME_MAX])
{
	struct fc_entry e;
	uint64_t key[7];
	char kname[160];
	struct stat o;
	int fd;

	key_of(st, key);
	key_name(key, kname, sizeof(kname));
	if (read_small(fc->index_fd, kname, &e, sizeof(e)) < 0) {
		mrr_debug("file cache: no entry %s", kname);
		return -ENOENT;
	}
	if (memcmp(e.magic, ENTRY_MAGIC, sizeof(e.magic)) != 0 ||
	    e.check != trace_xxh64(&e, offsetof(struct fc_entry, check), 0) ||
	    memcmp(e.key, key, sizeof(key)) != 0 ||
	    e.name[MRR_STORED_NAME_MAX - 1] != 0 ||
	    !trace_valid_stored_name(e.name))
		return -ENOENT;
	/* files/NAME must still be the copy the entry was made with. */
	if (fstatat(fc->files_fd, e.name, &o, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !same_object(&e, &o) || e.obj_size != key[2]) {
		mrr_debug("file cache: %s is not what entry %s made", e.name,
			  kname);
		return -ENOENT;
	}
	if (linkat(fc->files_fd, e.name, fc->trace_fd, e.name, 0) < 0) {
		struct stat had;
		char tmp[64];

		if (errno != EEXIST)
			return -errno;
		/* The trace holds this content already, from another file:
		 * keep it unless only ours can be executed (as the writer
		 * copies, a program 0700, anything else 0600). */
		if (fstatat(fc->trace_fd, e.name, &had, AT_SYMLINK_NOFOLLOW) <
			    0 ||
		    (had.st_mode & 0100) || !(o.st_mode & 0100))
			goto linked;
		tmp_name(tmp, sizeof(tmp));
		if (linkat(fc->files_fd, e.name, fc->trace_fd, tmp, 0) < 0)
			return -errno;
		if (renameat(fc->trace_fd, tmp, fc->trace_fd, e.name) < 0) {
			unlinkat(fc->trace_fd, tmp, 0);
			return -errno;
		}
	}
linked:
	if (fc->sync) {
		fd = openat(fc->trace_fd, e.name,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	memcpy(name, e.name, MRR_STORED_NAME_MAX);
	return 0;
}

static bool same_key(const struct stat *a, const struct stat *b)
{
	uint64_t ka[7], kb[7];

	key_of(a, ka);
	key_of(b, kb);
	return memcmp(ka, kb, sizeof(ka)) == 0;
}

static long long ts_ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000ll + t->tv_nsec;
}

void filecache_add(struct filecache *fc, const struct stat *st,
		   const struct stat *st_after, const char *name)
{
	struct fc_entry e = {0};
	struct timespec now;
	struct stat t;
	char tmp[64], kname[160];
	long long now_ns;

	if (!S_ISREG(st->st_mode) || (st->st_mode & (S_ISUID | S_ISGID)) ||
	    !same_key(st, st_after))
		return;
	/* A file changed within the last tick could change again and keep
	 * its ctime: hash it each time until it has been still for a while. */
	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = ts_ns(&now);
	if (now_ns - ts_ns(&st->st_ctim) < RACY_NS ||
	    now_ns - ts_ns(&st->st_mtim) < RACY_NS)
		return;
	/* Only a copy the trace owns goes in, never a link to the original. */
	if (fstatat(fc->trace_fd, name, &t, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(t.st_mode) || t.st_uid != geteuid() ||
	    (t.st_dev == st->st_dev && t.st_ino == st->st_ino) ||
	    t.st_size != st->st_size)
		return;
	/* Our freshly hashed copy replaces whatever files/NAME held: an
	 * older one may have been changed, and its entries then miss. */
	tmp_name(tmp, sizeof(tmp));
	if (linkat(fc->trace_fd, name, fc->files_fd, tmp, 0) < 0)
		return;
	if (renameat(fc->files_fd, tmp, fc->files_fd, name) < 0) {
		unlinkat(fc->files_fd, tmp, 0);
		return;
	}
	/* rename() of two links to one inode leaves both */
	unlinkat(fc->files_fd, tmp, 0);
	memcpy(e.magic, ENTRY_MAGIC, sizeof(e.magic));
	key_of(st, e.key);
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.obj_ino = (uint64_t)t.st_ino;
	e.obj_size = (uint64_t)t.st_size;
	e.obj_mtime_s = (uint64_t)t.st_mtim.tv_sec;
	e.obj_mtime_ns = (uint64_t)t.st_mtim.tv_nsec;
	e.check = trace_xxh64(&e, offsetof(struct fc_entry, check), 0);
	key_name(e.key, kname, sizeof(kname));
	write_atomic(fc->index_fd, kname, &e, sizeof(e));
}

/* sites/NAME: magic, u64 count, count x (u64 offset, u64 len), u64 XXH64
 * of the bytes before it. */
long filecache_sites(struct filecache *fc, const char *name,
		     struct tsc_site **out)
{
	struct {
		char magic[8];
		uint64_t n;
	} h;
	uint64_t *raw, check;
	struct tsc_site *s = NULL;
	size_t len;
	uint64_t i;
	struct stat st;
	int fd;

	*out = NULL;
	fd = openat(fc->sites_fd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, SITES_MAGIC, 8) != 0 || h.n > MAX_SITES) {
		close(fd);
		return -ENOENT;
	}
	close(fd);
	len = sizeof(h) + h.n * 16 + 8;
	if ((uint64_t)st.st_size != len)
		return -ENOENT;
	raw = malloc(len);
	if (!raw || read_small(fc->sites_fd, name, raw, len) < 0) {
		free(raw);
		return -ENOENT;
	}
	memcpy(&check, (char *)raw + len - 8, 8);
	if (check != trace_xxh64(raw, len - 8, 0) ||
	    memcmp(raw, &h, sizeof(h)) != 0) {
		free(raw);
		return -ENOENT;
	}
	if (h.n) {
		s = calloc(h.n, sizeof(*s));
		if (!s) {
			free(raw);
			return -ENOENT;
		}
	}
	for (i = 0; i < h.n; i++) {
		s[i].offset = raw[2 + 2 * i];
		s[i].len = (uint8_t)raw[3 + 2 * i];
		if (raw[3 + 2 * i] != 2 && raw[3 + 2 * i] != 3) {
			free(s);
			free(raw);
			return -ENOENT;
		}
	}
	free(raw);
	*out = s;
	return (long)h.n;
}

void filecache_put_sites(struct filecache *fc, const char *name,
			 const struct tsc_site *sites, long n)
{
	size_t len = 16 + (size_t)n * 16 + 8;
	uint64_t *raw, check;
	long i;

	if (n < 0 || n > MAX_SITES || !trace_valid_stored_name(name))
		return;
	raw = calloc(1, len);
	if (!raw)
		return;
	memcpy(raw, SITES_MAGIC, 8);
	raw[1] = (uint64_t)n;
	for (i = 0; i < n; i++) {
		raw[2 + 2 * i] = sites[i].offset;
		raw[3 + 2 * i] = sites[i].len;
	}
	check = trace_xxh64(raw, len - 8, 0);
	memcpy((char *)raw + len - 8, &check, 8);
	write_atomic(fc->sites_fd, name, raw, len);
	free(raw);
}

/* verified/KEY: a stored file of a trace whose hash a replay checked. */
struct fc_verified {
	char magic[8];
	uint64_t key[7];
	char name[MRR_STORED_NAME_MAX];
	uint64_t check; /* XXH64 of the bytes before it */
};
#define VERIFIED_MAGIC "MRRFCV1"

int filecache_check_stored(const char *path, const char *name)
{
	static int verified_fd = -2; /* -2: not opened yet; -1: no cache */
	struct trace_xxh64_state hs;
	struct fc_verified v;
	struct stat st, after;
	uint64_t key[7], want_hash, want_size, size = 0;
	char kname[160], *end;
	struct timespec now;
	int fd, err;

	if (!trace_valid_stored_name(name))
		return -EINVAL;
	want_hash = strtoull(name, &end, 16);
	want_size = strtoull(end + 1, NULL, 16);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -ENOENT : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	if (verified_fd == -2) {
		int dir_fd = open_cache_dir(true);

		verified_fd = dir_fd < 0 ? -1
					 : open_private_dir(dir_fd, "verified",
							    shown, true);
		if (verified_fd < -1)
			verified_fd = -1;
		if (dir_fd >= 0)
			close(dir_fd);
	}
	key_of(&st, key);
	key_name(key, kname, sizeof(kname));
	if (verified_fd >= 0 &&
	    read_small(verified_fd, kname, &v, sizeof(v)) == 0 &&
	    memcmp(v.magic, VERIFIED_MAGIC, 8) == 0 &&
	    v.check ==
		    trace_xxh64(&v, offsetof(struct fc_verified, check), 0) &&
	    strncmp(v.name, name, sizeof(v.name)) == 0 &&
	    memcmp(key, v.key, sizeof(key)) == 0 &&
	    (uint64_t)st.st_size == want_size) {
		close(fd);
		return 0;
	}
	trace_xxh64_init(&hs, 0);
	err = trace_hash_file(fd, -1, &hs, &size);
	if (!err && fstat(fd, &after) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	if (size != want_size || trace_xxh64_digest(&hs) != want_hash)
		return MRR_E_CORRUPT;
	/* Remember it only if it did not change while it was read and has
	 * been still for a while (see filecache_add). */
	clock_gettime(CLOCK_REALTIME, &now);
	if (verified_fd < 0 || !same_key(&st, &after) ||
	    ts_ns(&now) - ts_ns(&st.st_ctim) < RACY_NS ||
	    ts_ns(&now) - ts_ns(&st.st_mtim) < RACY_NS)
		return 0;
	memset(&v, 0, sizeof(v));
	memcpy(v.magic, VERIFIED_MAGIC, 8);
	memcpy(v.key, key, sizeof(key));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.check = trace_xxh64(&v, offsetof(struct fc_verified, check), 0);
	write_atomic(verified_fd, kname, &v, sizeof(v));
	return 0;
}
