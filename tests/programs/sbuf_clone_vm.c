/* sbuf_clone_vm: buffered calls in children made with clone(CLONE_VM)
 * without CLONE_SETTLS, which run on their parent's thread-local state and
 * so on the preload library's per-thread state too: the parent's syscall
 * buffer. stress-ng's vm-rw makes such a child (clone(CLONE_VM|SIGCHLD)),
 * whose first calls are buffered ones (close, then pread-like reads).
 *
 * Round 1: a process child, clone(CLONE_VM|SIGCHLD); round 2: a thread
 * made by raw clone flags without CLONE_SETTLS. Each child starts with a
 * buffered close and preads, makes a traced call, reads again, and exits;
 * the parent reads the same file meanwhile, so both sides' records share
 * one buffer. The children report through shared memory. */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define FILE_LEN 8192
#define READS	 400

static int fd;
static char path[64];
static volatile int child_failed_at;
static uint64_t child_sum;

static unsigned char pattern(size_t off)
{
	return (unsigned char)(off * 13 + (off >> 7));
}

/* n preads at offsets that depend on who reads; 0 when a byte is wrong. */
static uint64_t reads(int who, int n)
{
	unsigned char buf[48];
	struct timespec ts;
	uint64_t sum = 1;

	for (int i = 0; i < n; i++) {
		off_t off = (off_t)(i * 67 + who * 1009) % (FILE_LEN - 48);

		if (pread(fd, buf, sizeof(buf), off) != sizeof(buf))
			return 0;
		for (int k = 0; k < 48; k++) {
			if (buf[k] != pattern(off + k))
				return 0;
			sum = sum * 31 + buf[k];
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	return sum;
}

/* The child's first calls are buffered: fstat and close of a file of its
 * own, then reads; a traced write in the middle; more reads. It must not
 * touch stdio (the parent's locks) nor exit() (the parent's atexit). */
static int child(void *arg)
{
	int who = (int)(intptr_t)arg, tmp;
	struct stat st;
	uint64_t sum;

	tmp = open(path, O_RDONLY);
	if (tmp < 0 || fstat(tmp, &st) != 0 || st.st_size != FILE_LEN) {
		child_failed_at = 1;
		return 1;
	}
	if (close(tmp) != 0) {
		child_failed_at = 2;
		return 1;
	}
	sum = reads(who, READS);
	if (!sum) {
		child_failed_at = 3;
		return 1;
	}
	if (write(1, "child: first reads done\n", 24) != 24) {
		child_failed_at = 4;
		return 1;
	}
	sum ^= reads(who + 1, READS / 2);
	child_sum = sum;
	return 0;
}

static void process_child(char *stack_top)
{
	uint64_t mine;
	int status;
	pid_t pid;

	child_failed_at = 0;
	pid = clone(child, stack_top, CLONE_VM | SIGCHLD, (void *)(intptr_t)1);
	MT_CHECK(pid > 0, "clone: %s", strerror(errno));
	mine = reads(0, READS);
	MT_CHECK(mine != 0, "the parent read wrong bytes");
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the CLONE_VM child: status %#x, failed at step %d", status,
		 child_failed_at);
	printf("process child: sums %016llx %016llx\n",
	       (unsigned long long)mine, (unsigned long long)child_sum);
}

static pid_t thread_tid = 1;

/* A thread of raw clone flags with the parent's TLS: the kernel writes its
 * tid into thread_tid before clone returns (CLONE_PARENT_SETTID, as glibc
 * does: CLONE_CHILD_SETTID writes it only once the child runs, a race with
 * the parent's first look), and the thread's exit clears it and wakes the
 * futex (CLONE_CHILD_CLEARTID). Its return value goes to exit (SYS_exit),
 * which ends only the thread. */
static void thread_child(char *stack_top)
{
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		    CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
		    CLONE_CHILD_CLEARTID;
	uint64_t mine;
	pid_t tid;

	child_failed_at = 0;
	child_sum = 0;
	tid = clone(child, stack_top, flags, (void *)(intptr_t)3, &thread_tid,
		    NULL, &thread_tid);
	MT_CHECK(tid > 0, "clone thread: %s", strerror(errno));
	mine = reads(2, READS);
	MT_CHECK(mine != 0, "the parent read wrong bytes");
	for (;;) {
		pid_t v = __atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE);

		if (v == 0)
			break;
		syscall(SYS_futex, &thread_tid, FUTEX_WAIT, v, NULL, NULL, 0);
	}
	MT_CHECK(child_failed_at == 0, "the thread failed at step %d",
		 child_failed_at);
	printf("thread child: sums %016llx %016llx\n", (unsigned long long)mine,
	       (unsigned long long)child_sum);
}

int main(void)
{
	unsigned char data[FILE_LEN];
	size_t size = 256 * 1024;
	char *stack = malloc(size);

	mt_init();
	MT_CHECK(stack != NULL, "malloc");
	snprintf(path, sizeof(path), "/tmp/mrr_sbuf_clone_vm.%d", getpid());
	for (size_t i = 0; i < FILE_LEN; i++)
		data[i] = pattern(i);
	fd = MT_SYS(open(path, O_RDWR | O_CREAT | O_TRUNC, 0600));
	MT_CHECK(write(fd, data, FILE_LEN) == FILE_LEN, "write");

	process_child(stack + size);
	thread_child(stack + size);

	MT_SYS(close(fd));
	MT_SYS(unlink(path));
	mt_pass();
	return 0;
}
