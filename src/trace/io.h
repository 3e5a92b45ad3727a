/* Small I/O helpers for the trace library (private to src/trace). */
#ifndef MRR_TRACE_IO_H
#define MRR_TRACE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes all len bytes, retrying short writes and EINTR. Returns 0 or
 * -errno (-EIO if the file stopped growing). */
int trace_write_all(int fd, const void *buf, size_t len);

/* Reads up to len bytes at off, retrying short reads and EINTR. Returns the
 * bytes read (fewer only at end of file) or -errno. */
ssize_t trace_pread_all(int fd, void *buf, size_t len, uint64_t off);

struct trace_xxh64_state;

/* Reads fd from offset 0 to its end, feeding every byte to st and, when
 * copy_fd >= 0, writing it there too. Stores the byte count in *size.
 * Returns 0 or -errno. */
int trace_hash_file(int fd, int copy_fd, struct trace_xxh64_state *st,
		    uint64_t *size);

#endif
