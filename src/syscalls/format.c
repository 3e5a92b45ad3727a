/* Symbolic names for syscall arguments, errno values and signals.
 *
 * Values are the x86-64 Linux ABI ones written out as numbers, not taken
 * from the host's headers, so that mrr prints what the kernel means even
 * when libc is older; tests/unit/syscall_format_test.cc compares them with
 * the headers that do exist.
 */
#include "syscalls/table.h"

#include <stdarg.h>
#include <stdio.h>

struct name_val {
	uint64_t val;
	const char *name;
};

#define N(v, name)                                                             \
	{                                                                      \
		(v), name                                                      \
	}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Output that keeps counting once buf is full, like snprintf. */
struct fmt_out {
	char *buf;
	size_t cap;
	size_t len;
};

static void out_printf(struct fmt_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct fmt_out *o, const char *fmt, ...)
{
	char *dst = NULL;
	size_t room = 0;
	va_list ap;
	int n;

	if (o->len < o->cap) {
		dst = o->buf + o->len;
		room = o->cap - o->len;
	}
	va_start(ap, fmt);
	n = vsnprintf(dst, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static const char *find_name(const struct name_val *tab, size_t n, uint64_t val)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (tab[i].val == val)
			return tab[i].name;
	}
	return NULL;
}

/* Prints the names of the masks set in v, in table order, then leftover
 * bits as hex. A mask may have several bits (O_SYNC): it must come before
 * its parts. Returns whether anything was printed. */
static int put_flags(struct fmt_out *o, const struct name_val *tab, size_t n,
		     uint64_t v, int printed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (tab[i].val && (v & tab[i].val) == tab[i].val) {
			out_printf(o, "%s%s", printed ? "|" : "", tab[i].name);
			v &= ~tab[i].val;
			printed = 1;
		}
	}
	if (v) {
		out_printf(o, "%s0x%llx", printed ? "|" : "",
			   (unsigned long long)v);
		printed = 1;
	}
	return printed;
}

static void put_flags_or(struct fmt_out *o, const struct name_val *tab,
			 size_t n, uint64_t v, const char *zero)
{
	if (!v)
		out_printf(o, "%s", zero);
	else
		put_flags(o, tab, n, v, 0);
}

static void put_enum(struct fmt_out *o, const struct name_val *tab, size_t n,
		     uint64_t v)
{
	const char *name = find_name(tab, n, v);

	if (name)
		out_printf(o, "%s", name);
	else
		out_printf(o, "%lld", (long long)v);
}

/* File status flags, shared by open (after the access mode) and the
 * CLOEXEC and NONBLOCK flag arguments of pipe2, dup3, accept4... */
static const struct name_val file_flags[] = {
	N(00000100, "O_CREAT"),	     N(00000200, "O_EXCL"),
	N(00000400, "O_NOCTTY"),     N(00001000, "O_TRUNC"),
	N(00002000, "O_APPEND"),     N(00004000, "O_NONBLOCK"),
	N(04010000, "O_SYNC"),	     N(00010000, "O_DSYNC"),
	N(00020000, "O_ASYNC"),	     N(00040000, "O_DIRECT"),
	N(00100000, "O_LARGEFILE"),  N(020200000, "O_TMPFILE"),
	N(00200000, "O_DIRECTORY"),  N(00400000, "O_NOFOLLOW"),
	N(01000000, "O_NOATIME"),    N(02000000, "O_CLOEXEC"),
	N(04000000, "__O_SYNC"),     N(010000000, "O_PATH"),
	N(020000000, "__O_TMPFILE"),
};

static const char *const open_acc_mode[] = {"O_RDONLY", "O_WRONLY", "O_RDWR",
					    "O_ACCMODE"};

static const struct name_val prot_flags[] = {
	N(0x1, "PROT_READ"),
	N(0x2, "PROT_WRITE"),
	N(0x4, "PROT_EXEC"),
	N(0x8, "PROT_SEM"),
	N(0x01000000, "PROT_GROWSDOWN"),
	N(0x02000000, "PROT_GROWSUP"),
};

static const struct name_val map_types[] = {
	N(0x1, "MAP_SHARED"),
	N(0x2, "MAP_PRIVATE"),
	N(0x3, "MAP_SHARED_VALIDATE"),
	N(0x8, "MAP_DROPPABLE"),
};

/* MAP_ANONYMOUS before MAP_FIXED: "MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED". */
static const struct name_val map_flags[] = {
	N(0x20, "MAP_ANONYMOUS"),
	N(0x10, "MAP_FIXED"),
	N(0x40, "MAP_32BIT"),
	N(0x100, "MAP_GROWSDOWN"),
	N(0x800, "MAP_DENYWRITE"),
	N(0x1000, "MAP_EXECUTABLE"),
	N(0x2000, "MAP_LOCKED"),
	N(0x4000, "MAP_NORESERVE"),
	N(0x8000, "MAP_POPULATE"),
	N(0x10000, "MAP_NONBLOCK"),
	N(0x20000, "MAP_STACK"),
	N(0x40000, "MAP_HUGETLB"),
	N(0x80000, "MAP_SYNC"),
	N(0x100000, "MAP_FIXED_NOREPLACE"),
	N(0x4000000, "MAP_UNINITIALIZED"),
};

#define MAP_TYPE_MASK	0xfULL
#define MAP_HUGETLB_BIT 0x40000ULL
#define MAP_HUGE_SHIFT	26
#define MAP_HUGE_MASK	(0x3fULL << MAP_HUGE_SHIFT)

static const struct name_val madv_names[] = {
	N(0, "MADV_NORMAL"),	      N(1, "MADV_RANDOM"),
	N(2, "MADV_SEQUENTIAL"),      N(3, "MADV_WILLNEED"),
	N(4, "MADV_DONTNEED"),	      N(8, "MADV_FREE"),
	N(9, "MADV_REMOVE"),	      N(10, "MADV_DONTFORK"),
	N(11, "MADV_DOFORK"),	      N(12, "MADV_MERGEABLE"),
	N(13, "MADV_UNMERGEABLE"),    N(14, "MADV_HUGEPAGE"),
	N(15, "MADV_NOHUGEPAGE"),     N(16, "MADV_DONTDUMP"),
	N(17, "MADV_DODUMP"),	      N(18, "MADV_WIPEONFORK"),
	N(19, "MADV_KEEPONFORK"),     N(20, "MADV_COLD"),
	N(21, "MADV_PAGEOUT"),	      N(22, "MADV_POPULATE_READ"),
	N(23, "MADV_POPULATE_WRITE"), N(24, "MADV_DONTNEED_LOCKED"),
	N(25, "MADV_COLLAPSE"),	      N(100, "MADV_HWPOISON"),
	N(101, "MADV_SOFT_OFFLINE"),  N(102, "MADV_GUARD_INSTALL"),
	N(103, "MADV_GUARD_REMOVE"),
};

static const struct name_val mlock_flags[] = {
	N(0x1, "MLOCK_ONFAULT"),
};

static const struct name_val mcl_flags[] = {
	N(0x1, "MCL_CURRENT"),
	N(0x2, "MCL_FUTURE"),
	N(0x4, "MCL_ONFAULT"),
};

/* CLONE_NEWTIME (0x80) is only valid where no exit signal shares the low
 * byte: unshare, setns, clone3. */
static const struct name_val clone_flags[] = {
	N(0x00000080, "CLONE_NEWTIME"),
	N(0x00000100, "CLONE_VM"),
	N(0x00000200, "CLONE_FS"),
	N(0x00000400, "CLONE_FILES"),
	N(0x00000800, "CLONE_SIGHAND"),
	N(0x00001000, "CLONE_PIDFD"),
	N(0x00002000, "CLONE_PTRACE"),
	N(0x00004000, "CLONE_VFORK"),
	N(0x00008000, "CLONE_PARENT"),
	N(0x00010000, "CLONE_THREAD"),
	N(0x00020000, "CLONE_NEWNS"),
	N(0x00040000, "CLONE_SYSVSEM"),
	N(0x00080000, "CLONE_SETTLS"),
	N(0x00100000, "CLONE_PARENT_SETTID"),
	N(0x00200000, "CLONE_CHILD_CLEARTID"),
	N(0x00400000, "CLONE_DETACHED"),
	N(0x00800000, "CLONE_UNTRACED"),
	N(0x01000000, "CLONE_CHILD_SETTID"),
	N(0x02000000, "CLONE_NEWCGROUP"),
	N(0x04000000, "CLONE_NEWUTS"),
	N(0x08000000, "CLONE_NEWIPC"),
	N(0x10000000, "CLONE_NEWUSER"),
	N(0x20000000, "CLONE_NEWPID"),
	N(0x40000000, "CLONE_NEWNET"),
	N(0x80000000, "CLONE_IO"),
	N(0x100000000ULL, "CLONE_CLEAR_SIGHAND"),
	N(0x200000000ULL, "CLONE_INTO_CGROUP"),
};

#define CLONE_SIGNAL_MASK 0xffULL

/* 0x200 is AT_REMOVEDIR for unlinkat, the common user of these flags;
 * faccessat2 has its own format. */
static const struct name_val at_flags[] = {
	N(0x100, "AT_SYMLINK_NOFOLLOW"), N(0x200, "AT_REMOVEDIR"),
	N(0x400, "AT_SYMLINK_FOLLOW"),	 N(0x800, "AT_NO_AUTOMOUNT"),
	N(0x1000, "AT_EMPTY_PATH"),	 N(0x2000, "AT_STATX_FORCE_SYNC"),
	N(0x4000, "AT_STATX_DONT_SYNC"), N(0x8000, "AT_RECURSIVE"),
};

static const struct name_val accessat_flags[] = {
	N(0x100, "AT_SYMLINK_NOFOLLOW"),
	N(0x200, "AT_EACCESS"),
	N(0x1000, "AT_EMPTY_PATH"),
};

static const struct name_val access_mode[] = {
	N(4, "R_OK"),
	N(2, "W_OK"),
	N(1, "X_OK"),
};

static const struct name_val mremap_flags[] = {
	N(0x1, "MREMAP_MAYMOVE"),
	N(0x2, "MREMAP_FIXED"),
	N(0x4, "MREMAP_DONTUNMAP"),
};

static const struct name_val msync_flags[] = {
	N(0x1, "MS_ASYNC"),
	N(0x2, "MS_INVALIDATE"),
	N(0x4, "MS_SYNC"),
};

static const struct name_val clockids[] = {
	N(0, "CLOCK_REALTIME"),
	N(1, "CLOCK_MONOTONIC"),
	N(2, "CLOCK_PROCESS_CPUTIME_ID"),
	N(3, "CLOCK_THREAD_CPUTIME_ID"),
	N(4, "CLOCK_MONOTONIC_RAW"),
	N(5, "CLOCK_REALTIME_COARSE"),
	N(6, "CLOCK_MONOTONIC_COARSE"),
	N(7, "CLOCK_BOOTTIME"),
	N(8, "CLOCK_REALTIME_ALARM"),
	N(9, "CLOCK_BOOTTIME_ALARM"),
	N(11, "CLOCK_TAI"),
};

static const struct name_val whences[] = {
	N(0, "SEEK_SET"),  N(1, "SEEK_CUR"),  N(2, "SEEK_END"),
	N(3, "SEEK_DATA"), N(4, "SEEK_HOLE"),
};

static const struct name_val sighows[] = {
	N(0, "SIG_BLOCK"),
	N(1, "SIG_UNBLOCK"),
	N(2, "SIG_SETMASK"),
};

static const struct name_val prctl_ops[] = {
	N(1, "PR_SET_PDEATHSIG"),
	N(2, "PR_GET_PDEATHSIG"),
	N(3, "PR_GET_DUMPABLE"),
	N(4, "PR_SET_DUMPABLE"),
	N(5, "PR_GET_UNALIGN"),
	N(6, "PR_SET_UNALIGN"),
	N(7, "PR_GET_KEEPCAPS"),
	N(8, "PR_SET_KEEPCAPS"),
	N(9, "PR_GET_FPEMU"),
	N(10, "PR_SET_FPEMU"),
	N(11, "PR_GET_FPEXC"),
	N(12, "PR_SET_FPEXC"),
	N(13, "PR_GET_TIMING"),
	N(14, "PR_SET_TIMING"),
	N(15, "PR_SET_NAME"),
	N(16, "PR_GET_NAME"),
	N(19, "PR_GET_ENDIAN"),
	N(20, "PR_SET_ENDIAN"),
	N(21, "PR_GET_SECCOMP"),
	N(22, "PR_SET_SECCOMP"),
	N(23, "PR_CAPBSET_READ"),
	N(24, "PR_CAPBSET_DROP"),
	N(25, "PR_GET_TSC"),
	N(26, "PR_SET_TSC"),
	N(27, "PR_GET_SECUREBITS"),
	N(28, "PR_SET_SECUREBITS"),
	N(29, "PR_SET_TIMERSLACK"),
	N(30, "PR_GET_TIMERSLACK"),
	N(31, "PR_TASK_PERF_EVENTS_DISABLE"),
	N(32, "PR_TASK_PERF_EVENTS_ENABLE"),
	N(33, "PR_MCE_KILL"),
	N(34, "PR_MCE_KILL_GET"),
	N(35, "PR_SET_MM"),
	N(36, "PR_SET_CHILD_SUBREAPER"),
	N(37, "PR_GET_CHILD_SUBREAPER"),
	N(38, "PR_SET_NO_NEW_PRIVS"),
	N(39, "PR_GET_NO_NEW_PRIVS"),
	N(40, "PR_GET_TID_ADDRESS"),
	N(41, "PR_SET_THP_DISABLE"),
	N(42, "PR_GET_THP_DISABLE"),
	N(43, "PR_MPX_ENABLE_MANAGEMENT"),
	N(44, "PR_MPX_DISABLE_MANAGEMENT"),
	N(45, "PR_SET_FP_MODE"),
	N(46, "PR_GET_FP_MODE"),
	N(47, "PR_CAP_AMBIENT"),
	N(50, "PR_SVE_SET_VL"),
	N(51, "PR_SVE_GET_VL"),
	N(52, "PR_GET_SPECULATION_CTRL"),
	N(53, "PR_SET_SPECULATION_CTRL"),
	N(54, "PR_PAC_RESET_KEYS"),
	N(55, "PR_SET_TAGGED_ADDR_CTRL"),
	N(56, "PR_GET_TAGGED_ADDR_CTRL"),
	N(57, "PR_SET_IO_FLUSHER"),
	N(58, "PR_GET_IO_FLUSHER"),
	N(59, "PR_SET_SYSCALL_USER_DISPATCH"),
	N(60, "PR_PAC_SET_ENABLED_KEYS"),
	N(61, "PR_PAC_GET_ENABLED_KEYS"),
	N(62, "PR_SCHED_CORE"),
	N(63, "PR_SME_SET_VL"),
	N(64, "PR_SME_GET_VL"),
	N(65, "PR_SET_MDWE"),
	N(66, "PR_GET_MDWE"),
	N(67, "PR_SET_MEMORY_MERGE"),
	N(68, "PR_GET_MEMORY_MERGE"),
	N(69, "PR_RISCV_V_SET_CONTROL"),
	N(70, "PR_RISCV_V_GET_CONTROL"),
	N(71, "PR_RISCV_SET_ICACHE_FLUSH_CTX"),
	N(72, "PR_PPC_GET_DEXCR"),
	N(73, "PR_PPC_SET_DEXCR"),
	N(74, "PR_GET_SHADOW_STACK_STATUS"),
	N(75, "PR_SET_SHADOW_STACK_STATUS"),
	N(76, "PR_LOCK_SHADOW_STACK_STATUS"),
	N(77, "PR_TIMER_CREATE_RESTORE_IDS"),
	N(78, "PR_FUTEX_HASH"),
	N(0x41555856, "PR_GET_AUXV"),
	N(0x53564d41, "PR_SET_VMA"),
	N(0x59616d61, "PR_SET_PTRACER"),
};

static const struct name_val arch_prctl_ops[] = {
	N(0x1001, "ARCH_SET_GS"),
	N(0x1002, "ARCH_SET_FS"),
	N(0x1003, "ARCH_GET_FS"),
	N(0x1004, "ARCH_GET_GS"),
	N(0x1011, "ARCH_GET_CPUID"),
	N(0x1012, "ARCH_SET_CPUID"),
	N(0x1021, "ARCH_GET_XCOMP_SUPP"),
	N(0x1022, "ARCH_GET_XCOMP_PERM"),
	N(0x1023, "ARCH_REQ_XCOMP_PERM"),
	N(0x1024, "ARCH_GET_XCOMP_GUEST_PERM"),
	N(0x1025, "ARCH_REQ_XCOMP_GUEST_PERM"),
	N(0x2001, "ARCH_MAP_VDSO_X32"),
	N(0x2002, "ARCH_MAP_VDSO_32"),
	N(0x2003, "ARCH_MAP_VDSO_64"),
	N(0x4001, "ARCH_GET_UNTAG_MASK"),
	N(0x4002, "ARCH_ENABLE_TAGGED_ADDR"),
	N(0x4003, "ARCH_GET_MAX_TAG_BITS"),
	N(0x4004, "ARCH_FORCE_TAGGED_SVA"),
	N(0x5001, "ARCH_SHSTK_ENABLE"),
	N(0x5002, "ARCH_SHSTK_DISABLE"),
	N(0x5003, "ARCH_SHSTK_LOCK"),
	N(0x5004, "ARCH_SHSTK_UNLOCK"),
	N(0x5005, "ARCH_SHSTK_STATUS"),
};

static const struct name_val fcntl_cmds[] = {
	N(0, "F_DUPFD"),
	N(1, "F_GETFD"),
	N(2, "F_SETFD"),
	N(3, "F_GETFL"),
	N(4, "F_SETFL"),
	N(5, "F_GETLK"),
	N(6, "F_SETLK"),
	N(7, "F_SETLKW"),
	N(8, "F_SETOWN"),
	N(9, "F_GETOWN"),
	N(10, "F_SETSIG"),
	N(11, "F_GETSIG"),
	N(15, "F_SETOWN_EX"),
	N(16, "F_GETOWN_EX"),
	N(17, "F_GETOWNER_UIDS"),
	N(36, "F_OFD_GETLK"),
	N(37, "F_OFD_SETLK"),
	N(38, "F_OFD_SETLKW"),
	N(1024, "F_SETLEASE"),
	N(1025, "F_GETLEASE"),
	N(1026, "F_NOTIFY"),
	N(1027, "F_DUPFD_QUERY"),
	N(1028, "F_CREATED_QUERY"),
	N(1030, "F_DUPFD_CLOEXEC"),
	N(1031, "F_SETPIPE_SZ"),
	N(1032, "F_GETPIPE_SZ"),
	N(1033, "F_ADD_SEALS"),
	N(1034, "F_GET_SEALS"),
	N(1035, "F_GET_RW_HINT"),
	N(1036, "F_SET_RW_HINT"),
	N(1037, "F_GET_FILE_RW_HINT"),
	N(1038, "F_SET_FILE_RW_HINT"),
};

static const struct name_val futex_cmds[] = {
	N(0, "FUTEX_WAIT"),
	N(1, "FUTEX_WAKE"),
	N(2, "FUTEX_FD"),
	N(3, "FUTEX_REQUEUE"),
	N(4, "FUTEX_CMP_REQUEUE"),
	N(5, "FUTEX_WAKE_OP"),
	N(6, "FUTEX_LOCK_PI"),
	N(7, "FUTEX_UNLOCK_PI"),
	N(8, "FUTEX_TRYLOCK_PI"),
	N(9, "FUTEX_WAIT_BITSET"),
	N(10, "FUTEX_WAKE_BITSET"),
	N(11, "FUTEX_WAIT_REQUEUE_PI"),
	N(12, "FUTEX_CMP_REQUEUE_PI"),
	N(13, "FUTEX_LOCK_PI2"),
};

#define FUTEX_PRIVATE_FLAG   128ULL
#define FUTEX_CLOCK_REALTIME 256ULL
#define FUTEX_CMD_MASK	     127ULL

#define AT_FDCWD_VAL (-100)

static const char *const errno_names[] = {
	[1] = "EPERM",
	[2] = "ENOENT",
	[3] = "ESRCH",
	[4] = "EINTR",
	[5] = "EIO",
	[6] = "ENXIO",
	[7] = "E2BIG",
	[8] = "ENOEXEC",
	[9] = "EBADF",
	[10] = "ECHILD",
	[11] = "EAGAIN",
	[12] = "ENOMEM",
	[13] = "EACCES",
	[14] = "EFAULT",
	[15] = "ENOTBLK",
	[16] = "EBUSY",
	[17] = "EEXIST",
	[18] = "EXDEV",
	[19] = "ENODEV",
	[20] = "ENOTDIR",
	[21] = "EISDIR",
	[22] = "EINVAL",
	[23] = "ENFILE",
	[24] = "EMFILE",
	[25] = "ENOTTY",
	[26] = "ETXTBSY",
	[27] = "EFBIG",
	[28] = "ENOSPC",
	[29] = "ESPIPE",
	[30] = "EROFS",
	[31] = "EMLINK",
	[32] = "EPIPE",
	[33] = "EDOM",
	[34] = "ERANGE",
	[35] = "EDEADLK",
	[36] = "ENAMETOOLONG",
	[37] = "ENOLCK",
	[38] = "ENOSYS",
	[39] = "ENOTEMPTY",
	[40] = "ELOOP",
	[42] = "ENOMSG",
	[43] = "EIDRM",
	[44] = "ECHRNG",
	[45] = "EL2NSYNC",
	[46] = "EL3HLT",
	[47] = "EL3RST",
	[48] = "ELNRNG",
	[49] = "EUNATCH",
	[50] = "ENOCSI",
	[51] = "EL2HLT",
	[52] = "EBADE",
	[53] = "EBADR",
	[54] = "EXFULL",
	[55] = "ENOANO",
	[56] = "EBADRQC",
	[57] = "EBADSLT",
	[59] = "EBFONT",
	[60] = "ENOSTR",
	[61] = "ENODATA",
	[62] = "ETIME",
	[63] = "ENOSR",
	[64] = "ENONET",
	[65] = "ENOPKG",
	[66] = "EREMOTE",
	[67] = "ENOLINK",
	[68] = "EADV",
	[69] = "ESRMNT",
	[70] = "ECOMM",
	[71] = "EPROTO",
	[72] = "EMULTIHOP",
	[73] = "EDOTDOT",
	[74] = "EBADMSG",
	[75] = "EOVERFLOW",
	[76] = "ENOTUNIQ",
	[77] = "EBADFD",
	[78] = "EREMCHG",
	[79] = "ELIBACC",
	[80] = "ELIBBAD",
	[81] = "ELIBSCN",
	[82] = "ELIBMAX",
	[83] = "ELIBEXEC",
	[84] = "EILSEQ",
	[85] = "ERESTART",
	[86] = "ESTRPIPE",
	[87] = "EUSERS",
	[88] = "ENOTSOCK",
	[89] = "EDESTADDRREQ",
	[90] = "EMSGSIZE",
	[91] = "EPROTOTYPE",
	[92] = "ENOPROTOOPT",
	[93] = "EPROTONOSUPPORT",
	[94] = "ESOCKTNOSUPPORT",
	[95] = "EOPNOTSUPP",
	[96] = "EPFNOSUPPORT",
	[97] = "EAFNOSUPPORT",
	[98] = "EADDRINUSE",
	[99] = "EADDRNOTAVAIL",
	[100] = "ENETDOWN",
	[101] = "ENETUNREACH",
	[102] = "ENETRESET",
	[103] = "ECONNABORTED",
	[104] = "ECONNRESET",
	[105] = "ENOBUFS",
	[106] = "EISCONN",
	[107] = "ENOTCONN",
	[108] = "ESHUTDOWN",
	[109] = "ETOOMANYREFS",
	[110] = "ETIMEDOUT",
	[111] = "ECONNREFUSED",
	[112] = "EHOSTDOWN",
	[113] = "EHOSTUNREACH",
	[114] = "EALREADY",
	[115] = "EINPROGRESS",
	[116] = "ESTALE",
	[117] = "EUCLEAN",
	[118] = "ENOTNAM",
	[119] = "ENAVAIL",
	[120] = "EISNAM",
	[121] = "EREMOTEIO",
	[122] = "EDQUOT",
	[123] = "ENOMEDIUM",
	[124] = "EMEDIUMTYPE",
	[125] = "ECANCELED",
	[126] = "ENOKEY",
	[127] = "EKEYEXPIRED",
	[128] = "EKEYREVOKED",
	[129] = "EKEYREJECTED",
	[130] = "EOWNERDEAD",
	[131] = "ENOTRECOVERABLE",
	[132] = "ERFKILL",
	[133] = "EHWPOISON",
};

/* Kernel-internal values a tracer sees in rax at syscall exit. */
static const char *const errno_internal_names[] = {
	[512 - 512] = "ERESTARTSYS",
	[513 - 512] = "ERESTARTNOINTR",
	[514 - 512] = "ERESTARTNOHAND",
	[515 - 512] = "ENOIOCTLCMD",
	[516 - 512] = "ERESTART_RESTARTBLOCK",
	[517 - 512] = "EPROBE_DEFER",
	[518 - 512] = "EOPENSTALE",
	[519 - 512] = "ENOPARAM",
	[521 - 512] = "EBADHANDLE",
	[522 - 512] = "ENOTSYNC",
	[523 - 512] = "EBADCOOKIE",
	[524 - 512] = "ENOTSUPP",
	[525 - 512] = "ETOOSMALL",
	[526 - 512] = "ESERVERFAULT",
	[527 - 512] = "EBADTYPE",
	[528 - 512] = "EJUKEBOX",
	[529 - 512] = "EIOCBQUEUED",
	[530 - 512] = "ERECALLCONFLICT",
	[531 - 512] = "ENOGRACE",
};

const char *mrr_errno_name(int err)
{
	if (err > 0 && (size_t)err < COUNT(errno_names))
		return errno_names[err];
	if (err >= 512 && (size_t)(err - 512) < COUNT(errno_internal_names))
		return errno_internal_names[err - 512];
	return NULL;
}

static const char *const signal_names[] = {
	[1] = "SIGHUP",	    [2] = "SIGINT",	[3] = "SIGQUIT",
	[4] = "SIGILL",	    [5] = "SIGTRAP",	[6] = "SIGABRT",
	[7] = "SIGBUS",	    [8] = "SIGFPE",	[9] = "SIGKILL",
	[10] = "SIGUSR1",   [11] = "SIGSEGV",	[12] = "SIGUSR2",
	[13] = "SIGPIPE",   [14] = "SIGALRM",	[15] = "SIGTERM",
	[16] = "SIGSTKFLT", [17] = "SIGCHLD",	[18] = "SIGCONT",
	[19] = "SIGSTOP",   [20] = "SIGTSTP",	[21] = "SIGTTIN",
	[22] = "SIGTTOU",   [23] = "SIGURG",	[24] = "SIGXCPU",
	[25] = "SIGXFSZ",   [26] = "SIGVTALRM", [27] = "SIGPROF",
	[28] = "SIGWINCH",  [29] = "SIGIO",	[30] = "SIGPWR",
	[31] = "SIGSYS",
};

#define RT(n) "SIGRTMIN+" #n
static const char *const rt_signal_names[] = {
	"SIGRTMIN", RT(1),  RT(2),  RT(3),  RT(4),  RT(5),  RT(6),
	RT(7),	    RT(8),  RT(9),  RT(10), RT(11), RT(12), RT(13),
	RT(14),	    RT(15), RT(16), RT(17), RT(18), RT(19), RT(20),
	RT(21),	    RT(22), RT(23), RT(24), RT(25), RT(26), RT(27),
	RT(28),	    RT(29), RT(30), RT(31), RT(32),
};
#undef RT

#define KERNEL_SIGRTMIN 32

const char *mrr_signal_name(int sig)
{
	if (sig > 0 && sig < KERNEL_SIGRTMIN)
		return signal_names[sig];
	if (sig >= KERNEL_SIGRTMIN &&
	    (size_t)(sig - KERNEL_SIGRTMIN) < COUNT(rt_signal_names))
		return rt_signal_names[sig - KERNEL_SIGRTMIN];
	return NULL;
}

const char *mrr_madv_name(int advice)
{
	if (advice < 0)
		return NULL;
	return find_name(madv_names, COUNT(madv_names), (uint64_t)advice);
}

static void put_signal(struct fmt_out *o, uint64_t v)
{
	const char *name = NULL;

	if (v <= 0x7fffffff)
		name = mrr_signal_name((int)v);
	if (name)
		out_printf(o, "%s", name);
	else
		out_printf(o, "%lld", (long long)v);
}

static void put_open_flags(struct fmt_out *o, uint64_t v)
{
	out_printf(o, "%s", open_acc_mode[v & 3]);
	put_flags(o, file_flags, COUNT(file_flags), v & ~3ULL, 1);
}

static void put_map_flags(struct fmt_out *o, uint64_t v)
{
	uint64_t type = v & MAP_TYPE_MASK;
	const char *type_name = find_name(map_types, COUNT(map_types), type);
	int printed = 0;

	if (!v) {
		out_printf(o, "0");
		return;
	}
	if (type_name) {
		out_printf(o, "%s", type_name);
		v &= ~MAP_TYPE_MASK;
		printed = 1;
	}
	/* With MAP_HUGETLB, bits 26..31 hold log2 of the huge page size and
	 * bit 26 no longer means MAP_UNINITIALIZED. */
	if ((v & MAP_HUGETLB_BIT) && (v & MAP_HUGE_MASK)) {
		unsigned int shift =
			(unsigned int)((v & MAP_HUGE_MASK) >> MAP_HUGE_SHIFT);

		printed = put_flags(o, map_flags, COUNT(map_flags),
				    v & ~MAP_HUGE_MASK, printed);
		if (shift >= 30)
			out_printf(o, "|MAP_HUGE_%lluGB", 1ULL << (shift - 30));
		else if (shift >= 20)
			out_printf(o, "|MAP_HUGE_%lluMB", 1ULL << (shift - 20));
		else if (shift >= 10)
			out_printf(o, "|MAP_HUGE_%lluKB", 1ULL << (shift - 10));
		else
			out_printf(o, "|%u<<MAP_HUGE_SHIFT", shift);
		return;
	}
	put_flags(o, map_flags, COUNT(map_flags), v, printed);
}

static void put_clone_flags(struct fmt_out *o, uint64_t v)
{
	uint64_t sig = v & CLONE_SIGNAL_MASK;
	const char *sig_name = mrr_signal_name((int)sig);
	int printed;

	if (!v) {
		out_printf(o, "0");
		return;
	}
	/* The low byte is the exit signal: CLONE_NEWTIME cannot be set here. */
	printed = put_flags(o, clone_flags + 1, COUNT(clone_flags) - 1,
			    v & ~CLONE_SIGNAL_MASK, 0);
	if (!sig)
		return;
	if (sig_name)
		out_printf(o, "%s%s", printed ? "|" : "", sig_name);
	else
		out_printf(o, "%s0x%llx", printed ? "|" : "",
			   (unsigned long long)sig);
}

static void put_futex_op(struct fmt_out *o, uint64_t v)
{
	const char *cmd =
		find_name(futex_cmds, COUNT(futex_cmds), v & FUTEX_CMD_MASK);
	uint64_t rest = v & ~(FUTEX_CMD_MASK | FUTEX_PRIVATE_FLAG);

	if (cmd)
		out_printf(o, "%s", cmd);
	else
		out_printf(o, "%llu", (unsigned long long)(v & FUTEX_CMD_MASK));
	if (v & FUTEX_PRIVATE_FLAG)
		out_printf(o, "_PRIVATE");
	if (rest & FUTEX_CLOCK_REALTIME) {
		out_printf(o, "|FUTEX_CLOCK_REALTIME");
		rest &= ~FUTEX_CLOCK_REALTIME;
	}
	if (rest)
		out_printf(o, "|0x%llx", (unsigned long long)rest);
}

static void put_hex(struct fmt_out *o, uint64_t v)
{
	if (v)
		out_printf(o, "0x%llx", (unsigned long long)v);
	else
		out_printf(o, "0");
}

size_t mrr_format_arg(enum mrr_arg_fmt fmt, uint64_t v, char *buf,
		      size_t buflen)
{
	struct fmt_out o = {.buf = buf, .cap = buflen, .len = 0};

	if (buf && buflen)
		buf[0] = '\0';

	switch (fmt) {
	case MRR_ARG_INT:
		out_printf(&o, "%lld", (long long)v);
		break;
	case MRR_ARG_UINT:
		out_printf(&o, "%llu", (unsigned long long)v);
		break;
	case MRR_ARG_PTR:
	case MRR_ARG_STR:
		if (v)
			out_printf(&o, "0x%llx", (unsigned long long)v);
		else
			out_printf(&o, "NULL");
		break;
	case MRR_ARG_FD:
		/* fd arguments are int; the upper half of the register is
		 * ignored by the kernel. */
		if ((int32_t)v == AT_FDCWD_VAL)
			out_printf(&o, "AT_FDCWD");
		else
			out_printf(&o, "%d", (int32_t)v);
		break;
	case MRR_ARG_OPEN_FLAGS:
		put_open_flags(&o, v);
		break;
	case MRR_ARG_MODE:
		if (v)
			out_printf(&o, "0%llo", (unsigned long long)v);
		else
			out_printf(&o, "0");
		break;
	case MRR_ARG_PROT:
		put_flags_or(&o, prot_flags, COUNT(prot_flags), v, "PROT_NONE");
		break;
	case MRR_ARG_MAP_FLAGS:
		put_map_flags(&o, v);
		break;
	case MRR_ARG_MADV:
		put_enum(&o, madv_names, COUNT(madv_names), v);
		break;
	case MRR_ARG_MLOCK_FLAGS:
		put_flags_or(&o, mlock_flags, COUNT(mlock_flags), v, "0");
		break;
	case MRR_ARG_MCL_FLAGS:
		put_flags_or(&o, mcl_flags, COUNT(mcl_flags), v, "0");
		break;
	case MRR_ARG_SIGNAL:
		put_signal(&o, v);
		break;
	case MRR_ARG_CLONE_FLAGS:
		put_clone_flags(&o, v);
		break;
	case MRR_ARG_AT_FLAGS:
		put_flags_or(&o, at_flags, COUNT(at_flags), v, "0");
		break;
	case MRR_ARG_MREMAP_FLAGS:
		put_flags_or(&o, mremap_flags, COUNT(mremap_flags), v, "0");
		break;
	case MRR_ARG_MSYNC_FLAGS:
		put_flags_or(&o, msync_flags, COUNT(msync_flags), v, "0");
		break;
	case MRR_ARG_CLOCKID:
		/* Negative ids name per-process CPU clocks and fd clocks. */
		if (find_name(clockids, COUNT(clockids), v))
			put_enum(&o, clockids, COUNT(clockids), v);
		else
			out_printf(&o, "%d", (int32_t)v);
		break;
	case MRR_ARG_WHENCE:
		put_enum(&o, whences, COUNT(whences), v);
		break;
	case MRR_ARG_SIGHOW:
		put_enum(&o, sighows, COUNT(sighows), v);
		break;
	case MRR_ARG_PRCTL_OP:
		put_enum(&o, prctl_ops, COUNT(prctl_ops), v);
		break;
	case MRR_ARG_ARCH_PRCTL_OP: {
		const char *name =
			find_name(arch_prctl_ops, COUNT(arch_prctl_ops), v);

		/* The codes are hex by family (0x1001, 0x5001). */
		if (name)
			out_printf(&o, "%s", name);
		else
			put_hex(&o, v);
		break;
	}
	case MRR_ARG_FCNTL_CMD:
		put_enum(&o, fcntl_cmds, COUNT(fcntl_cmds), v);
		break;
	case MRR_ARG_FILE_FLAGS:
		put_flags_or(&o, file_flags, COUNT(file_flags), v, "0");
		break;
	case MRR_ARG_UNSHARE_FLAGS:
		put_flags_or(&o, clone_flags, COUNT(clone_flags), v, "0");
		break;
	case MRR_ARG_ACCESS_MODE:
		put_flags_or(&o, access_mode, COUNT(access_mode), v, "F_OK");
		break;
	case MRR_ARG_ACCESSAT_FLAGS:
		put_flags_or(&o, accessat_flags, COUNT(accessat_flags), v, "0");
		break;
	case MRR_ARG_FUTEX_OP:
		put_futex_op(&o, v);
		break;
	case MRR_ARG_IOCTL_REQ: {
		const char *name;
		uint32_t size;

		mrr_ioctl_out(v, &size, &name);
		if (name)
			out_printf(&o, "%s", name);
		else
			put_hex(&o, v);
		break;
	}
	case MRR_ARG_HEX:
	default:
		put_hex(&o, v);
		break;
	}
	return o.len;
}
