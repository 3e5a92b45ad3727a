/* sbuf_seccomp: a program with its own seccomp filter that kills the
 * process on madvise(MADV_COLD). The syscall buffer probes with MADV_COLD
 * before buffering a MADV_DONTNEED; once the program's filter is in, that
 * probe would trip it, so mrr must stop probing. The program drops touched
 * pages before and after installing the filter and checks they read zero,
 * and must survive. */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define PAGES 16

static void install_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MADV_COLD, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	MT_SYS(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

/* Touches every page, drops them all, and checks they read zero. */
static void touch_and_drop(char *p, long pg, int round)
{
	for (int i = 0; i < PAGES; i++)
		p[i * pg] = (char)(round + i + 1);
	MT_SYS(madvise(p, PAGES * pg, MADV_DONTNEED));
	for (int i = 0; i < PAGES; i++)
		MT_CHECK(p[i * pg] == 0, "round %d: page %d reads %d", round, i,
			 p[i * pg]);
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char buf[64];
	char *p;
	int fd;

	mt_init();
	p = MT_SYS(mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	for (int round = 0; round < 100; round++)
		touch_and_drop(p, pg, round);
	printf("100 rounds of %d-page drops before the filter\n", PAGES);

	install_filter();
	printf("filter installed: madvise(MADV_COLD) kills the process\n");
	for (int round = 0; round < 100; round++)
		touch_and_drop(p, pg, round);
	printf("100 rounds of %d-page drops after the filter\n", PAGES);

	/* Other buffered calls still work under the program's filter. */
	fd = MT_SYS(open("/proc/self/exe", O_RDONLY));
	MT_CHECK(MT_SYS(pread(fd, buf, 4, 0)) == 4 &&
			 !memcmp(buf, "\177ELF", 4),
		 "not an ELF header");
	MT_SYS(close(fd));

	/* The filter works: a direct MADV_COLD would kill us (not tried), and
	 * other advice passes it. */
	MT_SYS(madvise(p, PAGES * pg, MADV_WILLNEED));
	MT_SYS(munmap(p, PAGES * pg));
	mt_pass();
	return 0;
}
