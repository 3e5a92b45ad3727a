/* ptrace emulated for the recorded program: the tracer's requests
 * (vptrace.h). */
#include "record/vptrace.h"
#include "record/vptrace_int.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "record/rtask.h"
#include "record/signals.h"
#include "syscallbuf/abi.h"
#include "syscalls/table.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void refuse_options(struct recorder *rec, struct rtask *t, uint64_t opts)
{
	char what[160];

	snprintf(what, sizeof(what),
		 "its options 0x%llx ask for stops mrr does not emulate "
		 "(%s)",
		 (unsigned long long)opts,
		 (opts & PTRACE_O_TRACESECCOMP) ? "PTRACE_O_TRACESECCOMP"
		 : (opts & PTRACE_O_SUSPEND_SECCOMP)
			 ? "PTRACE_O_SUSPEND_SECCOMP"
			 : "an unknown option");
	vp_refuse(rec, t, what);
}

/* x is held at a syscall's entry stop, after user code: an event marks
 * the point (its buffered calls first), the replay's x stops there too
 * (an MRR_EV_SCHED event drives a task to its call's entry stop and holds
 * it), and the tracer's writes can be repeated at the same state. */
static void mark_entry(struct recorder *rec, struct rtask *x)
{
	struct mrr_event ev = {0};
	struct capture c = {0};

	rec_sbuf_flush(rec, x);
	ev.kind = MRR_EV_SCHED;
	ev.tid = x->t.tid;
	ev.ip = x->entry_regs.rip;
	ev.nr = x->nr;
	memcpy(ev.args, x->args, sizeof(ev.args));
	ev.result = MRR_SCHED_HELD;
	rec_write_event(rec, x, &ev, &c);
	x->vp->at_event = true;
	x->vp->at_entry = false;
}

/* The requests of a tracer on a tracee of its that is held. */
static void request(struct recorder *rec, struct rtask *t, struct rtask *x)
{
	struct rec_vptrace *v = x->vp;
	const uint64_t *a = t->args;
	long req = (long)a[0];
	struct user_regs_struct regs;
	unsigned long word;
	int sig = (int)a[3];

	switch (req) {
	case PTRACE_PEEKTEXT:
	case PTRACE_PEEKDATA:
		errno = 0;
		word = (unsigned long)ptrace(PTRACE_PEEKDATA, x->t.tid, a[2],
					     0);
		if (errno) {
			vp_answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		vp_answer(rec, t, 0, a[3], &word, sizeof(word));
		return;
	case PTRACE_PEEKUSER:
		if (a[2] & 7 || a[2] >= sizeof(struct user)) {
			vp_answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		if (a[2] < sizeof(regs)) {
			vp_tracee_regs(x, &regs);
			memcpy(&word, (char *)&regs + a[2], sizeof(word));
		} else if (a[2] >= offsetof(struct user, u_debugreg)) {
			word = 0; /* mrr's own breakpoints are not the tracer's
				   */
		} else {
			errno = 0;
			word = (unsigned long)ptrace(PTRACE_PEEKUSER, x->t.tid,
						     a[2], 0);
			if (errno) {
				vp_answer(rec, t, -errno, 0, NULL, 0);
				return;
			}
		}
		vp_answer(rec, t, 0, a[3], &word, sizeof(word));
		return;
	case PTRACE_POKETEXT:
	case PTRACE_POKEDATA:
		if (!v->at_event && v->at_entry)
			mark_entry(rec, x);
		if (!v->at_event) {
			vp_refuse(rec, t,
				  "a write into a tracee stopped where it ran "
				  "code since its last event (at a fault, or "
				  "before it first ran) is not emulated");
			return;
		}
		if (ptrace(PTRACE_POKEDATA, x->t.tid, a[2], a[3]) < 0) {
			vp_answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		vp_answer(rec, t, 0, 0, NULL, 0);
		return;
	case PTRACE_GETREGS:
		vp_tracee_regs(x, &regs);
		vp_answer(rec, t, 0, a[3], &regs, sizeof(regs));
		return;
	case PTRACE_GETFPREGS: {
		struct user_fpregs_struct fp;

		if (ptrace(PTRACE_GETFPREGS, x->t.tid, 0, &fp) < 0) {
			vp_answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		vp_answer(rec, t, 0, a[3], &fp, sizeof(fp));
		return;
	}
	case PTRACE_GETREGSET: {
		struct iovec iov, mine;
		void *buf;

		if (tracee_read_all(&t->t, a[3], &iov, sizeof(iov)) < 0) {
			vp_answer(rec, t, -EFAULT, 0, NULL, 0);
			return;
		}
		if (iov.iov_len > 65536)
			iov.iov_len = 65536;
		buf = calloc(1, iov.iov_len + 1);
		if (!buf)
			mrr_fatal("out of memory");
		mine.iov_base = buf;
		mine.iov_len = iov.iov_len;
		if (ptrace(PTRACE_GETREGSET, x->t.tid, a[2], &mine) < 0) {
			vp_answer(rec, t, -errno, 0, NULL, 0);
			free(buf);
			return;
		}
		if (a[2] == 1 /* NT_PRSTATUS */) {
			vp_tracee_regs(x, &regs);
			memcpy(buf, &regs,
			       mine.iov_len < sizeof(regs) ? mine.iov_len
							   : sizeof(regs));
		}
		iov.iov_len = mine.iov_len;
		{
			struct capture c = {0};
			int64_t res = 0;

			if (tracee_write_all(&t->t,
					     (uint64_t)(uintptr_t)iov.iov_base,
					     buf, mine.iov_len) < 0 ||
			    tracee_write_all(&t->t, a[3] + 8, &iov.iov_len, 8) <
				    0)
				res = -EFAULT;
			else {
				capture_add(&c, t,
					    (uint64_t)(uintptr_t)iov.iov_base,
					    mine.iov_len);
				capture_add(&c, t, a[3] + 8, 8);
			}
			rec_skip_syscall(rec, t, res, &c);
			free(c.data);
		}
		free(buf);
		return;
	}
	case PTRACE_GETSIGINFO:
		vp_answer(rec, t, 0, a[3], &v->si, sizeof(v->si));
		return;
	case PTRACE_SETSIGINFO:
		if (tracee_read_all(&t->t, a[3], &v->si, sizeof(v->si)) < 0) {
			vp_answer(rec, t, -EFAULT, 0, NULL, 0);
			return;
		}
		vp_answer(rec, t, 0, 0, NULL, 0);
		return;
	case PTRACE_GETEVENTMSG:
		vp_answer(rec, t, 0, a[3], &v->eventmsg, sizeof(v->eventmsg));
		return;
	case PTRACE_GETSIGMASK:
	case PTRACE_PEEKSIGINFO:
	case VP_GET_SYSCALL_INFO:
		break;
	case PTRACE_SETOPTIONS:
		if (a[3] & ~(uint64_t)VP_O_SUPPORTED) {
			refuse_options(rec, t, t->args[3]);
			return;
		}
		v->options = a[3];
		vp_answer(rec, t, 0, 0, NULL, 0);
		return;
	case PTRACE_CONT:
	case PTRACE_SYSCALL:
	case PTRACE_DETACH:
		if (sig < 0 || sig > 64) {
			vp_answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		if (sig && v->kind != VP_SIGNAL)
			sig = 0; /* only a signal-delivery stop delivers */
		if (sig &&
		    (v->kind == VP_EXEC_SIGTRAP || sig == SIGSTOP ||
		     sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)) {
			vp_refuse(rec, t,
				  "delivering a stop signal or the exec's "
				  "SIGTRAP to a traced task is not emulated");
			return;
		}
		vp_answer(rec, t, 0, 0, NULL, 0);
		v->systrace = req == PTRACE_SYSCALL;
		if (req == PTRACE_DETACH) {
			v->systrace = false;
			v->interrupt = false;
			vp_resume_tracee(rec, x, sig);
			vp_detach(x);
			return;
		}
		vp_resume_tracee(rec, x, sig);
		return;
	case PTRACE_KILL:
		vp_answer(rec, t, 0, 0, NULL, 0);
		syscall(SYS_tgkill, x->tgid, x->t.tid, SIGKILL);
		return;
	case PTRACE_POKEUSER:
		if (a[2] & 7 || a[2] >= sizeof(struct user)) {
			vp_answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		vp_refuse(rec, t, "this request is not emulated");
		return;
	case PTRACE_SETREGS:
	case PTRACE_SETFPREGS: {
		/* the kernel reads the registers first */
		uint8_t buf[sizeof(struct user_fpregs_struct)];

		if (tracee_read_all(
			    &t->t, a[3], buf,
			    req == PTRACE_SETREGS
				    ? sizeof(struct user_regs_struct)
				    : sizeof(struct user_fpregs_struct)) < 0) {
			vp_answer(rec, t, -EFAULT, 0, NULL, 0);
			return;
		}
		vp_refuse(rec, t, "this request is not emulated");
		return;
	}
	default:
		if (!strncmp(vp_req_name(req), "request ", 8)) {
			vp_answer(rec, t, -EIO, 0, NULL,
				  0); /* no such request */
			return;
		}
		vp_refuse(rec, t, "this request is not emulated");
		return;
	}
	/* reads of the tracee's state mrr makes as they are */
	if (req == VP_GET_SYSCALL_INFO) {
		struct {
			uint8_t op, pad[3];
			uint32_t arch;
			uint64_t ip, sp;
			union {
				struct {
					uint64_t nr, args[6];
				} entry;
				struct {
					int64_t rval;
					uint8_t is_error;
				} exit;
			};
		} info;
		size_t len = 24;
		int i;

		memset(&info, 0, sizeof(info));
		vp_tracee_regs(x, &regs);
		info.arch = 0xc000003eu; /* AUDIT_ARCH_X86_64 */
		info.ip = regs.rip;
		info.sp = regs.rsp;
		if (v->kind == VP_ENTRY) {
			info.op = 1;
			info.entry.nr = regs.orig_rax;
			for (i = 0; i < 6; i++)
				info.entry.args[i] = regs_arg(&regs, i);
			len = 24 + 56;
		} else if ((v->kind == VP_EXIT || v->kind == VP_EXIT_CONT) &&
			   (v->status >> 8) == (vp_sysstop_status(v) >> 8)) {
			info.op = 2;
			info.exit.rval = (int64_t)regs.rax;
			info.exit.is_error = (uint64_t)regs.rax > -4096ull;
			len = 24 + 9;
		}
		vp_answer(rec, t, (int64_t)len, a[3], &info,
			  a[2] < len ? a[2] : len);
		return;
	}
	if (req == PTRACE_GETSIGMASK) {
		uint64_t mask;

		if (a[2] != 8) {
			vp_answer(rec, t, -EINVAL, 0, NULL, 0);
			return;
		}
		if (ptrace(PTRACE_GETSIGMASK, x->t.tid, 8, &mask) < 0) {
			vp_answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		vp_answer(rec, t, 0, a[3], &mask, sizeof(mask));
		return;
	}
	vp_refuse(rec, t, "this request is not emulated");
}

/* From /proc/TID/status: the uids and gids (real, effective, saved),
 * CapEff and the state letter. Returns -1 when it cannot be read. */
struct vp_creds {
	unsigned long uid[3], gid[3];
	unsigned long long capeff;
	char state;
};

static int read_creds(pid_t tid, struct vp_creds *c)
{
	char path[64], line[256];
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%lu %lu %lu", &c->uid[0], &c->uid[1],
			       &c->uid[2]);
		else if (!strncmp(line, "Gid:", 4))
			sscanf(line + 4, "%lu %lu %lu", &c->gid[0], &c->gid[1],
			       &c->gid[2]);
		else if (!strncmp(line, "CapEff:", 7))
			c->capeff = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", &c->state);
	}
	fclose(f);
	return 0;
}

/* The kernel's check for PTRACE_ATTACH/SEIZE with the tracer's real ids:
 * the same ids as every one of the tracee's, or CAP_SYS_PTRACE. */
static bool may_attach(const struct vp_creds *me, const struct vp_creds *it)
{
	int i;

	if (me->capeff & (1ull << 19 /* CAP_SYS_PTRACE */))
		return true;
	for (i = 0; i < 3; i++)
		if (it->uid[i] != me->uid[0] || it->gid[i] != me->gid[0])
			return false;
	return true;
}

/* TRACEME, ATTACH and SEIZE: t starts tracing, or is traced. */
static void start_tracing(struct recorder *rec, struct rtask *t)
{
	long req = (long)t->args[0];
	struct rtask *x, *tracer = t;
	struct rec_vptrace *v;

	if (req == PTRACE_TRACEME) {
		x = t;
		tracer = t->parent ? vp_task_of(rec, t->parent) : NULL;
		if (!tracer) {
			vp_refuse(
				rec, t,
				"its parent is not a recorded process, and "
				"mrr emulates ptrace only among the processes "
				"it records");
			return;
		}
	} else {
		struct vp_creds me, it;

		x = vp_task_of(rec, (pid_t)t->args[1]);
		if (!x) {
			if (kill((pid_t)t->args[1], 0) < 0) {
				vp_answer(rec, t, -ESRCH, 0, NULL, 0);
				return;
			}
			if (read_creds((pid_t)t->args[1], &it) == 0 &&
			    (it.state == 'Z' || it.state == 'X')) {
				vp_answer(rec, t, -EPERM, 0, NULL, 0);
				return;
			}
			vp_refuse(
				rec, t,
				"its tracee is not a recorded process, and mrr "
				"emulates ptrace only among the processes it "
				"records");
			return;
		}
		if (x->tgid == t->tgid || read_creds(t->t.tid, &me) < 0 ||
		    read_creds(x->t.tid, &it) < 0 || !may_attach(&me, &it)) {
			vp_answer(rec, t, -EPERM, 0, NULL, 0);
			return;
		}
		if (x->job_stopped && req == PTRACE_ATTACH) {
			/* it would trap at once (a seizing tracer waits for
			 * a SIGCONT or a PTRACE_INTERRUPT, which works) */
			vp_refuse(rec, t,
				  "attaching with PTRACE_ATTACH to a task in a "
				  "group-stop (stopped by SIGSTOP) is not "
				  "emulated");
			return;
		}
		if (req == PTRACE_SEIZE &&
		    (t->args[3] & ~(uint64_t)VP_O_SUPPORTED)) {
			refuse_options(rec, t, t->args[3]);
			return;
		}
		if (req == PTRACE_SEIZE && t->args[2]) {
			vp_answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
	}
	if (x->vp) {
		vp_answer(rec, t, -EPERM, 0, NULL, 0);
		return;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		mrr_fatal("out of memory");
	v->tracer = tracer->tgid;
	v->tracer_tid = tracer->t.tid;
	v->seized = req == PTRACE_SEIZE;
	if (v->seized)
		v->options = t->args[3];
	x->vp = v;
	mrr_debug("vptrace: pid %d is traced by pid %d (%s)", x->t.tid,
		  v->tracer, vp_req_name(req));
	vp_answer(rec, t, 0, 0, NULL, 0);
	vp_kick_waits(rec, v->tracer);
	if (req == PTRACE_ATTACH) {
		v->attach_stop = true;
		syscall(SYS_tgkill, x->tgid, x->t.tid, SIGSTOP);
	}
}

void rec_vptrace_call(struct recorder *rec, struct rtask *t)
{
	long req = (long)t->args[0];
	struct rtask *x;

	if (req == PTRACE_TRACEME || req == PTRACE_ATTACH ||
	    req == PTRACE_SEIZE) {
		start_tracing(rec, t);
		return;
	}
	x = vp_task_of(rec, (pid_t)t->args[1]);
	if (!x || !vp_traced_by(x, t)) {
		/* it traces nothing there: natively ESRCH */
		vp_answer(rec, t, -ESRCH, 0, NULL, 0);
		return;
	}
	if (req == PTRACE_INTERRUPT) {
		if (!x->vp->seized) {
			vp_answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		if (!x->vp->held) {
			/* it stops at its next syscall's exit, where the
			 * replay finds it again, or at the entry of a call
			 * that may block; one blocked in a call already is
			 * interrupted there (rec_vptrace_wait_exit) */
			x->vp->interrupt = true;
			rec_sbuf_trace_next(x);
			if (x->in_syscall &&
			    ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) == 0)
				x->vp->kicked = true;
		}
		vp_answer(rec, t, 0, 0, NULL, 0);
		return;
	}
	if (req == PTRACE_KILL && !x->vp->held) {
		vp_answer(rec, t, 0, 0, NULL, 0);
		syscall(SYS_tgkill, x->tgid, x->t.tid, SIGKILL);
		return;
	}
	if (!x->vp->held) {
		vp_answer(rec, t, -ESRCH, 0, NULL, 0);
		return;
	}
	request(rec, t, x);
}
