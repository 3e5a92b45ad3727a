/* Walking the records of one syscall buffer flush (src/syscallbuf/abi.h),
 * as read from a recorded program's buffer or from an MRR_EV_BUFFER event.
 * Both are untrusted: the program can scribble over its buffer and a trace
 * file can be damaged, so every field is checked before it is used.
 *
 * Thread-safe; no allocation.
 */
#ifndef MRR_CORE_SBUF_RECORDS_H
#define MRR_CORE_SBUF_RECORDS_H

#include "syscallbuf/abi.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the next record of recs[0, len) at *off.
 *
 * recs must be 8-byte aligned (as malloc returns), and *off 0 on the first
 * call. Returns 1 with *rec pointing at the record's header inside recs,
 * *data at its data_len bytes of data, and *off advanced past it; 0 when
 * *off == len (no more records); -EBADMSG when the record at *off is
 * malformed, with a one-sentence reason naming the offset in err (always
 * NUL-terminated when errlen > 0), leaving *off unchanged; -EINVAL when recs
 * is misaligned or *off is past len (a caller bug).
 *
 * A record is well-formed when its header fits in what is left, its size is
 * within what is left and exactly the header plus data_len rounded up to 8
 * (the library never pads more), nr is a syscall the library buffers, and
 * data_len follows that syscall's rule (src/syscallbuf/calls.h). */
int sbuf_next(const uint8_t *recs, size_t len, size_t *off,
	      const struct mrr_syscallbuf_rec **rec, const uint8_t **data,
	      char *err, size_t errlen) __attribute__((warn_unused_result));

/* The name of buffered syscall nr ("pread64"), or NULL if the library does
 * not buffer nr. */
const char *sbuf_call_name(uint32_t nr);

/* Writes a one-line description of a well-formed record (as sbuf_next
 * returned it) into buf, e.g. "pread64(3, 0x7ffc1000, 64) = 64 [64 bytes]",
 * truncated to buflen - 1 characters and NUL-terminated. Returns the length
 * the full line has, like snprintf. */
int sbuf_describe(const struct mrr_syscallbuf_rec *rec, char *buf,
		  size_t buflen);

#ifdef __cplusplus
}
#endif

#endif
