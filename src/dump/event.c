/* Decoding events, and the one-line text form of each. */
#define _GNU_SOURCE
#include "core/events.h"
#include "dump/internal.h"
#include "syscalls/table.h"

#include <inttypes.h>
#include <stdlib.h>
#if __has_include("syscallbuf/abi.h")
#include "syscallbuf/abi.h"
#endif
#include <string.h>
#include <sys/syscall.h>

const char *dump_syscall_name(int64_t nr)
{
	const char *name = mrr_syscall_name(nr);

	if (name)
		return name;
#ifdef MRR_SYSCALL_REGISTER
	/* the syscall buffer's calls to mrr itself */
	switch (nr) {
	case MRR_SYSCALL_REGISTER:
		return "mrr_buffer_register";
	case MRR_SYSCALL_FLUSH:
		return "mrr_buffer_flush";
	case MRR_SYSCALL_DESYNC:
		return "mrr_buffer_desync";
	}
#endif
	return NULL;
}

const char *dump_kind_name(uint32_t kind)
{
	switch (kind) {
	case MRR_EV_EXEC:
		return "exec";
	case MRR_EV_SYSCALL:
		return "syscall";
	case MRR_EV_SIGNAL:
		return "signal";
	case MRR_EV_RDTSC:
		return "rdtsc";
	case MRR_EV_EXIT:
		return "exit";
	case MRR_EV_BUFFER:
		return "buffer";
	case MRR_EV_BACKTRACE:
		return "backtrace";
	case MRR_EV_PREEMPT:
		return "preempt";
	case MRR_EV_SCHED:
		return "sched";
	}
	return "unknown";
}

const char *dump_sched_reason(int64_t reason)
{
	switch (reason) {
	case MRR_SCHED_BLOCKS:
		return "it blocks";
	case MRR_SCHED_TIMESLICE:
		return "its timeslice ended";
	case MRR_SCHED_STALLED:
		return "it stalled";
	case MRR_SCHED_HELD:
		return "held for output order";
	case MRR_SCHED_EXITS:
		return "the leader exits";
	case MRR_SCHED_BUFFERED:
		return "it blocked in a buffered call";
	}
	return "unknown reason";
}

const char *dump_fill_name(uint32_t fill)
{
	switch (fill) {
	case MRR_FILL_ZERO:
		return "zero";
	case MRR_FILL_FILE:
		return "file";
	case MRR_FILL_KEEP:
		return "keep";
	case MRR_FILL_HOLE:
		return "hole";
	}
	return "fill?";
}

const char *dump_sig_how_name(uint32_t how)
{
	switch (how) {
	case MRR_SIG_SYNC:
		return "sync";
	case MRR_SIG_AT_SYSCALL:
		return "after-syscall";
	case MRR_SIG_FATAL:
		return "fatal";
	case MRR_SIG_AT_POINT:
		return "at-point";
	}
	return "how?";
}

const char *dump_si_code_name(int sig, int code)
{
	static const char *const user[] = {
		[0] = "SI_USER",  [1] = "SI_QUEUE",    [2] = "SI_TIMER",
		[3] = "SI_MESGQ", [4] = "SI_ASYNCIO",  [5] = "SI_SIGIO",
		[6] = "SI_TKILL", [7] = "SI_DETHREAD", [60] = "SI_ASYNCNL",
	};
	static const char *const segv[] = {
		NULL,		"SEGV_MAPERR",	"SEGV_ACCERR",	"SEGV_BNDERR",
		"SEGV_PKUERR",	"SEGV_ACCADI",	"SEGV_ADIDERR", "SEGV_ADIPERR",
		"SEGV_MTEAERR", "SEGV_MTESERR", "SEGV_CPERR",
	};
	static const char *const bus[] = {
		NULL,	      "BUS_ADRALN",    "BUS_ADRERR",
		"BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO",
	};
	static const char *const ill[] = {
		NULL,	      "ILL_ILLOPC",   "ILL_ILLOPN", "ILL_ILLADR",
		"ILL_ILLTRP", "ILL_PRVOPC",   "ILL_PRVREG", "ILL_COPROC",
		"ILL_BADSTK", "ILL_BADIADDR",
	};
	static const char *const fpe[] = {
		NULL,	      "FPE_INTDIV", "FPE_INTOVF",
		"FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND",
		"FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB",
	};
	static const char *const trap[] = {
		NULL,	       "TRAP_BRKPT",  "TRAP_TRACE",
		"TRAP_BRANCH", "TRAP_HWBKPT", "TRAP_UNK",
	};
	static const char *const cld[] = {
		NULL,	       "CLD_EXITED",  "CLD_KILLED",    "CLD_DUMPED",
		"CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED",
	};
#define PICK(tab, i)                                                           \
	((i) >= 0 && (size_t)(i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : NULL)

	if (code == 0x80)
		return "SI_KERNEL";
	if (code <= 0)
		return PICK(user, -code);
	switch (sig) {
	case 11:
		return PICK(segv, code);
	case 7:
		return PICK(bus, code);
	case 4:
		return PICK(ill, code);
	case 8:
		return PICK(fpe, code);
	case 5:
		return PICK(trap, code);
	case 17:
		return PICK(cld, code);
	}
	return NULL;
#undef PICK
}

bool dump_result_is_error(const struct mrr_event *ev)
{
	return ev->result < 0 && ev->result >= -4095;
}

int32_t dump_new_thread_of(const struct mrr_dump *d, const struct mrr_event *ev)
{
	int32_t child = (int32_t)ev->result, pid;

	if (ev->kind != MRR_EV_SYSCALL || ev->result <= 0 ||
	    (ev->nr != SYS_clone && ev->nr != SYS_clone3))
		return 0;
	pid = mrr_dump_task_pid(d, child, NULL);
	return pid && pid != child ? pid : 0;
}

bool dump_result_is_tid(int64_t nr)
{
	switch (nr) {
	case SYS_getpid:
	case SYS_gettid:
	case SYS_getppid:
	case SYS_set_tid_address:
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
	case SYS_wait4:
	case SYS_getpgrp:
	case SYS_getpgid:
	case SYS_getsid:
	case SYS_setsid:
		return true;
	}
	return false;
}

bool dump_result_is_addr(int64_t nr)
{
	return nr == SYS_mmap || nr == SYS_mremap || nr == SYS_brk ||
	       nr == SYS_shmat;
}

bool dump_result_is_time(int64_t nr)
{
	return nr == SYS_time || nr == SYS_times;
}

bool dump_arg_is_pid(const struct mrr_event *ev, int i)
{
	switch (ev->nr) {
	case SYS_kill:
	case SYS_tkill:
	case SYS_wait4:
	case SYS_getpgid:
	case SYS_getsid:
	case SYS_sched_setaffinity:
	case SYS_sched_getaffinity:
	case SYS_sched_setscheduler:
	case SYS_sched_getscheduler:
	case SYS_sched_setparam:
	case SYS_sched_getparam:
	case SYS_prlimit64:
	case SYS_pidfd_open:
	case SYS_process_vm_readv:
	case SYS_process_vm_writev:
	case SYS_rt_sigqueueinfo:
	case SYS_get_robust_list:
		return i == 0;
	case SYS_tgkill:
	case SYS_rt_tgsigqueueinfo:
	case SYS_setpgid:
		return i == 0 || i == 1;
	case SYS_waitid:
		return i == 1 && ev->args[0] == 1 /* P_PID */;
	case SYS_ptrace:
		return i == 1;
	}
	return false;
}

bool dump_madv(const struct mrr_event *ev, struct mrr_madvise_extra *x,
	       bool *bad)
{
	uint64_t need;

	*bad = false;
	if (ev->kind != MRR_EV_SYSCALL ||
	    (ev->nr != SYS_madvise && ev->nr != SYS_process_madvise) ||
	    !ev->extra_len)
		return false;
	if (ev->extra_len < sizeof(*x)) {
		*bad = true;
		return false;
	}
	memcpy(x, ev->extra, sizeof(*x));
	need = sizeof(*x) +
	       (uint64_t)x->nranges * sizeof(struct mrr_drop_range) +
	       (uint64_t)x->nlocked * sizeof(struct mrr_locked_range);
	if (need != ev->extra_len) {
		*bad = true;
		return false;
	}
	return true;
}

void dump_madv_range(const struct mrr_event *ev, uint32_t i,
		     struct mrr_drop_range *out)
{
	memcpy(out,
	       (const char *)ev->extra + sizeof(struct mrr_madvise_extra) +
		       (size_t)i * sizeof(*out),
	       sizeof(*out));
}

void dump_madv_locked(const struct mrr_event *ev,
		      const struct mrr_madvise_extra *x, uint32_t i,
		      struct mrr_locked_range *out)
{
	memcpy(out,
	       (const char *)ev->extra + sizeof(*x) +
		       (size_t)x->nranges * sizeof(struct mrr_drop_range) +
		       (size_t)i * sizeof(*out),
	       sizeof(*out));
}

static bool is_write_family(int64_t nr)
{
	switch (nr) {
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_sendfile:
	case SYS_copy_file_range:
	case SYS_splice:
		return true;
	}
	return false;
}

bool dump_file_write(const struct mrr_event *ev,
		     struct mrr_file_write_extra *out)
{
	uint32_t len;

	if (ev->kind != MRR_EV_SYSCALL ||
	    !(is_write_family(ev->nr) || ev->nr == SYS_ftruncate ||
	      ev->nr == SYS_fallocate))
		return false;
	len = mrr_event_extra_body_len(ev);
	if (len == sizeof(*out) || len == MRR_FILE_WRITE_EXTRA_OLD) {
		memset(out, 0, sizeof(*out));
		memcpy(out, ev->extra, len);
		out->file[sizeof(out->file) - 1] = 0;
		return true;
	}
	return false;
}

bool dump_interrupted(const struct mrr_event *ev, uint64_t *pending)
{
	if (ev->kind != MRR_EV_SYSCALL || ev->result > -512 ||
	    ev->result < -516 || ev->extra_len != sizeof(*pending))
		return false;
	memcpy(pending, ev->extra, sizeof(*pending));
	return true;
}

bool dump_mmap_file(const struct mrr_event *ev, struct mrr_mmap_extra *out)
{
	/* newer traces: the path follows (core/file_paths.h) */
	if (ev->kind != MRR_EV_SYSCALL || ev->nr != SYS_mmap ||
	    ev->extra_len < sizeof(*out))
		return false;
	memcpy(out, ev->extra, sizeof(*out));
	out->file[sizeof(out->file) - 1] = 0;
	return true;
}

/* Whether argument i of ev is the data a write sends, with its length in
 * argument i + 1; *len is how much of it to show. */
static bool is_out_buffer(const struct mrr_event *ev, int i, size_t *len)
{
	if (i != 1 || (ev->nr != SYS_write && ev->nr != SYS_pwrite64 &&
		       ev->nr != SYS_sendto))
		return false;
	*len = ev->args[2] < 32 ? (size_t)ev->args[2] : 32;
	return *len > 0;
}

void dump_syscall_args(struct mrr_dump *d, const struct das *as,
		       const struct mrr_event *ev, struct sc_arg args[6],
		       int *nargs)
{
	const struct mrr_syscall_desc *desc = mrr_syscall_lookup(ev->nr);
	struct sbuf b = {0};
	char str[72];
	int i;

	*nargs = desc ? desc->nargs : 6;
	for (i = 0; i < *nargs; i++) {
		uint64_t v = ev->args[i];
		int fmt = desc ? desc->arg_fmt[i] : MRR_ARG_HEX;
		struct sc_arg *a = &args[i];
		size_t len;
		bool cut;
		long n;

		memset(a, 0, sizeof(*a));
		sb_reset(&b);
		switch (fmt) {
		case MRR_ARG_STR:
			n = dump_read_string(d, as, v, str, sizeof(str), &cut);
			if (n >= 0) {
				sb_c_str(&b, str, (size_t)n + cut, (size_t)n);
				a->is_string = true;
				break;
			}
			/* fall through */
		case MRR_ARG_PTR:
			if (is_out_buffer(ev, i, &len) &&
			    dump_read_bytes(d, as, v, str, len) == (long)len) {
				/* constant data, e.g. a string literal */
				sb_c_str(&b, str, (size_t)ev->args[i + 1], len);
				a->is_string = true;
				break;
			}
			a->masked = dump_addr(d, as, v, ADDR_PTR, &b);
			break;
		case MRR_ARG_HEX:
			a->masked = dump_addr(d, as, v, ADDR_HEX, &b);
			break;
		case MRR_ARG_INT:
			if ((d->flags & MRR_DUMP_STABLE) &&
			    dump_arg_is_pid(ev, i) && (int32_t)v > 0) {
				sb_printf(&b, "%d", dump_tid(d, (int32_t)v));
				a->masked = true;
				break;
			}
			/* fall through */
		default:
			mrr_format_arg(fmt, v, str, sizeof(str));
			sb_puts(&b, str);
		}
		snprintf(a->text, sizeof(a->text), "%s", b.s ? b.s : "");
	}
	sb_free(&b);
}

void dump_syscall_result(struct mrr_dump *d, const struct das *as,
			 const struct mrr_event *ev, struct sbuf *b,
			 bool *masked)
{
	bool stable = d->flags & MRR_DUMP_STABLE;
	const char *name;

	*masked = false;
	if (dump_result_is_error(ev)) {
		name = mrr_errno_name((int)-ev->result);
		if (name)
			sb_printf(b, "-1 %s", name);
		else
			sb_printf(b, "-1 errno %d", (int)-ev->result);
		return;
	}
	if (ev->result > 0 && dump_result_is_addr(ev->nr)) {
		*masked = dump_addr(d, as, (uint64_t)ev->result, ADDR_PLAIN, b);
		return;
	}
	if (stable && ev->result > 0 && dump_result_is_tid(ev->nr)) {
		sb_printf(b, "%d", dump_tid(d, (int32_t)ev->result));
		*masked = true;
		return;
	}
	if (stable && dump_result_is_time(ev->nr)) {
		sb_puts(b, "TIME");
		*masked = true;
		return;
	}
	if (ev->result < 0 && ev->result >= -516) /* kernel-internal codes */
		sb_printf(b, "-1 %s", mrr_errno_name((int)-ev->result));
	else
		sb_printf(b, "%" PRId64, ev->result);
}

/* "[0x1000-0x3000)", or "[map3 +0x2000)" with --stable. */
static void range(struct mrr_dump *d, const struct das *as, uint64_t start,
		  uint64_t end, struct sbuf *b)
{
	sb_puts(b, "[");
	if (d->flags & MRR_DUMP_STABLE) {
		dump_addr(d, as, start, ADDR_PLAIN, b);
		sb_printf(b, " +0x%llx)", (unsigned long long)(end - start));
		return;
	}
	sb_printf(b, "0x%llx-0x%llx)", (unsigned long long)start,
		  (unsigned long long)end);
}

static void pending_names(uint64_t pending, struct sbuf *b)
{
	bool first = true;
	int sig;

	for (sig = 1; sig <= 64; sig++) {
		const char *name;

		if (!(pending & (1ull << (sig - 1))))
			continue;
		name = mrr_signal_name(sig);
		if (name)
			sb_printf(b, "%s%s", first ? "" : "|", name);
		else
			sb_printf(b, "%s%d", first ? "" : "|", sig);
		first = false;
	}
	if (first)
		sb_puts(b, "none");
}

static uint64_t write_bytes(const struct mrr_event *ev)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < ev->nwrites; i++)
		n += ev->writes[i].len;
	return n;
}

static void text_syscall(struct mrr_dump *d, const struct das *as_before,
			 const struct das *as_after, const struct mrr_event *ev,
			 struct sbuf *b)
{
	struct sc_arg args[6];
	const char *name = dump_syscall_name(ev->nr);
	struct mrr_madvise_extra mx;
	struct mrr_file_write_extra fw;
	struct mrr_mmap_extra mf;
	uint64_t pending, nbytes;
	bool masked, bad;
	int nargs, i;
	int32_t pid;

	dump_syscall_args(d, as_before, ev, args, &nargs);
	if (name)
		sb_printf(b, "%s(", name);
	else
		sb_printf(b, "syscall_%" PRId64 "(", ev->nr);
	for (i = 0; i < nargs; i++)
		sb_printf(b, "%s%s", i ? ", " : "", args[i].text);
	sb_puts(b, ") = ");
	dump_syscall_result(d, as_after, ev, b, &masked);
	sb_puts(b, ev->flags & MRR_EVF_BUFFERED ? "  buffered" : "  traced");
	if (ev->flags & MRR_EVF_SKIPPED)
		sb_puts(b, ", skipped");
	nbytes = write_bytes(ev);
	if (nbytes)
		sb_printf(b, ", wrote %" PRIu64 " bytes", nbytes);
	pid = dump_new_thread_of(d, ev);
	if (pid)
		sb_printf(b, ", new thread of pid %d", dump_tid(d, pid));
	if (dump_madv(ev, &mx, &bad)) {
		struct mrr_drop_range r;
		struct mrr_locked_range l;
		uint32_t k;

		for (k = 0; k < mx.nranges; k++) {
			dump_madv_range(ev, k, &r);
			sb_puts(b, ", dropped ");
			range(d, as_before, r.start, r.end, b);
			sb_printf(b, " %s", dump_fill_name(r.fill));
		}
		if (!mx.nranges)
			sb_puts(b, ", dropped nothing");
		for (k = 0; k < mx.nlocked; k++) {
			dump_madv_locked(ev, &mx, k, &l);
			sb_puts(b, ", locked ");
			range(d, as_before, l.start, l.end, b);
		}
		if (mx.flags & MRR_MADV_FORCED_DROP)
			sb_puts(b, ", forced drop");
		/* --stable: PFNs are readable to root only */
		sb_printf(b, ", precision=%s",
			  d->flags & MRR_DUMP_STABLE	     ? "PRECISION"
			  : mx.precision == MRR_DROP_PFN     ? "pfn"
			  : mx.precision == MRR_DROP_PRESENT ? "present"
							     : "?");
	} else if (bad) {
		sb_printf(b, ", bad madvise extra (%u bytes)", ev->extra_len);
	}
	if (dump_mmap_file(ev, &mf)) {
		sb_puts(b, ", file ");
		dump_file(d, mf.file, b);
		sb_printf(b, " size %" PRIu64 " %s", mf.size,
			  mf.shared ? "shared" : "private");
	}
	if (dump_interrupted(ev, &pending)) {
		sb_puts(b, ", interrupted, pending ");
		pending_names(pending, b);
	}
	if (dump_file_write(ev, &fw) &&
	    (ev->nr == SYS_ftruncate || ev->nr == SYS_fallocate)) {
		sb_puts(b, ", mapped file ");
		dump_file(d, fw.file, b);
		sb_printf(b, " now %" PRIu64 " bytes", fw.offset);
	} else if (dump_file_write(ev, &fw)) {
		sb_puts(b, ", into mapped file ");
		dump_file(d, fw.file, b);
		sb_printf(b, " at offset %" PRIu64, fw.offset);
	}
}

static void text_signal(struct mrr_dump *d, const struct das *as,
			const struct mrr_event *ev, struct sbuf *b)
{
	struct mrr_signal_extra x;
	const char *name = mrr_signal_name((int)ev->nr), *code_name;
	int32_t code, pid;
	uint64_t addr;

	if (name)
		sb_puts(b, name);
	else
		sb_printf(b, "signal %" PRId64, ev->nr);
	if (ev->extra_len != sizeof(x)) {
		sb_printf(b, " bad extra (%u bytes)", ev->extra_len);
		return;
	}
	memcpy(&x, ev->extra, sizeof(x));
	memcpy(&code, x.siginfo + 8, 4);
	sb_printf(b, " %s", dump_sig_how_name(x.how));
	code_name = dump_si_code_name((int)ev->nr, code);
	if (code_name)
		sb_printf(b, " si_code=%s", code_name);
	else
		sb_printf(b, " si_code=%d", code);
	if (code > 0 && code != 0x80 &&
	    (ev->nr == 11 || ev->nr == 7 || ev->nr == 4 || ev->nr == 8 ||
	     ev->nr == 5)) {
		memcpy(&addr, x.siginfo + 16, 8);
		sb_puts(b, " si_addr=");
		dump_addr(d, as, addr, ADDR_PLAIN, b);
	} else if (code <= 0 || ev->nr == 17) {
		memcpy(&pid, x.siginfo + 16, 4);
		sb_printf(b, " si_pid=%d", dump_tid(d, pid));
	}
	if (x.how == MRR_SIG_SYNC) {
		sb_puts(b, " ip=");
		dump_addr(d, as, ev->ip, ADDR_PLAIN, b);
	}
}

static void text_exec(struct mrr_dump *d, const struct mrr_event *ev,
		      struct sbuf *b)
{
	struct mrr_exec_extra x;
	const char *path, *slash;
	size_t len;
	uint32_t i;

	if (ev->extra_len < sizeof(x)) {
		sb_printf(b, "bad extra (%u bytes)", ev->extra_len);
		return;
	}
	memcpy(&x, ev->extra, sizeof(x));
	x.exe_file[sizeof(x.exe_file) - 1] = 0;
	x.interp_file[sizeof(x.interp_file) - 1] = 0;
	path = (const char *)ev->extra + sizeof(x);
	len = strnlen(path, ev->extra_len - sizeof(x));
	if ((d->flags & MRR_DUMP_STABLE) &&
	    (slash = memrchr(path, '/', len)) != NULL) {
		/* the build or install directory differs between runs */
		struct sbuf p = {0};

		sb_puts(&p, ".../");
		sb_put(&p, slash + 1, len - (size_t)(slash + 1 - path));
		sb_c_str(b, p.s, p.len, 4096);
		sb_free(&p);
	} else {
		sb_c_str(b, path, len, 4096);
	}
	sb_puts(b, " exe=");
	dump_file(d, x.exe_file, b);
	if (x.interp_file[0]) {
		sb_puts(b, " interp=");
		dump_file(d, x.interp_file, b);
	}
	/* its size follows argv and the environment */
	for (i = 0; i < ev->nwrites && !(d->flags & MRR_DUMP_STABLE); i++)
		if (ev->writes[i].addr == x.regs[19]) /* rsp */
			sb_printf(b, ", stack %" PRIu64 " bytes",
				  ev->writes[i].len);
	{
		int32_t pid = mrr_dump_task_pid(d, ev->tid, NULL);

		if (pid && pid != ev->tid)
			sb_printf(b, ", the thread becomes pid %d",
				  dump_tid(d, pid));
	}
}

static void text_rdtsc(struct mrr_dump *d, const struct mrr_event *ev,
		       struct sbuf *b)
{
	bool stable = d->flags & MRR_DUMP_STABLE;

	sb_puts(b, ev->nr == 1 ? "rdtscp " : "rdtsc ");
	if (stable)
		sb_puts(b, "TSC");
	else
		sb_printf(b, "%" PRIu64, ev->args[0]);
	if (ev->nr == 1) {
		if (stable)
			sb_puts(b, " aux=AUX");
		else
			sb_printf(b, " aux=%" PRIu64, ev->args[1]);
	}
}

/* "at ADDR, execution N of it" or "at ADDR, by registers", the reason, the
 * stack pointer and the hashed stack range. */
static void text_preempt(struct mrr_dump *d, const struct das *as,
			 const struct mrr_event *ev, struct sbuf *b)
{
	bool stable = d->flags & MRR_DUMP_STABLE;
	struct mrr_preempt_extra x;

	sb_puts(b, ev->nr == MRR_PREEMPT_SIGNAL ? "for a signal at "
						: "timeslice at ");
	dump_addr(d, as, ev->ip, ADDR_PLAIN, b);
	if (ev->args[0] == 0)
		sb_puts(b, ", by registers");
	else if (stable)
		sb_puts(b, ", execution N of it");
	else
		sb_printf(b, ", execution %" PRIu64 " of it", ev->args[0]);
	if (ev->extra_len != sizeof(x)) {
		sb_printf(b, " bad extra (%u bytes)", ev->extra_len);
		return;
	}
	memcpy(&x, ev->extra, sizeof(x));
	if (!stable)
		sb_printf(b,
			  " rsp=0x%" PRIx64 " stack [0x%" PRIx64 "+%" PRIu64
			  "] hash %016" PRIx64,
			  x.regs[19], ev->args[1], ev->args[2], x.stack_hash);
	if (!stable && ev->result)
		sb_printf(b, " memory digest %016" PRIx64,
			  (uint64_t)ev->result);
	/* the bytes its spin loop stores to (format version 4) */
	for (uint32_t i = 0; i < ev->nwrites; i++) {
		sb_puts(b, i ? ", " : ", loop stores ");
		if (stable)
			sb_printf(b, "%" PRIu64 " bytes", ev->writes[i].len);
		else
			sb_printf(b, "%" PRIu64 " bytes at 0x%" PRIx64,
				  ev->writes[i].len, ev->writes[i].addr);
	}
}

/* The frames of a backtrace event, one per line, each prefixed by indent.
 * --stable masks the addresses and keeps only the file's base name. */
void dump_backtrace_lines(struct mrr_dump *d, const struct das *as,
			  const struct mrr_event *ev, const char *indent,
			  struct sbuf *b)
{
	const char *p = ev->extra, *end = p + ev->extra_len;

	while (p < end && *p) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t len = strnlen(p, (size_t)(stop - p));

		sb_puts(b, indent);
		if ((d->flags & MRR_DUMP_STABLE) && len > 2 && p[0] == '0' &&
		    p[1] == 'x') {
			char *after;
			uint64_t addr = strtoull(p, &after, 16);
			const char *open = memchr(p, '(', len);
			const char *close =
				open ? memrchr(open, ')',
					       len - (size_t)(open - p))
				     : NULL;
			const char *slash;

			dump_addr(d, as, addr, ADDR_PLAIN, b);
			if (open && close) {
				sb_put(b, after, (size_t)(open - after));
				slash = memrchr(open, '/',
						(size_t)(close - open));
				sb_puts(b, "(");
				if (slash)
					sb_put(b, slash + 1,
					       (size_t)(close - slash));
				else
					sb_put(b, open + 1,
					       (size_t)(close - open));
			} else {
				sb_put(b, after, len - (size_t)(after - p));
			}
		} else {
			sb_put(b, p, len);
		}
		sb_puts(b, "\n");
		p = stop + 1;
	}
}

struct text_diff {
	struct mrr_dump *d;
	struct sbuf *b;
};

static void text_map_line(const struct das *as, const struct dmap *m, char sign,
			  void *arg)
{
	struct text_diff *td = arg;

	sb_printf(td->b, "    %c ", sign);
	dump_map_line(td->d, as, m, td->b);
	sb_puts(td->b, "\n");
}

void dump_text(struct mrr_dump *d, const struct mrr_event *ev,
	       struct das *before, struct das *after, FILE *out)
{
	struct dtask *t = dump_task(d, ev->tid, true);
	const struct das *as = t ? t->as : NULL;
	struct sbuf *b = &d->line;
	char st[64];
	uint32_t i;

	sb_reset(b);
	if (ev->kind == MRR_EV_BACKTRACE) {
		uint64_t owner = mrr_dump_backtrace_owner(d, ev);

		if (owner == UINT64_MAX || owner != d->last_seq_any)
			sb_printf(b,
				  "    backtrace of event %" PRIu64
				  " (tid %d):\n",
				  owner, dump_tid(d, ev->tid));
		dump_backtrace_lines(d, as, ev, "      ", b);
		fputs(b->s ? b->s : "", out);
		return;
	}
	sb_printf(b, "%" PRIu64 " %d %s ", ev->seq, dump_tid(d, ev->tid),
		  dump_kind_name(ev->kind));
	switch (ev->kind) {
	case MRR_EV_SYSCALL:
		text_syscall(d, before ? before : as, as, ev, b);
		break;
	case MRR_EV_EXEC:
		text_exec(d, ev, b);
		break;
	case MRR_EV_SIGNAL:
		text_signal(d, as, ev, b);
		break;
	case MRR_EV_RDTSC:
		text_rdtsc(d, ev, b);
		break;
	case MRR_EV_EXIT:
		sb_puts(b, mrr_dump_wait_status(ev->result, st, sizeof(st)));
		break;
	case MRR_EV_BUFFER:
		sb_printf(b, "flush of %" PRIu64 " records, %" PRIu64 " bytes",
			  ev->args[1], ev->args[0]);
		break;
	case MRR_EV_PREEMPT:
		text_preempt(d, as, ev, b);
		break;
	case MRR_EV_SCHED: {
		const char *n = mrr_syscall_name((long)ev->nr);

		sb_printf(b, "another thread runs: %s, in %s",
			  dump_sched_reason(ev->result), n ? n : "a syscall");
		break;
	}
	default:
		sb_printf(b, "kind %u nr %" PRId64 " result %" PRId64, ev->kind,
			  ev->nr, ev->result);
	}
	sb_puts(b, "\n");
	if ((d->flags & MRR_DUMP_MAPS) && (before || after)) {
		struct text_diff td = {d, b};

		dump_maps_diff(d, before, after, text_map_line, &td);
	}
	fputs(b->s ? b->s : "", out);
	if ((d->flags & MRR_DUMP_BUFFER) && ev->kind == MRR_EV_BUFFER)
		dump_buffer_records(d, ev, out);
	if ((d->flags & MRR_DUMP_MEM) && ev->kind != MRR_EV_BACKTRACE) {
		bool stable = d->flags & MRR_DUMP_STABLE;

		for (i = 0; i < ev->nwrites; i++) {
			const struct mrr_mem_write *w = &ev->writes[i];

			sb_reset(b);
			dump_addr(d, as, w->addr, ADDR_PLAIN, b);
			fprintf(out, "    write %s, %" PRIu64 " bytes:\n", b->s,
				w->len);
			/* --stable: offsets from the write's start */
			if (w->data)
				mrr_dump_hex(out, "      ",
					     stable ? 0 : w->addr, w->data,
					     (size_t)w->len);
			else
				dump_streamed_hex(d, i, w, stable, out);
		}
	}
}
