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

/* A trace directory is private to its owner: directories 0700, files 0600
 * (0700 for a stored program), whatever the umask. Everything inside one is
 * reached through directory fds, never by a path that could hold a link. */

/* mkdirat(parent_fd, name) with mode 0700 under any umask. Returns 0 or
 * -errno (-EEXIST when anything exists at name). */
int trace_mkdir_at(int parent_fd, const char *name);

/* Opens the directory name that the caller has just made in parent_fd,
 * without following a link, checks that it is the caller's and empty (else
 * -EEXIST: someone replaced it), and sets its mode to 0700. Returns the fd
 * or -errno. */
int trace_open_new_dir(int parent_fd, const char *name);

/* Creates name in dir_fd for writing: O_EXCL|O_NOFOLLOW, mode set exactly
 * (not filtered by the umask). Returns the fd or -errno. */
int trace_create_file_at(int dir_fd, const char *name, mode_t mode);

/* Removes a trace directory through the fds its writer holds: unlinks every
 * entry of files_fd and dir_fd (links themselves, never their targets), then
 * removes the files subdirectory and parent_fd/name only if they are still
 * the directories those fds refer to. Any fd may be -1. */
void trace_remove_dir_fds(int parent_fd, const char *name, int dir_fd,
			  int files_fd);

#endif
