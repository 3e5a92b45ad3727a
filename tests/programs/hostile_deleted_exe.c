/* hostile_deleted_exe: copies its own executable to /tmp and execs the
 * copy, which deletes itself and then execs /proc/self/exe: the program
 * ends up running from a file that no longer has a name. mrr must store
 * the executable it cannot find by path any more. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

static void copy_and_exec(void)
{
	char path[64];
	struct stat st;
	int in, out;

	snprintf(path, sizeof(path), "/tmp/mrr-deleted-exe-%d", (int)getpid());
	in = MT_SYS(open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
	out = MT_SYS(open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0700));
	MT_SYS(fstat(in, &st));
	MT_CHECK(MT_SYS(sendfile(out, in, NULL, st.st_size)) == st.st_size,
		 "short copy");
	MT_SYS(close(in));
	MT_SYS(close(out));
	printf("running a copy of myself\n");
	fflush(stdout);
	char *const args[] = {path, "copy", NULL};
	execv(path, args);
	MT_CHECK(0, "exec of the copy: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	char link[256];
	ssize_t n;

	mt_init();
	if (argc == 1)
		copy_and_exec();
	if (strcmp(argv[1], "copy") == 0) {
		char *const args[] = {argv[0], "deleted", NULL};

		MT_SYS(unlink(argv[0]));
		execv("/proc/self/exe", args);
		MT_CHECK(0, "exec of the deleted copy: %s", strerror(errno));
	}
	n = MT_SYS(readlink("/proc/self/exe", link, sizeof(link) - 1));
	link[n] = 0;
	MT_CHECK(strstr(link, "(deleted)") != NULL,
		 "/proc/self/exe is %s, not a deleted file", link);
	printf("running from a deleted executable\n");
	mt_pass();
	return 0;
}
