/* mrr trace API: write and read mrr traces (format described normatively in
 * trace-format/FORMAT.md).
 *
 * A trace is a directory. A writer fills it; nothing marks it complete until
 * mrr_trace_writer_finish() has written every chunk and stored file and then
 * committed it. A reader refuses an uncommitted trace unless asked to salvage
 * its valid prefix.
 *
 * All functions returning int return 0 (or a documented non-negative value) on
 * success and a negative error code on failure: -errno for system errors, or
 * one of the MRR_E* codes below. Handles are not thread-safe; use one handle
 * per thread. Every free, close and abort function accepts NULL.
 */
#ifndef MRR_TRACE_H
#define MRR_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MRR_WUR __attribute__((warn_unused_result))
#else
#define MRR_WUR
#endif

/* The on-disk format version this library writes. It reads every version
 * from MRR_TRACE_FORMAT_VERSION_MIN up to this one. */
#define MRR_TRACE_FORMAT_VERSION     4
#define MRR_TRACE_FORMAT_VERSION_MIN 1

/* Error codes specific to traces (all negative, below any -errno). */
enum mrr_trace_error {
	MRR_E_NOT_TRACE = -1000,  /* path exists but is not an mrr trace */
	MRR_E_INCOMPLETE = -1001, /* trace was never committed */
	MRR_E_VERSION = -1002,	  /* trace has another format version */
	MRR_E_CORRUPT = -1003,	  /* checksum or structure error */
	MRR_E_TOO_BIG = -1004,	  /* an event exceeds the format's limits */
};

/* What a trace records. Event kinds are part of the format: never renumber. */
enum mrr_event_kind {
	MRR_EV_EXEC =
		1, /* a task's image was replaced (also the first event) */
	MRR_EV_SYSCALL = 2,   /* a traced syscall finished */
	MRR_EV_SIGNAL = 3,    /* a signal was delivered to a task */
	MRR_EV_RDTSC = 4,     /* an rdtsc/rdtscp was trapped and emulated */
	MRR_EV_EXIT = 5,      /* a task exited or was killed */
	MRR_EV_BUFFER = 6,    /* a flush of a task's syscall buffer */
	MRR_EV_BACKTRACE = 7, /* call stack of the task's previous event */
	MRR_EV_PREEMPT = 8,   /* a task was stopped in user code (version 2) */
	MRR_EV_SCHED = 9, /* a thread gave up the running slot (version 2) */
	MRR_EV_KIND_MAX = 9,
	MRR_EV_KIND_MAX_V1 = 7, /* the last kind a version-1 trace may hold */
};

/* MRR_EV_SCHED: result says why the thread let another run. */
enum mrr_sched_reason {
	MRR_SCHED_BLOCKS = 1,	 /* the syscall may wait (futex, read...) */
	MRR_SCHED_TIMESLICE = 2, /* it ran a timeslice while others waited */
	MRR_SCHED_STALLED = 3,	 /* it stayed in the syscall (found stalled) */
	MRR_SCHED_HELD = 4,	 /* the recorder held it (output order, or
				  * a stop for the program's own tracer) */
	MRR_SCHED_EXITS = 5,	 /* a thread group leader calls exit */
	/* it blocked in a buffered call (syscall buffer ABI 3 and later) */
	MRR_SCHED_BUFFERED = 6,
};

/* Event flags. */
#define MRR_EVF_BUFFERED  0x1u /* came from the in-process syscall buffer */
#define MRR_EVF_SKIPPED	  0x2u /* syscall was suppressed by the recorder */
#define MRR_EVF_TO_STDOUT 0x4u /* a write that reached mrr's stdout */
#define MRR_EVF_TO_STDERR 0x8u /* a write that reached mrr's stderr */
/* The last 8 bytes of extra are the little-endian xxh64 of the bytes the
 * call took from the program (a write-family call; format version 3). */
#define MRR_EVF_DIGEST 0x10u

/* One range of memory the kernel (or the recorder) wrote into the task. */
struct mrr_mem_write {
	uint64_t addr;	  /* address in the recorded task */
	uint64_t len;	  /* bytes */
	const void *data; /* len bytes; borrowed, see mrr_trace_next() */
};

/* One event. The meaning of nr/args/result/extra per kind is in FORMAT.md. */
struct mrr_event {
	uint64_t seq;	  /* event number, 0-based; assigned by the writer */
	uint32_t kind;	  /* enum mrr_event_kind */
	uint32_t flags;	  /* MRR_EVF_* */
	int32_t tid;	  /* recorded thread id */
	uint64_t ip;	  /* instruction pointer at the event */
	int64_t nr;	  /* syscall number, signal number, or 0 */
	uint64_t args[6]; /* syscall arguments as the task passed them */
	int64_t result;	  /* syscall return value, exit status, ... */
	uint32_t nwrites;
	const struct mrr_mem_write *writes;
	uint32_t extra_len;
	const void *extra; /* kind-specific bytes (FORMAT.md) */
};

/* Format limits; the writer refuses (MRR_E_TOO_BIG) and the reader rejects
 * (MRR_E_CORRUPT) anything larger. */
#define MRR_MAX_WRITES_PER_EVENT 65536u
#define MRR_MAX_EVENT_BYTES	 (1ull << 31) /* all writes + extra of one event */
#define MRR_MAX_EXTRA_BYTES	 (1u << 24)

/* Trace-wide facts recorded at the start (the trace header). Strings are
 * NUL-terminated. argv and env are packed as consecutive NUL-terminated
 * strings with their total byte length (including the NULs). */
#define MRR_INFO_PFN_READABLE 0x1u /* pagemap PFNs were readable */
#define MRR_INFO_SYSCALLBUF   0x2u /* the syscall buffer was injected */
#define MRR_INFO_NO_ASLR      0x4u /* address randomization was disabled */
#define MRR_INFO_PAGEMAP_SCAN 0x8u /* PAGEMAP_SCAN ioctl was available */
/* rdtsc trapped by itself (PR_SET_TSC) and no code was rewritten; replay
 * needs a machine where rdtsc traps. Clear: rdtsc/rdtscp sites in file
 * mappings were rewritten to ud2, as memory writes in the trace. */
#define MRR_INFO_TSC_TRAP 0x10u
/* rt_sigaction of signals other than SIGALRM, SIGVTALRM and SIGPROF ran
 * untraced (no events); the replay's filter must let them through too
 * (src/core/seccomp_filter.h). */
#define MRR_INFO_UNTRACED_SIGACTION 0x20u
/* The memory digests of searched preemption points (7.9) hash the shared
 * anonymous mappings too (core/memdigest.h MEM_DIGEST_SHARED_ANON). */
#define MRR_INFO_DIGEST_SHARED 0x40u
/* The memory digests leave out the stack of the task at the point only
 * below its stack pointer, to the byte, not to the page (core/memdigest.h
 * MEM_DIGEST_SP_EXACT). */
#define MRR_INFO_DIGEST_SP_EXACT 0x80u

struct mrr_trace_info {
	uint32_t format_version; /* ignored by the writer; set by the reader */
	uint32_t flags;		 /* MRR_INFO_* */
	uint32_t syscallbuf_abi; /* syscall buffer protocol version, 0 if off */
	char mrr_version[32];
	char kernel[128]; /* uname -srm */
	char cpu[128];	  /* vendor and model name */
	const char *cwd;
	const char *exe; /* program path as resolved at record */
	const char *argv;
	size_t argv_len;
	const char *env;
	size_t env_len;
	int64_t start_time_ns; /* CLOCK_REALTIME at record start */
};

/* How the recording ended (stored by the commit). */
enum mrr_trace_end {
	MRR_END_COMPLETE = 1,	 /* every recorded process exited */
	MRR_END_INTERRUPTED = 2, /* the user interrupted the recorder */
	MRR_END_ERROR = 3,	 /* the recorder stopped on an error */
};

/* ---- writer ---- */

typedef struct mrr_trace_writer mrr_trace_writer;

#define MRR_WRITER_SYNC 0x1u /* fsync data, files and dir before the commit */

/* Creates the directory dir, which must not exist (not even as an empty
 * directory), and writes the header: mrr_trace_writer_open() and
 * mrr_trace_writer_start(). Returns 0 and *out, or -EEXIST (something
 * exists at dir), -errno; on failure nothing is left behind.
 *
 * A trace is private to its owner: its directories are 0700 and its files
 * 0600 (0700 for stored programs) whatever the umask. Every file in it is
 * created through a directory fd with O_EXCL|O_NOFOLLOW. */
MRR_WUR int mrr_trace_writer_create(const char *dir,
				    const struct mrr_trace_info *info,
				    unsigned flags, mrr_trace_writer **out);

/* The first half of mrr_trace_writer_create: makes the new directory name
 * in the directory parent_fd (a single path component; -EEXIST when
 * anything exists there), and its empty event stream. The writer keeps its
 * own fds: renaming the directory or its parent afterwards does not
 * redirect it. Nothing can be appended until mrr_trace_writer_start(). */
MRR_WUR int mrr_trace_writer_open_at(int parent_fd, const char *name,
				     unsigned flags, mrr_trace_writer **out);

/* mrr_trace_writer_open_at() for the path dir (its parent must exist). */
MRR_WUR int mrr_trace_writer_open(const char *dir, unsigned flags,
				  mrr_trace_writer **out);

/* Writes the header of an opened trace. Returns 0, -EINVAL when already
 * started, MRR_E_TOO_BIG, -errno. */
MRR_WUR int mrr_trace_writer_start(mrr_trace_writer *w,
				   const struct mrr_trace_info *info);

/* Appends one event; ev->seq is ignored and the assigned number is returned
 * through *seq_out when non-NULL. Data is copied. Events reach the disk in
 * chunks; a chunk is written when full or on mrr_trace_writer_flush(). */
MRR_WUR int mrr_trace_writer_append(mrr_trace_writer *w,
				    const struct mrr_event *ev,
				    uint64_t *seq_out);

/* Writes any buffered events as a chunk. */
MRR_WUR int mrr_trace_writer_flush(mrr_trace_writer *w);

/* Stores a copy of the file at local_path, named by its content: a reflink
 * or a byte copy; a hard link only to a file that the calling user cannot
 * write (so never when running as root) and that is not set-ID. Writes the
 * stored name (at most MRR_STORED_NAME_MAX bytes with the NUL) into
 * name_out. Storing the same content twice is cheap and yields the same
 * name. */
#define MRR_STORED_NAME_MAX 64
MRR_WUR int mrr_trace_writer_store_file(mrr_trace_writer *w,
					const char *local_path,
					char name_out[MRR_STORED_NAME_MAX]);

/* Like mrr_trace_writer_store_file, with MRR_STORE_COPY: always copy, never
 * hard-link (for files the program may change later, which would change a
 * linked copy too). */
#define MRR_STORE_COPY 0x1u
MRR_WUR int
mrr_trace_writer_store_file_flags(mrr_trace_writer *w, const char *local_path,
				  unsigned flags,
				  char name_out[MRR_STORED_NAME_MAX]);

/* Number of events appended so far. */
uint64_t mrr_trace_writer_events(const mrr_trace_writer *w);

/* Flushes, (with MRR_WRITER_SYNC) syncs, and commits the trace with how it
 * ended and an optional one-line message. Frees w whatever the result. */
MRR_WUR int mrr_trace_writer_finish(mrr_trace_writer *w, enum mrr_trace_end end,
				    const char *message);

/* Frees w without committing; the trace stays incomplete. */
void mrr_trace_writer_abort(mrr_trace_writer *w);

/* Removes the trace directory w made, with everything in it, and frees w.
 * It works through the directory fds the writer holds and never follows a
 * link: an entry replaced by a symlink is unlinked, not its target. */
void mrr_trace_writer_remove(mrr_trace_writer *w);

/* ---- reader ---- */

typedef struct mrr_trace_reader mrr_trace_reader;

/* Read the valid prefix of an incomplete trace. */
#define MRR_READER_FORCE 0x1u
/* Bound the reader's memory: a chunk too big to hold is decompressed piece
 * by piece, and a write of an event beyond its first 16 MiB of data is
 * handed out with data NULL, to be read with mrr_trace_read_data(). */
#define MRR_READER_STREAM 0x2u

/* Opens the trace in dir. On failure returns a negative code and writes one
 * sentence into errbuf (when non-NULL), e.g. for MRR_E_INCOMPLETE:
 * "trace DIR is incomplete: recording did not finish (the recorder was killed
 * or crashed); 812 of its events can be read with --force". */
MRR_WUR int mrr_trace_open(const char *dir, unsigned flags,
			   mrr_trace_reader **out, char *errbuf, size_t errlen);

void mrr_trace_close(mrr_trace_reader *r);

/* The header. Pointers stay valid until mrr_trace_close(). */
const struct mrr_trace_info *mrr_trace_info(const mrr_trace_reader *r);

/* Reads the next event. Returns 1 and fills *ev, 0 at the end of the valid
 * events, or a negative code (message in mrr_trace_error_message()). Pointers
 * inside *ev stay valid until the next call or mrr_trace_close(). A
 * committed trace that ends early or has a bad chunk is MRR_E_CORRUPT, naming
 * the chunk; with MRR_READER_FORCE reading stops cleanly (returns 0) at the
 * first bad chunk instead. */
MRR_WUR int mrr_trace_next(mrr_trace_reader *r, struct mrr_event *ev);

/* Positions the reader so that the next mrr_trace_next() returns event seq
 * (seq equal to the number of events: the end). Chunks already read are
 * found through an index of where each began; later ones are read and
 * verified on the way, as mrr_trace_next() would. Returns 0, -EINVAL when
 * the trace's valid events end before seq, MRR_E_CORRUPT or -errno (message
 * in mrr_trace_error_message()); after a failure the position is undefined
 * until the next successful seek. Statistics count re-read chunks again. */
MRR_WUR int mrr_trace_seek(mrr_trace_reader *r, uint64_t seq);

/* With MRR_READER_STREAM: reads the next len bytes of write i of the event
 * mrr_trace_next() returned last, one whose data is NULL. Such writes are
 * read in order, each from its start; reading write i skips what is left of
 * the streamed writes before it. Returns 0, -EINVAL (not a streamed write,
 * an earlier one, or past its end), MRR_E_CORRUPT or -errno. */
MRR_WUR int mrr_trace_read_data(mrr_trace_reader *r, uint32_t i, void *buf,
				size_t len);

/* Last error message of r (empty string if none). When a read with
 * MRR_READER_FORCE ended early at a bad chunk, it says which chunk and why. */
const char *mrr_trace_error_message(const mrr_trace_reader *r);

/* Whether the trace was committed, and how it ended. For an uncommitted trace
 * opened with MRR_READER_FORCE, returns 0 and leaves *end and *message alone.
 */
int mrr_trace_committed(const mrr_trace_reader *r, enum mrr_trace_end *end,
			const char **message);

/* Events the commit says the trace holds (0 if uncommitted). */
uint64_t mrr_trace_event_count(const mrr_trace_reader *r);

/* Size figures for statistics; valid after the stream was read to its end. */
struct mrr_trace_stats {
	uint64_t chunks;
	uint64_t raw_bytes;	   /* uncompressed event stream */
	uint64_t compressed_bytes; /* on disk, with framing */
	uint64_t files;		   /* stored files */
	uint64_t file_bytes;
};
void mrr_trace_stats(const mrr_trace_reader *r, struct mrr_trace_stats *out);

/* Writes into buf the local path of the stored file called name. Returns 0,
 * -EINVAL if name is not a valid stored name, -ENOENT if the file is missing,
 * -ENAMETOOLONG. */
MRR_WUR int mrr_trace_file_path(const mrr_trace_reader *r, const char *name,
				char *buf, size_t buflen);

/* Checks that the stored file called name still holds what it held when
 * stored (its name carries the content's hash and size). Reads the whole
 * file. Returns 0, MRR_E_CORRUPT when it changed, -EINVAL for a bad name,
 * -ENOENT when missing, -EIO. */
MRR_WUR int mrr_trace_file_verify(const mrr_trace_reader *r, const char *name);

/* Names of stored files, for listing: calls fn once per file. */
int mrr_trace_for_each_file(const mrr_trace_reader *r,
			    int (*fn)(const char *name, uint64_t size,
				      void *arg),
			    void *arg);

/* Makes every file hash or copy in progress, and every later one, give up
 * with -ECANCELED, so that a process told to stop is not held up by a huge
 * file. Async-signal-safe (for a SIGINT or SIGTERM handler); irreversible. */
void mrr_trace_cancel(void);

/* A short human name for an error code (for messages). */
const char *mrr_trace_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif
