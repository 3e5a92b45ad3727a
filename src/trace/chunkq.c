/* Chunks compressed and written on a thread of their own (chunkq.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trace/chunkq.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/statfs.h>
#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "trace/io.h"
#include "trace/xxh64.h"

/* Holds space up to CHUNKQ_RESERVE past end (the stream's end after the
 * chunk about to be written), topping up when less than half is left.
 * Best effort: a full file system only leaves less held. */
static void reserve_ahead(struct chunkq *q, uint64_t end)
{
	uint64_t from =
		q->reserve_end > q->stream_len ? q->reserve_end : q->stream_len;
	uint64_t want = CHUNKQ_RESERVE, avail;
	struct statfs sf;

	if (q->no_reserve || q->reserve_end >= end + want / 2)
		return;
	/* never more than an eighth of what is free: on a small file
	 * system the reserve must not be what fills it */
	if (fstatfs(q->fd, &sf) == 0) {
		avail = (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize;
		if (want > avail / 8)
			want = avail / 8;
	}
	if (end + want <= from)
		return;
	/* a failed fallocate may keep part of the range (ext4): the
	 * whole range tried is given back at the end */
	if (end + want > q->tried_end)
		q->tried_end = end + want;
	if (fallocate(q->fd, FALLOC_FL_KEEP_SIZE, (off_t)from,
		      (off_t)(end + want - from)) == 0)
		q->reserve_end = end + want;
	else if (errno == EOPNOTSUPP || errno == ENOSYS)
		q->no_reserve = true;
}

/* Deallocates what is held past the stream's end. */
static uint64_t give_back_reserve(struct chunkq *q)
{
	uint64_t len = q->reserve_end > q->stream_len
			       ? q->reserve_end - q->stream_len
			       : 0;
	bool freed;

	if (q->tried_end <= q->stream_len)
		return 0;
	/* A truncation to the size frees blocks past the end on ext4 and
	 * xfs, which punch no hole there; tmpfs frees them by the punch.
	 * (The file is stream_len long, but for a torn chunk after a failed
	 * write, which nothing reads.) */
	freed = ftruncate(q->fd, (off_t)q->stream_len) == 0;
	if (fallocate(q->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)q->stream_len,
		      (off_t)(q->tried_end - q->stream_len)) == 0)
		freed = true;
	if (!freed)
		len = 0;
	q->reserve_end = q->stream_len;
	q->tried_end = q->stream_len;
	return len;
}

int chunkq_init(struct chunkq *q, int fd, int level)
{
	memset(q, 0, sizeof(*q));
	q->fd = fd;
	q->cctx = ZSTD_createCCtx();
	if (!q->cctx)
		return -ENOMEM;
	if (ZSTD_isError(
		    ZSTD_CCtx_setParameter(q->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(q->cctx, ZSTD_c_contentSizeFlag,
						1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(
		    q->cctx, ZSTD_c_compressionLevel, level)) ||
	    /* Buffered records repeat what the program read earlier, often
	     * further back than a fast level looks: long-distance matching
	     * finds those cheaply (a buffered 64-byte pread costs about 6
	     * trace bytes instead of 13, for the same CPU). */
	    ZSTD_isError(ZSTD_CCtx_setParameter(
		    q->cctx, ZSTD_c_enableLongDistanceMatching, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(q->cctx, ZSTD_c_windowLog,
						TRACE_ZSTD_WINDOW_LOG)))
		return -EINVAL;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->done, NULL);
	q->inited = true;
	reserve_ahead(q, 0);
	return 0;
}

/* Compresses one job into a chunk and appends it with one write loop, so
 * that a crash leaves at most this chunk torn. Runs without mu: only the
 * thread (or, without one, the caller) touches cctx, out and the file. */
static int write_chunk(struct chunkq *q, const struct chunkq_job *j,
		       uint64_t *written)
{
	size_t bound = ZSTD_compressBound(j->raw_len), clen, need;
	uint8_t *hdr;

	need = TRACE_CHUNK_HDR + bound;
	if (need > q->out_cap) {
		uint8_t *n = realloc(q->out, need);

		if (!n)
			return -ENOMEM;
		q->out = n;
		q->out_cap = need;
	}
	clen = ZSTD_compress2(q->cctx, q->out + TRACE_CHUNK_HDR, bound, j->raw,
			      j->raw_len);
	if (ZSTD_isError(clen) || clen > UINT32_MAX)
		return -EIO;
	hdr = q->out;
	put_le32(hdr, TRACE_CHUNK_MAGIC);
	put_le32(hdr + 4, (uint32_t)clen);
	put_le32(hdr + 8, (uint32_t)j->raw_len);
	put_le32(hdr + 12, j->nevents);
	put_le64(hdr + 16, j->first_seq);
	put_le32(hdr + 24,
		 (uint32_t)trace_xxh64(q->out + TRACE_CHUNK_HDR, clen, 0));
	put_le32(hdr + 28, (uint32_t)trace_xxh64(hdr, 28, 0));
	*written = TRACE_CHUNK_HDR + clen;
	reserve_ahead(q, q->stream_len + *written);
	return trace_write_all(q->fd, q->out, TRACE_CHUNK_HDR + clen);
}

/* Keeps a finished job's buffer for reuse, unless a big event made it
 * big: those are not kept around for the small ones. Called with mu. */
static void give_back(struct chunkq *q, struct chunkq_job *j)
{
	if (j->raw_cap <= 4 * TRACE_CHUNK_TARGET && q->nspare < CHUNKQ_MAX + 1)
		q->spare[q->nspare++] = *j;
	else
		free(j->raw);
	j->raw = NULL;
}

/* Writes (or, after an error, drops) job j and accounts for it. Called
 * without mu; takes it. */
static void finish_job(struct chunkq *q, struct chunkq_job *j)
{
	uint64_t written = 0;
	int err = __atomic_load_n(&q->err, __ATOMIC_ACQUIRE);

	if (!err)
		err = write_chunk(q, j, &written);
	pthread_mutex_lock(&q->mu);
	if (err && !q->err)
		__atomic_store_n(&q->err, err, __ATOMIC_RELEASE);
	if (!err) {
		q->stream_len += written;
		q->chunks++;
	}
	give_back(q, j);
	pthread_mutex_unlock(&q->mu);
}

static void *chunkq_main(void *arg)
{
	struct chunkq *q = arg;
	struct chunkq_job j;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->count && !q->stop)
			pthread_cond_wait(&q->work, &q->mu);
		if (!q->count)
			break; /* stop, with nothing left */
		j = q->q[q->head];
		q->head = (q->head + 1) % CHUNKQ_MAX;
		q->count--;
		q->busy = true;
		pthread_mutex_unlock(&q->mu);
		finish_job(q, &j);
		pthread_mutex_lock(&q->mu);
		q->busy = false;
		pthread_cond_broadcast(&q->done);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Starts the thread with every signal blocked: the recorder's handlers
 * (SIGINT, SIGCHLD) must run on the recorder's thread. */
static void start_thread(struct chunkq *q)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	q->running = pthread_create(&q->thread, NULL, chunkq_main, q) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int chunkq_submit(struct chunkq *q, uint8_t **raw, size_t *raw_cap,
		  size_t raw_len, uint32_t nevents, uint64_t first_seq)
{
	struct chunkq_job j = {*raw, raw_len, *raw_cap, nevents, first_seq};

	*raw = NULL;
	*raw_cap = 0;
	if (!q->running && !q->stop)
		start_thread(q);
	if (!q->running) {
		finish_job(q, &j);
	} else {
		pthread_mutex_lock(&q->mu);
		while (q->count == CHUNKQ_MAX)
			pthread_cond_wait(&q->done, &q->mu);
		q->q[(q->head + q->count) % CHUNKQ_MAX] = j;
		q->count++;
		pthread_cond_signal(&q->work);
		pthread_mutex_unlock(&q->mu);
	}
	pthread_mutex_lock(&q->mu);
	if (q->nspare) {
		struct chunkq_job *s = &q->spare[--q->nspare];

		*raw = s->raw;
		*raw_cap = s->raw_cap;
	}
	pthread_mutex_unlock(&q->mu);
	return chunkq_err(q);
}

uint64_t chunkq_release_reserve(struct chunkq *q)
{
	if (!q->inited)
		return 0;
	(void)!chunkq_drain(q);
	/* drained: the thread waits for work and touches nothing */
	return give_back_reserve(q);
}

int chunkq_drain(struct chunkq *q)
{
	if (q->running) {
		pthread_mutex_lock(&q->mu);
		while (q->count || q->busy)
			pthread_cond_wait(&q->done, &q->mu);
		pthread_mutex_unlock(&q->mu);
	}
	return chunkq_err(q);
}

int chunkq_err(struct chunkq *q)
{
	return __atomic_load_n(&q->err, __ATOMIC_ACQUIRE);
}

void chunkq_destroy(struct chunkq *q, bool discard)
{
	if (!q->inited) {
		ZSTD_freeCCtx(q->cctx);
		q->cctx = NULL;
		return;
	}
	pthread_mutex_lock(&q->mu);
	if (discard && !q->err)
		__atomic_store_n(&q->err, -ECANCELED, __ATOMIC_RELEASE);
	q->stop = true;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
	if (q->running)
		pthread_join(q->thread, NULL);
	q->running = false;
	give_back_reserve(q);
	/* Without a thread nothing is ever queued. */
	for (unsigned i = 0; i < q->nspare; i++)
		free(q->spare[i].raw);
	q->nspare = 0;
	ZSTD_freeCCtx(q->cctx);
	q->cctx = NULL;
	free(q->out);
	q->out = NULL;
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->mu);
	q->inited = false;
}
