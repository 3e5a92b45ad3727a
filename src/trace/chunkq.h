/* The trace writer's chunk queue (private to src/trace): compresses and
 * appends chunks of encoded events to the event stream on a thread of its
 * own, so that the recorder does not wait for zstd.
 *
 * The writer hands over each finished chunk's raw content with
 * chunkq_submit(); the queue's thread compresses it into one chunk
 * (trace-format/FORMAT.md section 5) and writes it with one write loop at
 * the end of the stream, in submission order. A chunk counts in the stream
 * (stream_len, chunks) only once it is fully written. At most CHUNKQ_MAX
 * chunks wait; a submit beyond that blocks until one is written. The first
 * write or compression error is sticky: every later chunk is dropped and
 * every later call returns it.
 *
 * The thread starts on the first submit, so a process that forks before it
 * writes any chunk forks with one thread. When no thread can be started,
 * submit compresses and writes inline.
 *
 * One caller thread (the writer's owner) calls every function; the queue's
 * own thread is the only other one touching it. */
#ifndef MRR_TRACE_CHUNKQ_H
#define MRR_TRACE_CHUNKQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

/* Chunks that may wait for the thread. */
#define CHUNKQ_MAX 3

/* Disk space kept allocated past the end of the events file
 * (fallocate FALLOC_FL_KEEP_SIZE, which leaves the file's size alone), so
 * that a recorded program that fills the trace's file system for a
 * while (stress-ng resources fallocates terabytes in /tmp) does not stop
 * the recording: chunks go into space already held, and the writer
 * hands the reserve to a stored file that needs it
 * (chunkq_release_reserve). At most an eighth of the free space. Given
 * back when the queue is destroyed. */
#define CHUNKQ_RESERVE (8u << 20)

struct chunkq_job {
	uint8_t *raw;
	size_t raw_len;
	size_t raw_cap;
	uint32_t nevents;
	uint64_t first_seq;
};

struct chunkq {
	int fd; /* the events file, written at its end */
	ZSTD_CCtx *cctx;
	uint8_t *out; /* compressed chunk being written */
	size_t out_cap;

	pthread_mutex_t mu;
	pthread_cond_t work; /* a job was queued, or stop */
	pthread_cond_t done; /* a job finished */
	pthread_t thread;
	bool running;
	bool stop;
	bool inited;
	struct chunkq_job q[CHUNKQ_MAX];
	unsigned head, count;
	bool busy; /* the thread is working on a job it took off q */
	/* Raw buffers the thread is done with, handed back on submit. */
	struct chunkq_job spare[CHUNKQ_MAX + 1];
	unsigned nspare;

	int err; /* sticky; read without mu through chunkq_err() */
	uint64_t stream_len;
	uint64_t chunks;

	/* Space is held up to this offset of the file (CHUNKQ_RESERVE);
	 * touched by whoever writes chunks, and by the caller once drained. */
	uint64_t reserve_end;
	uint64_t tried_end; /* the end of every range fallocate was asked */
	bool no_reserve;    /* the file system has no KEEP_SIZE fallocate */
};

/* Sets q up for the events file fd (not owned) and a compression context
 * (owned). Returns 0 or -ENOMEM. */
int chunkq_init(struct chunkq *q, int fd, int level)
	__attribute__((warn_unused_result));

/* Queues the chunk in *raw (raw_len bytes of nevents encoded events, the
 * first numbered first_seq) and takes the buffer; *raw and *raw_cap become
 * a spare buffer to fill next (or NULL and 0). Blocks while CHUNKQ_MAX
 * chunks wait. Returns 0 or the sticky error. */
int chunkq_submit(struct chunkq *q, uint8_t **raw, size_t *raw_cap,
		  size_t raw_len, uint32_t nevents, uint64_t first_seq)
	__attribute__((warn_unused_result));

/* Gives the space held past the end of the stream back to the file
 * system (for a stored file that found none); the queue holds space again
 * on a later chunk, when there is some. Waits until every submitted chunk
 * is written first. Returns the bytes given back. */
uint64_t chunkq_release_reserve(struct chunkq *q);

/* Waits until every submitted chunk is written (or dropped after an error).
 * Returns 0 or the sticky error. */
int chunkq_drain(struct chunkq *q) __attribute__((warn_unused_result));

/* The sticky error, 0 if none; does not wait. */
int chunkq_err(struct chunkq *q);

/* Stops the thread and frees everything. Queued chunks are written first
 * unless discard (the trace is being removed). q may be uninitialised
 * (zeroed). */
void chunkq_destroy(struct chunkq *q, bool discard);

#endif
