#include "core/point.h"

#include "core/events.h"
#include "trace/xxh64.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define EFLAGS_RF (1ull << 16)

void point_stack_hash(struct tracee *t, uint64_t rsp, bool red_zone,
		      struct point_stack *out)
{
	uint8_t buf[MRR_PREEMPT_STACK_BELOW + MRR_PREEMPT_STACK_ABOVE];
	uint64_t start = rsp - MRR_PREEMPT_STACK_BELOW;
	ssize_t n = red_zone ? tracee_read(t, start, buf, sizeof(buf)) : 0;

	if (n <= 0) {
		start = rsp;
		n = tracee_read(t, start, buf, MRR_PREEMPT_STACK_ABOVE);
	}
	if (n < 0)
		n = 0;
	out->start = start;
	out->len = (uint64_t)n;
	out->hash = trace_xxh64(buf, (size_t)n, 0);
}

void point_stack_none(uint64_t rsp, struct point_stack *out)
{
	static const uint8_t nothing;

	out->start = rsp;
	out->len = 0;
	out->hash = trace_xxh64(&nothing, 0, 0);
}

int point_stack_hash_range(struct tracee *t, uint64_t start, uint64_t len,
			   uint64_t *hash)
{
	uint8_t buf[MRR_PREEMPT_STACK_BELOW + MRR_PREEMPT_STACK_ABOVE];

	if (len > sizeof(buf))
		return -EFAULT;
	if (len && tracee_read_all(t, start, buf, len) < 0)
		return -EFAULT;
	*hash = trace_xxh64(buf, len, 0);
	return 0;
}

int point_deep_hash(struct tracee *t, uint64_t start, uint64_t end,
		    uint64_t *hash)
{
	static uint8_t buf[65536];
	struct trace_xxh64_state st;

	if (end < start || end - start > POINT_DEEP_MAX)
		return -EFAULT;
	trace_xxh64_init(&st, 0);
	while (start < end) {
		size_t n = end - start < sizeof(buf) ? (size_t)(end - start)
						     : sizeof(buf);

		if (tracee_read_all(t, start, buf, n) < 0)
			return -EFAULT;
		trace_xxh64_update(&st, buf, n);
		start += n;
	}
	*hash = trace_xxh64_digest(&st);
	return 0;
}

bool point_same_regs(const struct user_regs_struct *a,
		     const struct user_regs_struct *b, uint64_t mask,
		     int *first_diff)
{
	uint64_t wa[MRR_NREGS], wb[MRR_NREGS];
	const int eflags = offsetof(struct user_regs_struct, eflags) / 8;

	memcpy(wa, a, sizeof(wa));
	memcpy(wb, b, sizeof(wb));
	wa[eflags] &= ~EFLAGS_RF;
	wb[eflags] &= ~EFLAGS_RF;
	for (int i = 0; i < MRR_NREGS; i++) {
		if ((mask >> i & 1) && wa[i] != wb[i]) {
			*first_diff = i;
			return false;
		}
	}
	*first_diff = -1;
	return true;
}

unsigned point_rep_string_len(const uint8_t *code, size_t n)
{
	bool rep = false;
	size_t i;

	/* legacy prefixes (at most 14 bytes before the opcode), then REX */
	for (i = 0; i < n && i < 14; i++) {
		uint8_t b = code[i];

		if (b == 0xf2 || b == 0xf3)
			rep = true;
		else if (b != 0xf0 && b != 0x2e && b != 0x36 && b != 0x3e &&
			 b != 0x26 && b != 0x64 && b != 0x65 && b != 0x66 &&
			 b != 0x67)
			break;
	}
	if (i < n && (code[i] & 0xf0) == 0x40)
		i++;
	if (!rep || i >= n)
		return 0;
	/* ins, outs, movs, cmps, stos, lods, scas */
	if ((code[i] >= 0x6c && code[i] <= 0x6f) ||
	    (code[i] >= 0xa4 && code[i] <= 0xa7) ||
	    (code[i] >= 0xaa && code[i] <= 0xaf))
		return (unsigned)i + 1;
	return 0;
}

const char *point_reg_name(int i)
{
	static const char *const names[MRR_NREGS] = {
		"r15",	   "r14",      "r13", "r12", "rbp",    "rbx", "r11",
		"r10",	   "r9",       "r8",  "rax", "rcx",    "rdx", "rsi",
		"rdi",	   "orig_rax", "rip", "cs",  "eflags", "rsp", "ss",
		"fs_base", "gs_base",  "ds",  "es",  "fs",     "gs",
	};

	return i >= 0 && i < MRR_NREGS ? names[i] : "?";
}
