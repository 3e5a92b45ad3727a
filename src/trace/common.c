/* Pieces shared by the trace writer and reader. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrr/trace.h"
#include "trace/format.h"
#include "trace/io.h"
#include "trace/xxh64.h"

int trace_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t trace_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n =
			pread(fd, p + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int trace_valid_stored_name(const char *name)
{
	size_t i, n;

	if (!name)
		return 0;
	for (i = 0; i < 16; i++) {
		if (!is_lower_hex(name[i]))
			return 0;
	}
	if (name[16] != '-')
		return 0;
	name += 17;
	for (n = 0; name[n]; n++) {
		if (n == 16 || !is_lower_hex(name[n]))
			return 0;
	}
	if (n == 0 || (n > 1 && name[0] == '0'))
		return 0;
	return 1;
}

const char *mrr_trace_strerror(int code)
{
	switch (code) {
	case 0:
		return "success";
	case MRR_E_NOT_TRACE:
		return "not an mrr trace";
	case MRR_E_INCOMPLETE:
		return "trace is incomplete";
	case MRR_E_VERSION:
		return "unsupported trace format version";
	case MRR_E_CORRUPT:
		return "trace is corrupt";
	case MRR_E_TOO_BIG:
		return "event exceeds the trace format's limits";
	default:
		if (code < 0 && code > -4096)
			return strerror(-code);
		return "unknown error";
	}
}

static volatile sig_atomic_t trace_cancelled;

void mrr_trace_cancel(void)
{
	trace_cancelled = 1;
}

/* Feeds len zero bytes (a hole) to st without reading them; a copy gets
 * the same hole by seeking past it. */
static int hash_hole(int copy_fd, struct trace_xxh64_state *st, uint64_t len)
{
	/* a cancellation check every 64 MiB */
	uint64_t done = 0, step = 64ull << 20;

	while (done < len) {
		uint64_t n = len - done < step ? len - done : step;

		if (trace_cancelled)
			return -ECANCELED;
		trace_xxh64_update_zeros(st, n);
		done += n;
	}
	if (copy_fd >= 0 && lseek(copy_fd, (off_t)len, SEEK_CUR) < 0)
		return -errno;
	return 0;
}

int trace_hash_file(int fd, int copy_fd, struct trace_xxh64_state *st,
		    uint64_t *size)
{
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	uint64_t off = 0, data_end = 0;
	bool holes = true; /* SEEK_DATA works on this file */
	int ret = 0;

	if (!buf) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* Huge sparse files (a memfd of tens of GiB with a few pages written)
	 * are common: holes are hashed as zeroes without being read, and a
	 * copy keeps them as holes. */
	for (;;) {
		ssize_t n;
		size_t want = cap;

		if (trace_cancelled) {
			ret = -ECANCELED;
			break;
		}
		if (holes && off >= data_end) {
			off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;

			if (d < 0 && errno == ENXIO) {
				struct stat sb;

				/* only a hole up to the end of the file */
				if (fstat(fd, &sb) < 0 ||
				    (uint64_t)sb.st_size <= off)
					break;
				d = sb.st_size;
				ret = hash_hole(copy_fd, st, (uint64_t)d - off);
				if (ret)
					break;
				off = (uint64_t)d;
				continue;
			}
			h = d < 0 ? -1 : lseek(fd, d, SEEK_HOLE);
			if (d < 0 || h < 0) {
				holes = false; /* not supported: read it all */
			} else {
				ret = hash_hole(copy_fd, st, (uint64_t)d - off);
				if (ret)
					break;
				off = (uint64_t)d;
				data_end = (uint64_t)h;
			}
		}
		if (holes && data_end - off < want)
			want = (size_t)(data_end - off);
		n = trace_pread_all(fd, buf, want, off);
		if (n < 0) {
			ret = (int)n;
			break;
		}
		if (n == 0)
			break;
		trace_xxh64_update(st, buf, (size_t)n);
		if (copy_fd >= 0) {
			ret = trace_write_all(copy_fd, buf, (size_t)n);
			if (ret)
				break;
		}
		off += (uint64_t)n;
		if (holes && (size_t)n < want)
			break; /* the file shrank meanwhile */
	}
	/* a copy that ends in a hole gets its size */
	if (!ret && copy_fd >= 0 && ftruncate(copy_fd, (off_t)off) < 0)
		ret = -errno;
	*size = off;
out_free:
	free(buf);
	return ret;
}
