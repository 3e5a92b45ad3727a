/* nnp_visible: mrr sets no_new_privs on the recorded program when it is
 * unprivileged (its seccomp filter needs it; as root it does not), but the
 * program must see its own bit: PR_GET_NO_NEW_PRIVS
 * answers what it set, and without the bit and without CAP_SYS_ADMIN a
 * seccomp filter install fails with EACCES (LTP prctl02 saw it succeed).
 * Once the program sets the bit itself, the install works. A child starts
 * with its parent's bit: the program checks its own against its parent's
 * (under mrr, mrr is the parent, and mrr itself runs without the bit). */
#include "mrr_test.h"

#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* NoNewPrivs of the parent process, from /proc/PPID/status. */
static long parent_nnp(void)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)getppid());
	f = fopen(path, "re");
	MT_CHECK(f != NULL, "%s: %s", path, strerror(errno));
	while (v < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "NoNewPrivs: %ld", &v) != 1)
			v = -1;
	fclose(f);
	MT_CHECK(v == 0 || v == 1, "no NoNewPrivs line in %s", path);
	return v;
}

static void drop_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	MT_SYS(syscall(SYS_capget, &hdr, data));
	data[0].effective &= ~(1u << CAP_SYS_ADMIN);
	MT_SYS(syscall(SYS_capset, &hdr, data));
}

int main(void)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = 1, .filter = allow};
	struct sock_fprog empty = {.len = 0, .filter = allow};
	long nnp;

	mt_init();
	nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	printf("no_new_privs at start: %ld\n", nnp);
	MT_CHECK(nnp == parent_nnp(), "the parent's no_new_privs is %ld",
		 parent_nnp());
	MT_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 &&
			 errno == EINVAL,
		 "PR_GET_NO_NEW_PRIVS with an argument: %s", strerror(errno));
	drop_sys_admin();
	if (nnp == 0) {
		MT_CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ==
					 -1 &&
				 errno == EACCES,
			 "prctl(PR_SET_SECCOMP) without no_new_privs: %s",
			 strerror(errno));
		MT_CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
				 &prog) == -1 &&
				 errno == EACCES,
			 "seccomp() without no_new_privs: %s", strerror(errno));
		/* the checks before it still come first */
		MT_CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
				 &empty) == -1 &&
				 errno == EINVAL,
			 "seccomp() of an empty filter: %s", strerror(errno));
		MT_CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, 8) == -1 &&
				 errno == EFAULT,
			 "prctl(PR_SET_SECCOMP) of a bad address: %s",
			 strerror(errno));
		MT_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0,
			 "PR_GET_SECCOMP after the refusals");
		printf("filter refused without no_new_privs\n");
	}
	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	MT_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1,
		 "no_new_privs after setting it");
	MT_SYS(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
	MT_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == SECCOMP_MODE_FILTER,
		 "PR_GET_SECCOMP after the install");
	printf("filter installed\n");
	mt_pass();
	return 0;
}
