/* The x86-64 syscall table: everything mrr knows about each syscall, kept as
 * data (src/syscalls/syscalls.def, one line per syscall number).
 *
 * The recorder uses it to find the memory the kernel writes; the replayer to
 * decide whether to emulate or execute; dump to print calls. Thread-safe
 * (read-only data).
 */
#ifndef MRR_SYSCALLS_TABLE_H
#define MRR_SYSCALLS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the replayer does with a syscall. */
enum mrr_sc_class {
	MRR_SC_UNKNOWN = 0, /* not in the table: recording stops cleanly */
	MRR_SC_EMULATE,	    /* replay sets the recorded result and memory */
	MRR_SC_EXECUTE,	    /* replay runs it (address space, signal state) */
	MRR_SC_SPECIAL,	    /* hand-written code in src/record and src/replay */
	MRR_SC_UNSUPPORTED, /* known, but recording refuses it */
};

/* How to find one block of memory the kernel writes (an out-parameter).
 * ptr_arg is the index of the argument holding the address; a NULL address
 * means no block. Sizes are upper bounds on what the kernel writes into the
 * object the caller passed: a recorder copies the block after the call (bytes
 * the kernel left alone copy as they were). Unless MRR_OUT_F_ON_ERROR is set,
 * nothing is written when the call fails. mrr_out_rule_len() computes the
 * length. */
enum mrr_out_kind {
	MRR_OUT_NONE = 0,
	MRR_OUT_FIXED, /* size bytes */
	MRR_OUT_RET,   /* return value bytes (when > 0), capped by arg len_arg;
			* with size != 0, return value elements of size
			* bytes, capped by arg len_arg elements
			* (epoll_wait: 12-byte events) */
	MRR_OUT_ARG,   /* value of arg len_arg bytes, times size (1 if 0) */
	MRR_OUT_LENPTR_BEFORE, /* *(u32 *)arg[len_arg] read before the call */
	MRR_OUT_LENPTR_AFTER,  /* *(u32 *)arg[len_arg] read after the call,
				* capped by its value before the call (the
				* kernel reports full lengths but truncates) */
	MRR_OUT_RET_PLUS,  /* size header bytes plus return value bytes capped
			    * by arg len_arg, when the call succeeds (msgrcv) */
	MRR_OUT_ARG_DIVUP, /* value of arg len_arg divided by size, rounded up,
			    * bytes (mincore: one byte per page) */
	MRR_OUT_KIND_MAX,
};

/* mrr_out_rule.flags: the block is written even when the call fails
 * (nanosleep's remaining time on EINTR). */
#define MRR_OUT_F_ON_ERROR 0x1

struct mrr_out_rule {
	uint8_t kind;	 /* enum mrr_out_kind */
	uint8_t ptr_arg; /* 0..5 */
	uint8_t len_arg; /* 0..5, for RET/ARG/LENPTR_* */
	uint8_t flags;	 /* MRR_OUT_F_* */
	uint32_t size;	 /* FIXED: bytes; ARG: element size */
};

/* How dump prints an argument. */
enum mrr_arg_fmt {
	MRR_ARG_INT = 0, /* signed decimal */
	MRR_ARG_UINT,	 /* unsigned decimal */
	MRR_ARG_HEX,	 /* 0x..., 0 for zero */
	MRR_ARG_PTR,	 /* address, NULL for 0 */
	MRR_ARG_STR,	 /* NUL-terminated string in task memory
			  * (mrr_format_arg prints the address) */
	MRR_ARG_FD,	 /* file descriptor (AT_FDCWD decoded) */
	MRR_ARG_OPEN_FLAGS,
	MRR_ARG_MODE, /* octal */
	MRR_ARG_PROT,
	MRR_ARG_MAP_FLAGS,
	MRR_ARG_MADV,
	MRR_ARG_MLOCK_FLAGS, /* mlock2 */
	MRR_ARG_MCL_FLAGS,   /* mlockall */
	MRR_ARG_SIGNAL,
	MRR_ARG_CLONE_FLAGS, /* CLONE_* with the exit signal in the low byte */
	MRR_ARG_AT_FLAGS,
	MRR_ARG_MREMAP_FLAGS,
	MRR_ARG_MSYNC_FLAGS,
	MRR_ARG_CLOCKID,
	MRR_ARG_WHENCE,
	MRR_ARG_SIGHOW, /* rt_sigprocmask how */
	MRR_ARG_PRCTL_OP,
	MRR_ARG_ARCH_PRCTL_OP,
	MRR_ARG_FCNTL_CMD,
	MRR_ARG_FILE_FLAGS,    /* O_NONBLOCK|O_CLOEXEC without an access mode
				* (pipe2, dup3, accept4, eventfd2...) */
	MRR_ARG_UNSHARE_FLAGS, /* CLONE_NEW*, no exit signal (unshare, setns) */
	MRR_ARG_ACCESS_MODE,   /* F_OK, R_OK|W_OK|X_OK */
	MRR_ARG_ACCESSAT_FLAGS, /* faccessat2: AT_EACCESS... */
	MRR_ARG_FUTEX_OP,	/* FUTEX_WAIT_PRIVATE, ... */
	MRR_ARG_IOCTL_REQ,	/* an ioctl request mrr lists by name
				 * (TCGETS, LOOP_CTL_GET_FREE), else hex */
	MRR_ARG_FMT_MAX,
};

#define MRR_SC_MAX_OUT 3

/* One syscall. out[] lists the blocks the kernel writes, used slots first,
 * the rest MRR_OUT_NONE. EMULATE calls write exactly these (besides the
 * result register). EXECUTE calls write them again when replay runs the
 * call; a replayer may compare or overwrite. SPECIAL and UNSUPPORTED calls
 * have no rules: their handlers know the layout. */
struct mrr_syscall_desc {
	const char *name; /* "read"; NULL for an unused number */
	uint8_t nargs;
	uint8_t cls;	    /* enum mrr_sc_class */
	uint8_t arg_fmt[6]; /* enum mrr_arg_fmt; 0 for missing arguments */
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

/* How many argument registers, from the first, the kernel reads for this
 * call given its arguments (args.c): the table's count, fewer where an
 * earlier argument decides (prctl's option, mremap's flags, fcntl's
 * command, open's flags, clone's flags). 0 for numbers not in the table. */
int mrr_syscall_args_used(long nr, const uint64_t args[6]);

/* Whether the call may wait for another task (a futex wait, a read of a
 * pipe, poll, nanosleep, wait4, sched_yield...), given its arguments
 * (blocking.c). The recorder runs one thread of a process at a time and
 * lets another one run while a thread is in such a call. */
bool mrr_syscall_may_block(long nr, const uint64_t args[6]);

/* What an ioctl request writes through its third argument (ioctls.c). */
enum mrr_ioctl_out {
	MRR_IOCTL_NONE = 0, /* nothing (or input only) */
	MRR_IOCTL_FIXED,    /* *size bytes */
	MRR_IOCTL_IFCONF,   /* struct ifconf (*size bytes), then ifc_len
			     * bytes at ifc_buf as updated */
	MRR_IOCTL_UNKNOWN,  /* an old-style number mrr does not know: what
			     * it writes cannot be recorded */
	MRR_IOCTL_REFUSED,  /* known, and refused: what it starts cannot be
			     * recorded (mrr_ioctl_refusal says why) */
	MRR_IOCTL_PROCMAP,  /* PROCMAP_QUERY: struct procmap_query (*size
			     * bytes), then vma_name_size bytes at
			     * vma_name_addr (u32 at 80, u64 at 88) and
			     * build_id_size bytes at build_id_addr (u32 at
			     * 84, u64 at 96), as the kernel updated them */
	MRR_IOCTL_FIEMAP,   /* FS_IOC_FIEMAP: struct fiemap (*size bytes),
			     * then fm_mapped_extents (u32 at 20, at most
			     * fm_extent_count, u32 at 24) extents of 56
			     * bytes after it */
};

/* Returns the enum mrr_ioctl_out for req, with the size and, for listed
 * requests, the name ("VT_GETSTATE", else NULL). _IOC_READ requests write
 * their _IOC_SIZE. */
int mrr_ioctl_out(uint64_t req, uint32_t *size, const char **name);

/* For a MRR_IOCTL_REFUSED request: why mrr refuses it, a clause that
 * follows "the program called REQ at event N;" ("the kernel then ..."),
 * else NULL. */
const char *mrr_ioctl_refusal(uint64_t req);

/* For a syscall the table marks MRR_SC_UNSUPPORTED: why mrr refuses it, a
 * clause in the same style, or NULL when the table gives no reason. */
const char *mrr_syscall_refusal(long nr);

/* Bytes the kernel may have written for rule, given the call's six argument
 * registers, its result (negative errno on failure) and, for the LENPTR
 * kinds, the u32 at args[rule->len_arg] read before and after the call (pass
 * 0 otherwise). Returns 0 when there is no block: NULL address, failed call
 * without MRR_OUT_F_ON_ERROR, MRR_OUT_NONE or an unknown kind. Saturates at
 * UINT64_MAX instead of wrapping; callers still bound what they copy. */
uint64_t mrr_out_rule_len(const struct mrr_out_rule *rule,
			  const uint64_t args[6], int64_t ret,
			  uint32_t len_before, uint32_t len_after);

/* Writes the symbolic form of v for fmt into buf ("PROT_READ|PROT_WRITE",
 * "MADV_DONTNEED", "O_RDONLY|O_CLOEXEC"). Unknown flag bits print as
 * "|0x...", unknown values of enumerations in decimal (arch_prctl codes in
 * hex). Formats without names print as numbers; MRR_ARG_PTR and MRR_ARG_STR
 * print the address ("NULL" for 0). Always NUL-terminates when buflen > 0;
 * returns the length it wanted (like snprintf). An fmt out of range prints
 * as MRR_ARG_HEX. */
size_t mrr_format_arg(enum mrr_arg_fmt fmt, uint64_t v, char *buf,
		      size_t buflen);

/* "EINVAL" for 22, also the kernel-internal 512.. values ("ERESTARTSYS"),
 * NULL when unknown. */
const char *mrr_errno_name(int err);

/* "SIGSEGV" for 11, "SIGRTMIN" for 32, "SIGRTMIN+n" up to 64 (the kernel's
 * numbering, not glibc's), NULL when unknown. */
const char *mrr_signal_name(int sig);

/* "MADV_DONTNEED" for 4, NULL when unknown. */
const char *mrr_madv_name(int advice);

#ifdef __cplusplus
}
#endif

#endif
