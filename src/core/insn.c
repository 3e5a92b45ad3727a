#include "core/insn.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

static int open_x86(csh *h)
{
	return cs_open(CS_ARCH_X86, CS_MODE_64, h) == CS_ERR_OK ? 0 : -1;
}

/* One decoder for the process: mrr's tracing loops are single-threaded. */
static csh shared_handle(cs_insn **insn)
{
	static csh h;
	static cs_insn *buf;
	static int state; /* 0 unopened, 1 ok, -1 failed */

	if (state == 0) {
		state = open_x86(&h) == 0 ? 1 : -1;
		if (state == 1)
			buf = cs_malloc(h);
	}
	*insn = buf;
	return state == 1 && buf ? h : 0;
}

enum mrr_tsc_insn mrr_decode_tsc(const uint8_t *code, size_t len, uint64_t ip,
				 unsigned *insn_len)
{
	cs_insn *insn;
	csh h = shared_handle(&insn);
	const uint8_t *p = code;
	uint64_t addr = ip;

	*insn_len = 0;
	if (!h || !cs_disasm_iter(h, &p, &len, &addr, insn))
		return MRR_INSN_OTHER;
	*insn_len = insn->size;
	if (insn->id == X86_INS_RDTSC)
		return MRR_INSN_RDTSC;
	if (insn->id == X86_INS_RDTSCP)
		return MRR_INSN_RDTSCP;
	return MRR_INSN_OTHER;
}

int mrr_disasm(const uint8_t *code, size_t len, uint64_t ip, uint64_t mark_ip,
	       int max, char *buf, size_t buflen)
{
	size_t used = 0, count, i;
	cs_insn *insn;
	csh h;

	if (buflen)
		buf[0] = 0;
	if (open_x86(&h))
		return 0;
	count = cs_disasm(h, code, len, ip, (size_t)max, &insn);
	for (i = 0; i < count && used < buflen; i++) {
		int n = snprintf(buf + used, buflen - used,
				 "%s 0x%llx: %s %s\n",
				 insn[i].address == mark_ip ? "=>" : "  ",
				 (unsigned long long)insn[i].address,
				 insn[i].mnemonic, insn[i].op_str);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (count)
		cs_free(insn, count);
	cs_close(&h);
	return (int)count;
}

unsigned mrr_store_ending_at(const uint8_t *code, size_t len, uint64_t end_ip)
{
	cs_insn *insn;
	csh h = shared_handle(&insn);

	if (!h)
		return 0;
	for (unsigned k = (unsigned)(len < 15 ? len : 15); k >= 1; k--) {
		const uint8_t *p = code + len - k;
		size_t n = k;
		uint64_t addr = end_ip - k;

		if (cs_disasm_iter(h, &p, &n, &addr, insn) && insn->size == k &&
		    strstr(insn->op_str, "ptr [") &&
		    strstr(insn->op_str, "ptr [") < strchr(insn->op_str, ']') &&
		    (!strchr(insn->op_str, ',') ||
		     strstr(insn->op_str, "ptr [") <
			     strchr(insn->op_str, ',')) &&
		    strncmp(insn->mnemonic, "cmp", 3) &&
		    strncmp(insn->mnemonic, "test", 4) &&
		    insn->mnemonic[0] != 'j')
			return k;
	}
	return 0;
}
