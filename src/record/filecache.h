/* The per-user cache of stored files: pay for a file once per machine, not
 * once per recording.
 *
 * A recording stores a copy of every file the program executes or maps,
 * named by the XXH64 of its content (trace-format/FORMAT.md, section 8),
 * and scans code for rdtsc. The cache remembers, for each source file seen
 * before, its content's stored name and keeps one copy of that content, so
 * that the next recording hard-links the copy into its trace with no
 * reading, hashing or scanning.
 *
 * Where: $XDG_CACHE_HOME/mrr (an absolute XDG_CACHE_HOME), else
 * $HOME/.cache/mrr. Every directory in it is 0700 and must belong to the
 * user mrr runs as and be writable by no one else; otherwise the cache is
 * not used (one warning). Inside:
 *   files/NAME      a copy of the content with stored name NAME (0600, or
 *                   0700 for programs), the link source for traces
 *   index/KEY       NAME and the identity of files/NAME, for the source
 *                   file with KEY = device, inode, size, mtime and ctime
 *                   (nanoseconds), all in hex
 *   sites/NAME      the rdtsc sites of content NAME (rewrite mode)
 *   verified/KEY    a trace's stored file, by its own KEY, that a replay
 *                   hashed and found to hold content NAME
 * Entries are written under a temporary name and renamed, so readers take
 * no lock; an entry that is missing, short, or fails its checksum is a miss.
 *
 * Safety:
 *   - A source file changed in place gets a new ctime (the kernel sets it
 *     on every write, truncate, chmod or utimes), so its old entry never
 *     matches again. A file whose ctime or mtime is within the last two
 *     seconds is not entered (a second change within one timestamp tick
 *     could keep both), nor is one that changed while it was stored.
 *   - files/NAME is used only while its inode, size and mtime are the ones
 *     the entry recorded; anything that rewrites it behind the index is a
 *     miss. A replay still checks every stored file's hash.
 *   - Traces get hard links, never symbolic ones: deleting the cache
 *     leaves every trace whole. Set-ID files and files the trace links to
 *     their original (instead of copying) are not entered.
 *   - Off with MRR_NO_CACHE=1 or `mrr record --no-cache`.
 *
 * Not thread-safe; one struct filecache per recorder. */
#ifndef MRR_RECORD_FILECACHE_H
#define MRR_RECORD_FILECACHE_H

#include "mrr/trace.h"

#include <stdbool.h>
#include <sys/stat.h>

struct filecache;
struct tsc_site;

/* Opens (creating what is missing) the user's cache and the trace's
 * files/ directory under trace_dir; sync: fsync each file linked into the
 * trace (`record --sync`). Returns NULL when the cache is off
 * (MRR_NO_CACHE=1), cannot be made, or is not safe to use (after a warning
 * on stderr naming the directory and why). */
struct filecache *filecache_open(const char *trace_dir, bool sync);
/* Frees fc; NULL is fine. */
void filecache_close(struct filecache *fc);

/* The source file whose fstat is st: when the cache knows it, links its
 * copy into the trace as its stored name, written into name, and returns
 * 0. -ENOENT on a miss, other -errno when the link failed (the caller then
 * stores the file itself). */
int filecache_lookup(struct filecache *fc, const struct stat *st,
		     char name[MRR_STORED_NAME_MAX]);

/* After the trace stored the source file (fstat st before storing, after
 * the store in st_after) as name: enters it, when it is safe to (see
 * above). Best effort: failures only cost speed. */
void filecache_add(struct filecache *fc, const struct stat *st,
		   const struct stat *st_after, const char *name);

/* rdtsc sites of content name: returns the count and a malloc'd array in
 * *out (NULL when 0), or -ENOENT when not cached. */
long filecache_sites(struct filecache *fc, const char *name,
		     struct tsc_site **out);
/* Remembers the rdtsc sites of content name. Best effort. */
void filecache_put_sites(struct filecache *fc, const char *name,
			 const struct tsc_site *sites, long n);

/* Replay side: checks the stored file at path against name (the hash and
 * size of its content). A file this user's replays already checked, with
 * the same device, inode, size, mtime and ctime (any write, link, rename
 * or chmod changes the ctime), is trusted without reading it; the fact
 * lives in the cache's verified/ directory. Returns 0, MRR_E_CORRUPT when
 * the content does not match, or -errno (-ENOENT: not a regular file). */
int filecache_check_stored(const char *path, const char *name);

#endif
