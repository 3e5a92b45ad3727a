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
