#include "core/seccomp_filter.h"

#include "core/proc.h"
#include "core/tracee.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <signal.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

bool mrr_file_raises_privs(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if ((st.st_mode & S_ISUID) ||
	    (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return true;
	return getxattr(path, "security.capability", NULL, 0) > 0;
}

int mrr_install_seccomp_filter(bool untraced_sigaction, bool keep_privs)
{
	/* ip after the untraced `syscall` instruction */
	const unsigned long long ip =
		MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL + 2;
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		/* rt_sigaction, but for the timer signals, runs untraced
		 * (when untraced_sigaction; else the jump below skips to the
		 * ip check either way). The kernel takes the signal as an
		 * int: its low 32 bits. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction,
			 untraced_sigaction ? 0 : 6, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGALRM, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGVTALRM, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGPROF, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer) +
				 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(ip >> 32), 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)ip, 0, 5),
		/* and only with the buffer's token in the sixth argument */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[5])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (unsigned)MRR_SYSCALLBUF_TOKEN, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[5]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (unsigned)(MRR_SYSCALLBUF_TOKEN >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	/* With CAP_SYS_ADMIN the kernel takes the filter without
	 * no_new_privs, and the program's own answers stay the kernel's. */
	if (keep_privs &&
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
		return 0;
	if (keep_privs && errno != EACCES)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return -errno;
	return 0;
}

int mrr_seccomp_installs_filter(long nr, const uint64_t args[6])
{
	if (nr == SYS_seccomp)
		return args[0] == SECCOMP_SET_MODE_FILTER;
	if (nr == SYS_prctl)
		return args[0] == PR_SET_SECCOMP &&
		       args[1] == SECCOMP_MODE_FILTER;
	return 0;
}

/* Lets mrr's calls through: the control numbers from anywhere, any call
 * from the injection instruction. A = 0 at the end, as the kernel starts
 * the program's filter (X is untouched). */
static void build_prefix(struct sock_filter *p)
{
	const unsigned long long ip =
		MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL + 2;
	struct sock_filter code[MRR_SECCOMP_PREFIX_LEN] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, MRR_SYSCALL_REGISTER, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, MRR_SYSCALL_DESYNC, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer) +
				 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(ip >> 32), 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)ip, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_IMM, 0),
	};

	memcpy(p, code, sizeof(code));
}

/* Where a rewritten filter of n instructions (behind its 16-byte
 * sock_fprog) goes: the scratch area of mrr's page, or, when it does not
 * fit there, the task's main stack below the red zone, which the program
 * does not use during the syscall. 0: nowhere. */
static uint64_t rewrite_place(struct tracee *t, uint64_t rsp, size_t n)
{
	uint64_t size = 16 + n * sizeof(struct sock_filter), at = 0;
	struct proc_vma *v;
	long nv, i;

	if (n <= MRR_SECCOMP_MAX_REWRITE + MRR_SECCOMP_PREFIX_LEN)
		return MRR_PAGE_ADDR + MRR_PAGE_SCRATCH;
	nv = proc_read_vmas(t->tid, false, &v);
	for (i = 0; i < nv; i++)
		if (!strcmp(v[i].name, "[stack]") && rsp > v[i].start &&
		    rsp <= v[i].end && rsp - v[i].start >= 128 + size + 16)
			at = (rsp - 128 - size) & ~15ull;
	if (nv > 0)
		free(v);
	return at;
}

/* Whether the program's filter at fprog_addr may answer with anything but
 * ALLOW, ERRNO or LOG (a signal, a kill, a tracer, a supervisor). */
static int filter_may_signal(struct tracee *t, uint64_t fprog_addr)
{
	struct sock_filter code[256];
	struct {
		uint16_t len;
		uint16_t pad[3];
		uint64_t filter;
	} fprog;
	size_t done = 0;

	if (tracee_read_all(t, fprog_addr, &fprog, sizeof(fprog)) < 0)
		return 0; /* the kernel refuses it too */
	while (done < fprog.len) {
		size_t k = fprog.len - done < 256 ? fprog.len - done : 256;

		if (tracee_read_all(t, fprog.filter + done * sizeof(code[0]),
				    code, k * sizeof(code[0])) < 0)
			return 0;
		for (size_t i = 0; i < k; i++) {
			uint32_t action = code[i].k & SECCOMP_RET_ACTION_FULL;

			if (BPF_CLASS(code[i].code) != BPF_RET)
				continue;
			if (BPF_RVAL(code[i].code) != BPF_K)
				return 1; /* RET A: anything */
			if (action != SECCOMP_RET_ALLOW &&
			    action != SECCOMP_RET_ERRNO &&
			    action != SECCOMP_RET_LOG)
				return 1;
		}
		done += k;
	}
	return 0;
}

uint32_t mrr_seccomp_sbuf_bits(struct tracee *t, long nr, const uint64_t *args)
{
	char path[64], line[128];
	uint32_t bits = 0;
	FILE *f;

	if (nr == SYS_prctl && args[0] == 59 /* PR_SET_SYSCALL_USER_DISPATCH */)
		return args[1] ? MRR_SYSCALLBUF_NO_PROBE |
					 MRR_SYSCALLBUF_NO_BUFFER
			       : 0;
	if (nr >= 0) {
		bits = MRR_SYSCALLBUF_NO_PROBE;
		/* strict mode (emulated): every call must meet mrr's check */
		if ((nr == SYS_seccomp && args[0] == SECCOMP_SET_MODE_STRICT) ||
		    (nr == SYS_prctl && args[0] == PR_SET_SECCOMP &&
		     args[1] == SECCOMP_MODE_STRICT))
			return bits | MRR_SYSCALLBUF_NO_BUFFER;
		if (mrr_seccomp_installs_filter(nr, args) &&
		    filter_may_signal(t, args[2]))
			bits |= MRR_SYSCALLBUF_NO_BUFFER;
		return bits;
	}
	/* Filters inherited across fork and execve cannot be read back:
	 * any beyond mrr's own turns buffering off. */
	snprintf(path, sizeof(path), "/proc/%d/status", t->tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp_filters:", 16) &&
		    strtol(line + 16, NULL, 10) > 1)
			bits = MRR_SYSCALLBUF_NO_PROBE |
			       MRR_SYSCALLBUF_NO_BUFFER;
	fclose(f);
	return bits;
}

int mrr_seccomp_rewrite(struct tracee *t, struct user_regs_struct *regs)
{
	uint64_t fprog_addr;
	struct {
		uint16_t len;
		uint16_t pad[3];
		uint64_t filter;
	} fprog;
	struct sock_filter *code;
	size_t n;
	int err;

	_Static_assert(sizeof(fprog) == 16, "struct sock_fprog layout");
	if (tracee_read_all(t, regs->rdx, &fprog, sizeof(fprog)) < 0)
		return 0;
	if (fprog.len == 0 || fprog.len > BPF_MAXINSNS)
		return 0;
	n = MRR_SECCOMP_PREFIX_LEN + (size_t)fprog.len;
	fprog_addr = rewrite_place(t, regs->rsp, n);
	if (!fprog_addr)
		return -E2BIG;
	code = malloc(n * sizeof(*code));
	if (!code)
		return -ENOMEM;
	build_prefix(code);
	if (tracee_read_all(t, fprog.filter, code + MRR_SECCOMP_PREFIX_LEN,
			    fprog.len * sizeof(*code)) < 0) {
		free(code);
		return 0;
	}
	fprog.len = (uint16_t)n;
	fprog.filter = fprog_addr + sizeof(fprog);
	err = tracee_write_all(t, fprog.filter, code, n * sizeof(*code));
	if (!err)
		err = tracee_write_all(t, fprog_addr, &fprog, sizeof(fprog));
	free(code);
	if (err)
		return err;
	regs->rdx = fprog_addr;
	err = tracee_set_regs(t, regs);
	return err ? err : 1;
}
