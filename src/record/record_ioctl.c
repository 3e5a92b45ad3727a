/* The out-parameters of the multiplexed calls whose layout depends on a
 * command argument: ioctl (by request, from the syscall table's ioctl list,
 * src/syscalls/ioctls.c), fcntl, msgctl and keyctl. Replay emulates these
 * calls and writes back exactly what is captured here. semctl is here too
 * (IPC_STAT, SEM_INFO, GETALL). */
#define _GNU_SOURCE
#include "core/exitcodes.h"
#include "record/rtask.h"
#include "syscalls/table.h"

#include <linux/keyctl.h>
#include <stdio.h>
#include <sys/sem.h>
#include <sys/syscall.h>

#ifndef KEYCTL_CAPABILITIES
#define KEYCTL_CAPABILITIES 31
#endif

bool rec_ioctl_entry(struct recorder *rec, struct rtask *t)
{
	const char *name;
	uint32_t size;

	int kind;

	if (t->nr != SYS_ioctl)
		return false;
	kind = mrr_ioctl_out(t->args[1], &size, &name);
	if (kind == MRR_IOCTL_REFUSED) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called ioctl %s on fd %d at event %llu; %s, "
			 "so the recording stops here",
			 t->t.tid, name, (int)t->args[0],
			 (unsigned long long)mrr_trace_writer_events(rec->w),
			 mrr_ioctl_refusal(t->args[1]));
		return true;
	}
	if (kind != MRR_IOCTL_UNKNOWN)
		return false;
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "pid %d called ioctl request 0x%llx on fd %d at event %llu; "
		 "mrr does not know what that request writes into the "
		 "program's memory, so the recording stops here",
		 t->t.tid, (unsigned long long)(t->args[1] & 0xffffffffu),
		 (int)t->args[0],
		 (unsigned long long)mrr_trace_writer_events(rec->w));
	return true;
}

static void capture_ioctl(struct rtask *t, struct capture *c)
{
	const char *name;
	uint32_t size;
	struct {
		int32_t len, pad;
		uint64_t buf;
	} ifc;

	uint32_t u[2];
	uint64_t a[2];

	switch (mrr_ioctl_out(t->args[1], &size, &name)) {
	case MRR_IOCTL_FIXED:
		capture_add(c, t, t->args[2], size);
		break;
	case MRR_IOCTL_PROCMAP:
		capture_add(c, t, t->args[2], size);
		if (tracee_read_all(&t->t, t->args[2] + 80, u, sizeof(u)) ==
			    0 &&
		    tracee_read_all(&t->t, t->args[2] + 88, a, sizeof(a)) ==
			    0) {
			capture_add(c, t, a[0], u[0]); /* the name, its NUL */
			capture_add(c, t, a[1], u[1]); /* the build id */
		}
		break;
	case MRR_IOCTL_FIEMAP:
		capture_add(c, t, t->args[2], size);
		if (tracee_read_all(&t->t, t->args[2] + 20, u, sizeof(u)) == 0)
			capture_add(c, t, t->args[2] + size,
				    (uint64_t)(u[0] < u[1] ? u[0] : u[1]) * 56);
		break;
	case MRR_IOCTL_IFCONF:
		capture_add(c, t, t->args[2], size);
		if (tracee_read_all(&t->t, t->args[2], &ifc, sizeof(ifc)) ==
			    0 &&
		    ifc.len > 0)
			capture_add(c, t, ifc.buf, (uint64_t)ifc.len);
		break;
	}
}

static void capture_fcntl(struct rtask *t, struct capture *c)
{
	switch (t->args[1]) {
	case 5:	 /* F_GETLK */
	case 36: /* F_OFD_GETLK */
		capture_add(c, t, t->args[2], 32);
		break;
	case 16:   /* F_GETOWN_EX: struct f_owner_ex */
	case 1035: /* F_GET_RW_HINT */
	case 1037: /* F_GET_FILE_RW_HINT */
		capture_add(c, t, t->args[2], 8);
		break;
	}
}

static void capture_msgctl(struct rtask *t, struct capture *c)
{
	switch (t->args[1] & 0xff) {
	case 2:					    /* IPC_STAT */
	case 11:				    /* MSG_STAT */
	case 13:				    /* MSG_STAT_ANY */
		capture_add(c, t, t->args[2], 120); /* struct msqid64_ds */
		break;
	case 3:					   /* IPC_INFO */
	case 12:				   /* MSG_INFO */
		capture_add(c, t, t->args[2], 32); /* struct msginfo */
		break;
	}
}

static void capture_semctl(struct rtask *t, struct capture *c)
{
	struct semid_ds ds;

	switch (t->args[2] & 0xff) {
	case 2:					    /* IPC_STAT */
	case 18:				    /* SEM_STAT */
	case 20:				    /* SEM_STAT_ANY */
		capture_add(c, t, t->args[3], 104); /* struct semid64_ds */
		break;
	case 3:					   /* IPC_INFO */
	case 19:				   /* SEM_INFO */
		capture_add(c, t, t->args[3], 40); /* struct seminfo */
		break;
	case 13: /* GETALL: one unsigned short per semaphore of the set */
		if (semctl((int)t->args[0], 0, IPC_STAT, &ds) == 0)
			capture_add(c, t, t->args[3], ds.sem_nsems * 2);
		break;
	}
}

/* keyctl's reads return the whole length and copy what fits. */
static void capture_keyctl(struct rtask *t, int64_t result, struct capture *c)
{
	const uint64_t *a = t->args;
	uint32_t out_len;

	switch (a[0]) {
	case KEYCTL_DESCRIBE:
	case KEYCTL_READ:
	case KEYCTL_GET_SECURITY:
	case KEYCTL_DH_COMPUTE:
		capture_add(c, t, a[2],
			    (uint64_t)result < a[3] ? (uint64_t)result : a[3]);
		break;
	case KEYCTL_CAPABILITIES:
		capture_add(c, t, a[1],
			    (uint64_t)result < a[2] ? (uint64_t)result : a[2]);
		break;
	case KEYCTL_PKEY_QUERY:
		capture_add(c, t, a[4], 56); /* struct keyctl_pkey_query */
		break;
	case KEYCTL_PKEY_ENCRYPT:
	case KEYCTL_PKEY_DECRYPT:
	case KEYCTL_PKEY_SIGN:
		/* out_len is at offset 8 of struct keyctl_pkey_params */
		if (tracee_read_all(&t->t, a[1] + 8, &out_len, 4) == 0)
			capture_add(c, t, a[4],
				    (uint64_t)result < out_len
					    ? (uint64_t)result
					    : out_len);
		break;
	}
}

bool rec_family_capture(struct rtask *t, int64_t result, struct capture *c)
{
	if (result < 0)
		return t->nr == SYS_ioctl || t->nr == SYS_fcntl ||
		       t->nr == SYS_msgctl || t->nr == SYS_semctl ||
		       t->nr == SYS_keyctl;
	switch (t->nr) {
	case SYS_ioctl:
		capture_ioctl(t, c);
		return true;
	case SYS_fcntl:
		capture_fcntl(t, c);
		return true;
	case SYS_msgctl:
		capture_msgctl(t, c);
		return true;
	case SYS_semctl:
		capture_semctl(t, c);
		return true;
	case SYS_keyctl:
		capture_keyctl(t, result, c);
		return true;
	}
	return false;
}
