/* Return addresses on a task's stack (retaddr.h). */
#include "record/retaddr.h"

#include "core/proc.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Executable ranges of program code (mrr's page and library left out). */
#define MAX_RANGES 64
struct ranges {
	uint64_t lo[MAX_RANGES], hi[MAX_RANGES];
	int n;
};

static void read_ranges(pid_t tid, struct ranges *r)
{
	struct proc_vma *v = NULL;
	long n = proc_read_vmas(tid, false, &v);

	r->n = 0;
	for (long i = 0; i < n && r->n < MAX_RANGES; i++) {
		if (!(v[i].prot & PROT_EXEC) ||
		    strstr(v[i].name, "libmrr_preload") ||
		    (v[i].start < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
		     v[i].end > MRR_PAGE_ADDR))
			continue;
		r->lo[r->n] = v[i].start;
		r->hi[r->n] = v[i].end;
		r->n++;
	}
	free(v);
}

static int range_of(const struct ranges *r, uint64_t addr)
{
	for (int i = 0; i < r->n; i++)
		if (addr >= r->lo[i] && addr < r->hi[i])
			return i;
	return -1;
}

/* Whether the bytes b[0..7], the 8 bytes before a candidate, end with a
 * call instruction: e8 rel32, or ff /2 with a register, a register
 * indirect, a disp8, a disp32, a sib or a rip-relative operand. */
static bool after_call(const uint8_t b[8])
{
	uint8_t m;

	if (b[3] == 0xe8)
		return true; /* call rel32 */
	if (b[6] == 0xff && (b[7] & 0xf8) == 0xd0)
		return true; /* call *%reg */
	if (b[6] == 0xff && (b[7] & 0xf8) == 0x10 && b[7] != 0x14 &&
	    b[7] != 0x15)
		return true; /* call *(%reg) */
	m = b[6];
	if (b[5] == 0xff && (m & 0xf8) == 0x50 && m != 0x54)
		return true; /* call *disp8(%reg) */
	if (b[5] == 0xff && b[6] == 0x14)
		return true; /* call *(sib) */
	if (b[4] == 0xff && b[5] == 0x54)
		return true; /* call *disp8(sib) */
	m = b[3];
	if (b[2] == 0xff && (m == 0x15 || ((m & 0xf8) == 0x90 && m != 0x94)))
		return true; /* call *disp32(%rip) or *disp32(%reg) */
	if (b[1] == 0xff && b[2] == 0x94)
		return true; /* call *disp32(sib) */
	return false;
}

int rec_return_addresses(struct rtask *t, uint64_t rsp, const uint64_t *skip,
			 int nskip, uint64_t *out, int max)
{
	uint64_t w[RETADDR_SCAN_BYTES / 8];
	struct ranges r;
	ssize_t got;
	int n = 0;

	if (max <= 0)
		return 0;
	got = tracee_read(&t->t, rsp, w, sizeof(w));
	if (got < 8)
		return 0;
	read_ranges(t->t.tid, &r);
	for (size_t i = 0; i < (size_t)got / 8 && n < max; i++) {
		uint64_t a = w[i];
		uint8_t code[8];
		bool seen = false;
		int k = range_of(&r, a);

		if (k < 0 || a - 8 < r.lo[k])
			continue;
		for (int j = 0; j < n && !seen; j++)
			seen = out[j] == a;
		for (int j = 0; j < nskip && !seen; j++)
			seen = skip[j] == a;
		if (seen ||
		    tracee_read_all(&t->t, a - 8, code, sizeof(code)) < 0 ||
		    !after_call(code))
			continue;
		out[n++] = a;
	}
	return n;
}
