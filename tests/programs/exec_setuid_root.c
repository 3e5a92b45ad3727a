/* exec_setuid_root: run as root, mrr records without no_new_privs (it may
 * install its filter with CAP_SYS_ADMIN), so the program sees the kernel's
 * own answers. An exec of a set-user-ID file would then turn address
 * randomisation back on, which no replay could repeat: mrr sets
 * no_new_privs just for that exec. The program copies itself to a
 * set-user-ID, set-group-ID file, executes it, and the new image checks
 * that it still sees no no_new_privs (prctl and /proc/self/status) and
 * that its personality is what the kernel gives natively; the replay must
 * lay the image out where the recording had it.
 */
/* mrr-test: skip-nobody=1 */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

static long status_nnp(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	MT_CHECK(f != NULL, "/proc/self/status: %s", strerror(errno));
	while (v < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "NoNewPrivs: %ld", &v) != 1)
			v = -1;
	fclose(f);
	return v;
}

static int new_image(const char *self)
{
	long nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	int p = personality(0xffffffff);

	unlink(self);
	MT_CHECK(nnp == 0, "after the exec: PR_GET_NO_NEW_PRIVS %ld", nnp);
	MT_CHECK(status_nnp() == 0, "after the exec: NoNewPrivs %ld",
		 status_nnp());
	MT_CHECK(!(p & ADDR_NO_RANDOMIZE), "after the exec: personality 0x%x",
		 p);
	printf("new image: euid %d, no_new_privs 0, personality 0x%x\n",
	       (int)geteuid(), p);
	printf("PASS\n");
	return 0;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/mrr-exec_setuid_root-XXXXXX", buf[65536];
	int in, out, status;
	ssize_t n;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "--image"))
		return new_image(argv[2]);
	mt_init();
	if (geteuid() != 0) {
		printf("not root: nothing to check\nPASS\n");
		return 0;
	}
	MT_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0 &&
			 status_nnp() == 0,
		 "no_new_privs at start");
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	MT_CHECK(in >= 0, "/proc/self/exe: %s", strerror(errno));
	out = mkstemp(path);
	MT_CHECK(out >= 0, "mkstemp: %s", strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		MT_CHECK(write(out, buf, (size_t)n) == n, "write: %s",
			 strerror(errno));
	close(in);
	MT_SYS(fchmod(out, 06755));
	close(out);
	fflush(stdout);
	pid = fork();
	MT_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		execl(path, path, "--image", path, (char *)NULL);
		_exit(127);
	}
	MT_SYS(waitpid(pid, &status, 0));
	unlink(path);
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "the new image ended with status 0x%x", status);
	/* the parent itself never asked for the bit */
	MT_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0 &&
			 status_nnp() == 0,
		 "no_new_privs in the parent");
	return 0;
}
