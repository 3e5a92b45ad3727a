#include "core/insn.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

static int open_x86(csh *h)
{
	return cs_open(CS_ARCH_X86, CS_MODE_64, h) == CS_ERR_OK ? 0 : -1;
}

enum mrr_tsc_insn mrr_decode_tsc(const uint8_t *code, size_t len, uint64_t ip,
				 unsigned *insn_len)
{
	enum mrr_tsc_insn kind = MRR_INSN_OTHER;
	cs_insn *insn;
	csh h;

	if (open_x86(&h))
		return MRR_INSN_OTHER;
	if (cs_disasm(h, code, len, ip, 1, &insn) == 1) {
		if (insn->id == X86_INS_RDTSC)
			kind = MRR_INSN_RDTSC;
		else if (insn->id == X86_INS_RDTSCP)
			kind = MRR_INSN_RDTSCP;
		*insn_len = insn->size;
		cs_free(insn, 1);
	}
	cs_close(&h);
	return kind;
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
		int n = snprintf(buf + used, buflen - used, "%s 0x%llx: %s %s\n",
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
