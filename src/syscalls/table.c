/* The syscall table, expanded from syscalls.def. */
#include "syscalls/table.h"

#include <string.h>

/* The .def file names formats by their MRR_ARG_ suffix; "_" is an argument
 * the syscall does not have. */
#define MRR_ARG__ MRR_ARG_INT

#define OUT_RULE(k, p, l, s, f)                                                \
	{                                                                      \
		.kind = (k), .ptr_arg = (p), .len_arg = (l), .flags = (f),     \
		.size = (s)                                                    \
	}
#define NO		   OUT_RULE(MRR_OUT_NONE, 0, 0, 0, 0)
#define FIXED(p, s)	   OUT_RULE(MRR_OUT_FIXED, p, 0, s, 0)
#define FIXED_ERR(p, s)	   OUT_RULE(MRR_OUT_FIXED, p, 0, s, MRR_OUT_F_ON_ERROR)
#define RET(p, l)	   OUT_RULE(MRR_OUT_RET, p, l, 0, 0)
#define RET_ELEMS(p, l, s) OUT_RULE(MRR_OUT_RET, p, l, s, 0)
#define RET_PLUS(p, l, s)  OUT_RULE(MRR_OUT_RET_PLUS, p, l, s, 0)
#define ARG(p, l, s)	   OUT_RULE(MRR_OUT_ARG, p, l, s, 0)
#define ARG_ERR(p, l, s)   OUT_RULE(MRR_OUT_ARG, p, l, s, MRR_OUT_F_ON_ERROR)
#define ARG_DIVUP_ERR(p, l, s)                                                 \
	OUT_RULE(MRR_OUT_ARG_DIVUP, p, l, s, MRR_OUT_F_ON_ERROR)
#define LENPTR_BEFORE(p, l) OUT_RULE(MRR_OUT_LENPTR_BEFORE, p, l, 0, 0)
#define LENPTR_AFTER(p, l)  OUT_RULE(MRR_OUT_LENPTR_AFTER, p, l, 0, 0)

#define SC(nr, sc_name, n, cls_, f0, f1, f2, f3, f4, f5, ...)                  \
	[nr] = {                                                               \
		.name = #sc_name,                                              \
		.nargs = (n),                                                  \
		.cls = MRR_SC_##cls_,                                          \
		.arg_fmt = {MRR_ARG_##f0, MRR_ARG_##f1, MRR_ARG_##f2,          \
			    MRR_ARG_##f3, MRR_ARG_##f4, MRR_ARG_##f5},         \
		.out = {__VA_ARGS__},                                          \
	},

static const struct mrr_syscall_desc syscall_table[MRR_SYSCALL_NR_MAX] = {
#include "syscalls/syscalls.def"
};

#undef SC

const struct mrr_syscall_desc *mrr_syscall_lookup(long nr)
{
	if (nr < 0 || nr >= MRR_SYSCALL_NR_MAX)
		return NULL;
	if (!syscall_table[nr].name)
		return NULL;
	return &syscall_table[nr];
}

const char *mrr_syscall_name(long nr)
{
	const struct mrr_syscall_desc *desc = mrr_syscall_lookup(nr);

	return desc ? desc->name : NULL;
}

long mrr_syscall_by_name(const char *name)
{
	long nr;

	if (!name)
		return -1;
	for (nr = 0; nr < MRR_SYSCALL_NR_MAX; nr++) {
		if (syscall_table[nr].name &&
		    strcmp(syscall_table[nr].name, name) == 0)
			return nr;
	}
	return -1;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (b && a > UINT64_MAX / b)
		return UINT64_MAX;
	return a * b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t mrr_out_rule_len(const struct mrr_out_rule *rule,
			  const uint64_t args[6], int64_t ret,
			  uint32_t len_before, uint32_t len_after)
{
	uint64_t len_arg, size;

	if (rule->ptr_arg > 5 || rule->len_arg > 5 || !args[rule->ptr_arg])
		return 0;
	if (ret < 0 && !(rule->flags & MRR_OUT_F_ON_ERROR))
		return 0;
	len_arg = args[rule->len_arg];
	size = rule->size;

	switch (rule->kind) {
	case MRR_OUT_FIXED:
		return size;
	case MRR_OUT_RET:
		if (ret <= 0)
			return 0;
		return mul_sat(min_u64((uint64_t)ret, len_arg),
			       size ? size : 1);
	case MRR_OUT_ARG:
		return mul_sat(len_arg, size ? size : 1);
	case MRR_OUT_LENPTR_BEFORE:
		return len_before;
	case MRR_OUT_LENPTR_AFTER:
		return min_u64(len_after, len_before);
	case MRR_OUT_RET_PLUS:
		if (ret < 0)
			return 0;
		return min_u64((uint64_t)ret, len_arg) + size;
	case MRR_OUT_ARG_DIVUP:
		if (!size)
			return 0;
		return len_arg / size + (len_arg % size != 0);
	default:
		return 0;
	}
}

const char *mrr_syscall_refusal(long nr)
{
	switch (nr) {
	case 206: /* io_setup */
	case 207: /* io_destroy */
	case 208: /* io_getevents */
	case 209: /* io_submit */
	case 210: /* io_cancel */
	case 333: /* io_pgetevents */
		return "Linux AIO completes requests in the background, "
		       "writing the program's buffers and the completion ring "
		       "in its memory outside any syscall, which mrr cannot "
		       "record";
	case 426: /* io_uring_enter */
	case 427: /* io_uring_register */
		return "io_uring's kernel workers run the program's requests "
		       "and write its buffers and the rings it shares with "
		       "the kernel outside any syscall, which mrr cannot "
		       "record";
	case 134: /* uselib */
		return "the kernel loads an a.out library that mrr cannot "
		       "store";
	case 172: /* iopl */
	case 173: /* ioperm */
		return "I/O port instructions would then read hardware "
		       "without a syscall, which mrr cannot record";
	case 175: /* init_module */
	case 176: /* delete_module */
	case 313: /* finit_module */
	case 246: /* kexec_load */
	case 320: /* kexec_file_load */
		return "it changes the running kernel, which a replay "
		       "cannot do again";
	case 453: /* map_shadow_stack */
		return "mrr does not record shadow stacks";
	}
	return NULL;
}
