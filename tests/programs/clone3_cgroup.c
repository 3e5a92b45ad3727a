/* clone3 with arguments that name the recording's machine: a cgroup by fd
 * (CLONE_INTO_CGROUP) and the child's pid (set_tid). LTP clone303 failed at
 * replay with "fork failed at replay": the cgroup fd was not open there.
 * As root, the child starts in a cgroup made for it and checks that it is
 * there, and a second child gets the pid asked for; as another user (no
 * cgroup to make, no CAP_SYS_ADMIN for set_tid) both are plain clone3s. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

static const char *const cgroup_roots[] = {"/sys/fs/cgroup/unified",
					   "/sys/fs/cgroup"};

static long clone3_call(struct clone_args *ca)
{
	return syscall(SYS_clone3, ca, sizeof(*ca));
}

/* 1 when /proc/self/cgroup's v2 line ends in name */
static int in_cgroup(const char *name)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3) && strstr(line, name))
			found = 1;
	fclose(f);
	return found;
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
		printf("FAIL: child %d did not exit\n", (int)pid);
		return -1;
	}
	return WEXITSTATUS(st);
}

/* a child in a new cgroup of its own: 0 done, 1 not possible here */
static int into_cgroup(void)
{
	char dir[256], name[64];
	struct clone_args ca;
	int fd = -1, rc;
	unsigned i;
	long pid;

	snprintf(name, sizeof(name), "mrr-clone3-%d", (int)getpid());
	for (i = 0; i < sizeof(cgroup_roots) / sizeof(*cgroup_roots); i++) {
		snprintf(dir, sizeof(dir), "%s/cgroup.procs", cgroup_roots[i]);
		if (access(dir, F_OK) != 0)
			continue; /* not a cgroup v2 hierarchy */
		snprintf(dir, sizeof(dir), "%s/%s", cgroup_roots[i], name);
		if (mkdir(dir, 0755) == 0) {
			fd = open(dir, O_RDONLY | O_DIRECTORY);
			break;
		}
	}
	if (fd < 0)
		return 1;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)fd;
	pid = clone3_call(&ca);
	if (pid == 0)
		_exit(in_cgroup(name) ? 0 : 3);
	if (pid < 0) {
		/* a cgroup v2 tree that refuses (a controller, a domain
		 * rule): not what this program tests */
		close(fd);
		rmdir(dir);
		return 1;
	}
	rc = wait_child((pid_t)pid);
	close(fd);
	rmdir(dir);
	if (rc != 0) {
		printf("FAIL: the child was not in its cgroup (%d)\n", rc);
		exit(1);
	}
	return 0;
}

/* a child with the pid asked for: 0 done, 1 not possible here */
static int with_set_tid(void)
{
	struct clone_args ca;
	pid_t want;
	long pid;
	int tries, rc;

	for (tries = 0; tries < 64; tries++) {
		want = getpid() + 5000 + tries * 7;
		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		ca.set_tid = (uint64_t)(uintptr_t)&want;
		ca.set_tid_size = 1;
		pid = clone3_call(&ca);
		if (pid == 0)
			_exit(getpid() == want ? 0 : 4);
		if (pid > 0)
			break;
		if (errno != EEXIST && errno != EINVAL)
			return 1; /* EPERM: no CAP_SYS_ADMIN */
	}
	if (pid < 0)
		return 1;
	if (pid != want) {
		printf("FAIL: clone3 gave pid %ld, not the one asked for\n",
		       pid);
		exit(1);
	}
	rc = wait_child((pid_t)pid);
	if (rc != 0) {
		printf("FAIL: the child did not have its pid (%d)\n", rc);
		exit(1);
	}
	return 0;
}

static void plain(void)
{
	struct clone_args ca;
	long pid;

	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	pid = clone3_call(&ca);
	if (pid == 0)
		_exit(0);
	if (pid < 0 || wait_child((pid_t)pid) != 0) {
		printf("FAIL: plain clone3\n");
		exit(1);
	}
}

int main(void)
{
	if (into_cgroup()) {
		printf("CLONE_INTO_CGROUP: not possible here\n");
		plain();
	} else {
		printf("CLONE_INTO_CGROUP: the child was in its cgroup\n");
	}
	if (with_set_tid()) {
		printf("set_tid: not possible here\n");
		plain();
	} else {
		printf("set_tid: the child had the pid asked for\n");
	}
	printf("PASS\n");
	return 0;
}
