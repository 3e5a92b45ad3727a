#include "core/tracee.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int tracee_open_mem(struct tracee *t)
{
	char path[64];

	tracee_close_mem(t);
	snprintf(path, sizeof(path), "/proc/%d/mem", t->tid);
	t->mem_fd = open(path, O_RDWR | O_CLOEXEC);
	return t->mem_fd < 0 ? -errno : 0;
}

void tracee_close_mem(struct tracee *t)
{
	if (t->mem_fd >= 0)
		close(t->mem_fd);
	t->mem_fd = -1;
}

int tracee_get_regs(struct tracee *t, struct user_regs_struct *regs)
{
	return ptrace(PTRACE_GETREGS, t->tid, 0, regs) < 0 ? -errno : 0;
}

int tracee_set_regs(struct tracee *t, const struct user_regs_struct *regs)
{
	return ptrace(PTRACE_SETREGS, t->tid, 0, regs) < 0 ? -errno : 0;
}

ssize_t tracee_read(struct tracee *t, uint64_t remote_addr, void *local_buf,
		    size_t len)
{
	size_t done = 0;

	if (t->mem_fd < 0 && tracee_open_mem(t) < 0)
		return -errno;
	while (done < len) {
		ssize_t n = pread(t->mem_fd, (char *)local_buf + done,
				  len - done, (off_t)(remote_addr + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : (n < 0 ? -errno : 0);
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int tracee_read_all(struct tracee *t, uint64_t remote_addr, void *local_buf,
		    size_t len)
{
	ssize_t n = tracee_read(t, remote_addr, local_buf, len);

	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EFAULT;
}

int tracee_write_all(struct tracee *t, uint64_t remote_addr,
		     const void *local_buf, size_t len)
{
	size_t done = 0;

	if (t->mem_fd < 0 && tracee_open_mem(t) < 0)
		return -errno;
	while (done < len) {
		ssize_t n = pwrite(t->mem_fd, (const char *)local_buf + done,
				   len - done, (off_t)(remote_addr + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EFAULT;
		done += (size_t)n;
	}
	return 0;
}

int tracee_read_str(struct tracee *t, uint64_t remote_addr, char *buf,
		    size_t buflen)
{
	size_t done = 0;

	if (buflen == 0)
		return -EINVAL;
	while (done < buflen - 1) {
		/* Read up to the end of the page so we never cross into an
		 * unmapped one before finding the NUL. */
		size_t chunk = 4096 - ((remote_addr + done) & 4095);
		ssize_t n;
		char *nul;

		if (chunk > buflen - 1 - done)
			chunk = buflen - 1 - done;
		n = tracee_read(t, remote_addr + done, buf + done, chunk);
		if (n <= 0)
			return n < 0 ? (int)n : -EFAULT;
		nul = memchr(buf + done, 0, (size_t)n);
		if (nul)
			return 0;
		done += (size_t)n;
	}
	buf[buflen - 1] = 0;
	return -ENAMETOOLONG;
}

struct tracee_wait_state tracee_waiting;
volatile sig_atomic_t tracee_wait_cancel;

int tracee_wait(struct tracee *t, int *status)
{
	struct timespec now;
	int err = 0;

	if (tracee_wait_cancel) {
		/* a stop already there is still taken */
		pid_t p = waitpid(t->tid, status, __WALL | WNOHANG);

		return p == t->tid ? 0 : -EINTR;
	}

	clock_gettime(CLOCK_MONOTONIC, &now);
	tracee_waiting.start_ns = now.tv_sec * 1000000000ll + now.tv_nsec;
	tracee_waiting.gen++;
	tracee_waiting.tid = t->tid;
	for (;;) {
		pid_t p = waitpid(t->tid, status, __WALL);
		if (p == t->tid)
			break;
		if (p < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (tracee_wait_cancel) {
			err = -EINTR;
			break;
		}
	}
	tracee_waiting.tid = 0;
	return err;
}

uint64_t regs_arg(const struct user_regs_struct *r, int i)
{
	switch (i) {
	case 0:
		return r->rdi;
	case 1:
		return r->rsi;
	case 2:
		return r->rdx;
	case 3:
		return r->r10;
	case 4:
		return r->r8;
	case 5:
		return r->r9;
	}
	return 0;
}

void regs_set_arg(struct user_regs_struct *r, int i, uint64_t v)
{
	switch (i) {
	case 0:
		r->rdi = v;
		break;
	case 1:
		r->rsi = v;
		break;
	case 2:
		r->rdx = v;
		break;
	case 3:
		r->r10 = v;
		break;
	case 4:
		r->r8 = v;
		break;
	case 5:
		r->r9 = v;
		break;
	}
}

/* Resumes the task until its next syscall stop (entry or exit). Seccomp
 * stops for the injected syscall and signals that arrive meanwhile are
 * passed over: injections only happen while mrr controls the task fully. */
static int run_to_syscall_stop(struct tracee *t)
{
	int status, err;

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0)
			return -errno;
		err = tracee_wait(t, &status);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80))
			return 0;
	}
}

int tracee_inject_syscall(struct tracee *t, int use_page, long nr,
			  const uint64_t args[6], int64_t *ret)
{
	static const uint8_t syscall_insn[2] = {0x0f, 0x05};
	struct user_regs_struct saved, r;
	uint8_t saved_code[2];
	int err, i, patched = 0;

	err = tracee_get_regs(t, &saved);
	if (err)
		return err;
	r = saved;
	if (use_page) {
		r.rip = MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL;
	} else {
		/* No mrr page yet: borrow the two bytes at rip. */
		err = tracee_read_all(t, saved.rip, saved_code, 2);
		if (!err)
			err = tracee_write_all(t, saved.rip, syscall_insn, 2);
		if (err)
			return err;
		patched = 1;
	}
	r.rax = (uint64_t)nr;
	r.orig_rax = (uint64_t)-1;
	for (i = 0; i < 6; i++)
		regs_set_arg(&r, i, args ? args[i] : 0);
	err = tracee_set_regs(t, &r);
	if (!err)
		err = run_to_syscall_stop(t); /* entry */
	if (!err)
		err = run_to_syscall_stop(t); /* exit */
	if (!err)
		err = tracee_get_regs(t, &r);
	if (!err)
		*ret = (int64_t)r.rax;
	if (patched && tracee_write_all(t, saved.rip, saved_code, 2) && !err)
		err = -EFAULT;
	if (!err)
		err = tracee_set_regs(t, &saved);
	return err;
}

int tracee_map_mrr_page(struct tracee *t)
{
	static const uint8_t code[] = {0x0f, 0x05, 0xc3}; /* syscall; ret */
	uint64_t args[6] = {MRR_PAGE_ADDR,
			    MRR_PAGE_SIZE,
			    PROT_READ | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    (uint64_t)-1,
			    0};
	int64_t ret;
	int err;

	err = tracee_inject_syscall(t, 0, SYS_mmap, args, &ret);
	if (err)
		return err;
	if (ret != (int64_t)MRR_PAGE_ADDR)
		return ret < 0 ? (int)ret : -EEXIST;
	err = tracee_write_all(t, MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL,
			       code, sizeof(code));
	if (!err)
		err = tracee_write_all(t,
				       MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL,
				       code, sizeof(code));
	return err;
}
