/* hostile_seccomp_openat: opens a file, then installs a seccomp filter
 * under which open and openat fail with EPERM, and maps the file it opened
 * before (at replay mrr maps its stored copy there, which it opens inside
 * the program), reads it through the mapping and through the fd, and checks
 * that openat is refused. */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static void install_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	MT_SYS(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
}

int main(void)
{
	char path[] = "/tmp/mrr-seccomp-openat.XXXXXX", buf[64];
	const char text[] = "mapped under a filter that refuses openat\n";
	char *p;
	int fd;

	mt_init();
	fd = MT_SYS(mkstemp(path));
	MT_SYS(unlink(path));
	MT_CHECK(write(fd, text, sizeof(text)) == (ssize_t)sizeof(text),
		 "short write");
	install_filter();
	printf("filter installed\n");

	errno = 0;
	MT_CHECK(openat(AT_FDCWD, "/etc/hostname", O_RDONLY) == -1 &&
			 errno == EPERM,
		 "openat was not refused: errno %d", errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	MT_CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	MT_CHECK(memcmp(p, text, sizeof(text)) == 0, "mapping holds %.20s", p);
	MT_CHECK(pread(fd, buf, sizeof(text), 0) == (ssize_t)sizeof(text),
		 "pread");
	MT_CHECK(memcmp(buf, text, sizeof(text)) == 0, "pread read %.20s", buf);
	printf("%s", p);
	MT_SYS(munmap(p, 4096));
	mt_pass();
	return 0;
}
