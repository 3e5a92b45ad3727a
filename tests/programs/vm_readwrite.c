/* vm_readwrite: process_vm_readv and process_vm_writev between the
 * program's own processes. A child tells its parent where its buffer is;
 * the parent reads it (process_vm_readv), writes new bytes into it across
 * two ranges (process_vm_writev), and the child, woken afterwards, must
 * find them there: at replay that write must reach the replayed child.
 * The parent also writes into its own memory the same way.
 */
#include "mrr_test.h"

#include <stdint.h>
#include <sys/uio.h>
#include <sys/wait.h>

static char buf[64] = "the child's original bytes";

int main(void)
{
	int up[2], down[2], st;
	char got[64], mine[16] = "untouched";
	struct iovec l[2], r[2];
	uintptr_t addr;
	pid_t pid;
	char c;

	mt_init();
	MT_SYS(pipe(up));
	MT_SYS(pipe(down));
	pid = MT_SYS(fork());
	if (pid == 0) {
		addr = (uintptr_t)buf;
		MT_SYS(write(up[1], &addr, sizeof(addr)));
		MT_CHECK(read(down[0], &c, 1) == 1, "child read");
		printf("child sees: %s\n", buf);
		_exit(strcmp(buf, "written by the parent!") == 0 ? 0 : 3);
	}
	MT_CHECK(read(up[0], &addr, sizeof(addr)) == sizeof(addr), "addr");
	memset(got, 0, sizeof(got));
	l[0].iov_base = got;
	l[0].iov_len = 27;
	r[0].iov_base = (void *)addr;
	r[0].iov_len = 27;
	MT_CHECK(MT_SYS(process_vm_readv(pid, l, 1, r, 1, 0)) == 27, "readv");
	MT_CHECK(strcmp(got, "the child's original bytes") == 0, "read '%s'",
		 got);
	printf("parent read: %s\n", got);
	/* two local pieces into two remote ranges of other sizes */
	l[0].iov_base = "written by";
	l[0].iov_len = 10;
	l[1].iov_base = " the parent!";
	l[1].iov_len = 13; /* with the NUL */
	r[0].iov_base = (void *)addr;
	r[0].iov_len = 4;
	r[1].iov_base = (void *)(addr + 4);
	r[1].iov_len = 19;
	MT_CHECK(MT_SYS(process_vm_writev(pid, l, 2, r, 2, 0)) == 23, "writev");
	MT_SYS(write(down[1], "g", 1));
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	/* into its own memory */
	l[0].iov_base = "overwritten";
	l[0].iov_len = 12;
	r[0].iov_base = mine;
	r[0].iov_len = 12;
	MT_CHECK(MT_SYS(process_vm_writev(getpid(), l, 1, r, 1, 0)) == 12,
		 "self writev");
	MT_CHECK(strcmp(mine, "overwritten") == 0, "own bytes '%s'", mine);
	printf("own memory: %s\n", mine);
	/* lengths the kernel refuses (LTP process_vm_writev01): EINVAL, and
	 * nothing written; mrr stopped the recording before the call */
	r[0].iov_len = (size_t)-1;
	errno = 0;
	MT_CHECK(process_vm_writev(getpid(), l, 1, r, 1, 0) == -1 &&
			 errno == EINVAL,
		 "a remote length of -1: %s", strerror(errno));
	/* a remote range far larger than the local bytes: only those go */
	l[0].iov_base = "twelve bytes";
	l[0].iov_len = 12;
	r[0].iov_base = mine;
	r[0].iov_len = (size_t)1 << 40;
	MT_CHECK(process_vm_writev(getpid(), l, 1, r, 1, 0) == 12,
		 "a 1 TiB remote range: %s", strerror(errno));
	printf("own memory: %.12s\n", mine);
	mt_pass();
	return 0;
}
