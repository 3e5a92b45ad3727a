/* Instruction decoding (capstone) for the few instructions mrr emulates. */
#ifndef MRR_CORE_INSN_H
#define MRR_CORE_INSN_H

#include <stddef.h>
#include <stdint.h>

enum mrr_tsc_insn { MRR_INSN_OTHER = 0, MRR_INSN_RDTSC, MRR_INSN_RDTSCP };

/* Decodes the instruction at code (len bytes available, located at ip in the
 * task). Returns MRR_INSN_RDTSC/RDTSCP with its length in *insn_len, or
 * MRR_INSN_OTHER. */
enum mrr_tsc_insn mrr_decode_tsc(const uint8_t *code, size_t len, uint64_t ip,
				 unsigned *insn_len);

/* Disassembles up to max instructions starting at ip into buf, one per line
 * ("0x401000: mov eax, 1"), marking the line at mark_ip with "=>". Returns
 * the number of instructions printed. */
int mrr_disasm(const uint8_t *code, size_t len, uint64_t ip, uint64_t mark_ip,
	       int max, char *buf, size_t buflen);

/* The length of the instruction that ends at end_ip and writes memory
 * (its destination is a memory operand), decoded from the len bytes before
 * end_ip (code[len-1] is the byte before end_ip); 0 when none fits. Where
 * several lengths decode, the longest wins. For a watchpoint that fired
 * after a store: where the store began. */
unsigned mrr_store_ending_at(const uint8_t *code, size_t len, uint64_t end_ip);

#endif
