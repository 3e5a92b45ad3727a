/* The x86-64 syscall table: everything mrr knows about each syscall, kept as
 * data (src/syscalls/syscalls.def, one line per syscall number).
 *
 * The recorder uses it to find the memory the kernel writes; the replayer to
 * decide whether to emulate or execute; dump to print calls. Thread-safe
 * (read-only data).
 */
#ifndef MRR_SYSCALLS_TABLE_H
#define MRR_SYSCALLS_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* What the replayer does with a syscall. */
enum mrr_sc_class {
	MRR_SC_UNKNOWN = 0,   /* not in the table: recording stops cleanly */
	MRR_SC_EMULATE,       /* replay sets the recorded result and memory */
	MRR_SC_EXECUTE,       /* replay runs it (address space, signal state) */
	MRR_SC_SPECIAL,       /* hand-written code in src/record and src/replay */
	MRR_SC_UNSUPPORTED,   /* known, but recording refuses it */
};

/* How to find one block of memory the kernel writes (an out-parameter).
 * ptr_arg is the index of the argument holding the address. */
enum mrr_out_kind {
	MRR_OUT_NONE = 0,
	MRR_OUT_FIXED,       /* size bytes */
	MRR_OUT_RET,         /* return value bytes (when > 0), capped by arg len_arg */
	MRR_OUT_ARG,         /* value of arg len_arg bytes, times size (1 if 0) */
	MRR_OUT_LENPTR_BEFORE, /* *(u32 *)arg[len_arg] read before the call */
	MRR_OUT_LENPTR_AFTER,  /* *(u32 *)arg[len_arg] read after the call */
};

struct mrr_out_rule {
	uint8_t kind;    /* enum mrr_out_kind */
	uint8_t ptr_arg; /* 0..5 */
	uint8_t len_arg; /* 0..5, for RET/ARG/LENPTR_* */
	uint32_t size;   /* FIXED: bytes; ARG: element size */
};

/* How dump prints an argument. */
enum mrr_arg_fmt {
	MRR_ARG_INT = 0,   /* signed decimal */
	MRR_ARG_UINT,      /* unsigned decimal */
	MRR_ARG_HEX,       /* 0x... */
	MRR_ARG_PTR,       /* address, NULL for 0 */
	MRR_ARG_STR,       /* NUL-terminated string in task memory */
	MRR_ARG_FD,        /* file descriptor (AT_FDCWD decoded) */
	MRR_ARG_OPEN_FLAGS,
	MRR_ARG_MODE,      /* octal */
	MRR_ARG_PROT,
	MRR_ARG_MAP_FLAGS,
	MRR_ARG_MADV,
	MRR_ARG_MLOCK_FLAGS, /* mlock2 */
	MRR_ARG_MCL_FLAGS,   /* mlockall */
	MRR_ARG_SIGNAL,
	MRR_ARG_CLONE_FLAGS,
	MRR_ARG_AT_FLAGS,
	MRR_ARG_MREMAP_FLAGS,
	MRR_ARG_MSYNC_FLAGS,
	MRR_ARG_CLOCKID,
	MRR_ARG_WHENCE,
	MRR_ARG_SIGHOW,    /* rt_sigprocmask how */
	MRR_ARG_PRCTL_OP,
	MRR_ARG_ARCH_PRCTL_OP,
	MRR_ARG_FCNTL_CMD,
	MRR_ARG_FMT_MAX,
};

#define MRR_SC_MAX_OUT 3

struct mrr_syscall_desc {
	const char *name; /* "read"; NULL for an unused number */
	uint8_t nargs;
	uint8_t cls; /* enum mrr_sc_class */
	uint8_t arg_fmt[6];
	struct mrr_out_rule out[MRR_SC_MAX_OUT];
};

/* Highest syscall number in the table (exclusive bound). */
#define MRR_SYSCALL_NR_MAX 512

/* Returns the descriptor of nr, or NULL when nr is out of range or unused. */
const struct mrr_syscall_desc *mrr_syscall_lookup(long nr);

/* "read", or NULL when unknown. */
const char *mrr_syscall_name(long nr);

/* Syscall number for a name, or -1. */
long mrr_syscall_by_name(const char *name);

/* Writes the symbolic form of v for fmt into buf ("PROT_READ|PROT_WRITE",
 * "MADV_DONTNEED", "O_RDONLY|O_CLOEXEC", unknown bits as hex). Formats
 * without names print as numbers. Always NUL-terminates when buflen > 0;
 * returns the length it wanted (like snprintf). */
size_t mrr_format_arg(enum mrr_arg_fmt fmt, uint64_t v, char *buf,
		      size_t buflen);

/* "EINVAL" for 22, NULL when unknown. */
const char *mrr_errno_name(int err);

/* "SIGSEGV" for 11, NULL when unknown. */
const char *mrr_signal_name(int sig);

/* "MADV_DONTNEED" for 4, NULL when unknown. */
const char *mrr_madv_name(int advice);

#endif
