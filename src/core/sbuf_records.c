#include "core/sbuf_records.h"

#include "syscallbuf/calls.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

struct sbuf_call {
	uint32_t nr;
	const char *name;
	unsigned rule;
	uint32_t size;
};

#define SBUF_CALL_ENTRY(nr, name, rule, size) {nr, name, rule, size},
static const struct sbuf_call sbuf_calls[] = {MRR_SB_CALLS(SBUF_CALL_ENTRY)};

static const struct sbuf_call *find_call(uint32_t nr)
{
	for (size_t i = 0; i < sizeof(sbuf_calls) / sizeof(sbuf_calls[0]); i++)
		if (sbuf_calls[i].nr == nr)
			return &sbuf_calls[i];
	return NULL;
}

const char *sbuf_call_name(uint32_t nr)
{
	const struct sbuf_call *c = find_call(nr);

	return c ? c->name : NULL;
}

/* Whether data_len is what the library writes for this call and result. */
static int data_len_ok(const struct sbuf_call *c,
		       const struct mrr_syscallbuf_rec *r)
{
	switch (c->rule) {
	case MRR_SB_RESULT:
		return r->data_len == (r->result > 0 ? (uint64_t)r->result : 0);
	case MRR_SB_FIXED:
		return r->data_len == 0 ||
		       (r->data_len == c->size && r->result >= 0);
	default:
		return r->data_len == 0;
	}
}

/* Whether the result is one the call can return. */
static int result_ok(const struct sbuf_call *c,
		     const struct mrr_syscallbuf_rec *r)
{
	switch (c->rule) {
	case MRR_SB_FD: /* a new fd, or -errno */
		return (r->result >= -4095 && r->result < 0) ||
		       (r->result >= 0 && r->result <= INT32_MAX);
	case MRR_SB_ID: /* never fails */
		return r->result >= 0 && r->result <= (int64_t)UINT32_MAX;
	default:
		return 1;
	}
}

int sbuf_next(const uint8_t *recs, size_t len, size_t *off,
	      const struct mrr_syscallbuf_rec **rec, const uint8_t **data,
	      char *err, size_t errlen)
{
	const struct mrr_syscallbuf_rec *r;
	const struct sbuf_call *c;
	size_t at = *off, left;

	if (errlen)
		err[0] = '\0';
	if ((uintptr_t)recs % 8 != 0 || at > len) {
		snprintf(err, errlen,
			 "records at %p, offset %zu of %zu: misaligned or out "
			 "of range",
			 (const void *)recs, at, len);
		return -EINVAL;
	}
	if (at == len)
		return 0;
	left = len - at;
	if (at % 8 != 0 || left < sizeof(*r)) {
		snprintf(err, errlen,
			 "the record at offset %zu is cut short: %zu bytes "
			 "left, a record header needs %zu",
			 at, left, sizeof(*r));
		return -EBADMSG;
	}
	r = (const struct mrr_syscallbuf_rec *)(recs + at);
	if (r->size < sizeof(*r) || r->size % 8 != 0 || r->size > left) {
		snprintf(err, errlen,
			 "the record at offset %zu has size %" PRIu32
			 " (it must be a multiple of 8 from %zu to the %zu "
			 "bytes left)",
			 at, r->size, sizeof(*r), left);
		return -EBADMSG;
	}
	if (r->data_len > r->size - sizeof(*r)) {
		snprintf(err, errlen,
			 "the record at offset %zu has %" PRIu32
			 " data bytes in a size of %" PRIu32,
			 at, r->data_len, r->size);
		return -EBADMSG;
	}
	/* The library never pads a record beyond the next multiple of 8. */
	if (r->size - sizeof(*r) - r->data_len >= 8) {
		snprintf(err, errlen,
			 "the record at offset %zu has size %" PRIu32
			 " for only %" PRIu32 " data bytes",
			 at, r->size, r->data_len);
		return -EBADMSG;
	}
	c = find_call(r->nr);
	if (!c) {
		snprintf(err, errlen,
			 "the record at offset %zu is for syscall %" PRIu32
			 ", which the library does not buffer",
			 at, r->nr);
		return -EBADMSG;
	}
	if (!data_len_ok(c, r)) {
		snprintf(err, errlen,
			 "the record at offset %zu (%s, result %" PRId64
			 ") has %" PRIu32 " data bytes, which that call "
			 "cannot write",
			 at, c->name, r->result, r->data_len);
		return -EBADMSG;
	}
	if (!result_ok(c, r)) {
		snprintf(err, errlen,
			 "the record at offset %zu (%s) has result %" PRId64
			 ", which that call cannot return",
			 at, c->name, r->result);
		return -EBADMSG;
	}
	*rec = r;
	*data = recs + at + sizeof(*r);
	*off = at + r->size;
	return 1;
}

int sbuf_describe(const struct mrr_syscallbuf_rec *rec, char *buf,
		  size_t buflen)
{
	const char *name = sbuf_call_name(rec->nr);
	char unknown[32];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "syscall_%" PRIu32, rec->nr);
		name = unknown;
	}
	return snprintf(buf, buflen,
			"%s(%" PRId64 ", 0x%" PRIx64 ", %" PRId64 ") = %" PRId64
			" [%" PRIu32 " bytes]",
			name, (int64_t)rec->args[0], rec->args[1],
			(int64_t)rec->args[2], rec->result, rec->data_len);
}
