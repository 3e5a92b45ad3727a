/* outparams_misc: the out-parameters of issue 10's list that
 * ioctl_outparams does not ask for: fcntl(F_GET_FILE_RW_HINT, F_GETLK,
 * F_OFD_GETLK), msgctl(IPC_INFO, MSG_INFO, MSG_STAT), keyctl(KEYCTL_DESCRIBE,
 * KEYCTL_GET_SECURITY) and the network-interface ioctls SIOCGIFADDR,
 * SIOCGIFNETMASK, SIOCGIFHWADDR, SIOCGIFTXQLEN and SIOCGIFMAP on lo. Each
 * query runs twice into buffers filled with different bytes: the kernel
 * writes the same answer both times, so a replay that does not write it
 * back leaves the two fills and fails.
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <net/if.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef F_GET_FILE_RW_HINT
#define F_GET_FILE_RW_HINT 1037
#endif

typedef long (*query_fn)(long arg, void *buf);

/* Runs q twice on buffers filled with 0x55 and 0xaa; fails unless both
 * returned the same and wrote the same len bytes at off. */
static long twice(const char *what, query_fn q, long arg, size_t off,
		  size_t len)
{
	unsigned char a[512], b[512];
	long ra, rb;

	memset(a, 0x55, sizeof(a));
	memset(b, 0xaa, sizeof(b));
	ra = q(arg, a);
	rb = q(arg, b);
	MT_CHECK(ra == rb, "%s: %ld then %ld", what, ra, rb);
	if (ra >= 0)
		MT_CHECK(memcmp(a + off, b + off, len) == 0,
			 "%s: the two answers differ (first bytes %02x %02x)",
			 what, a[off], b[off]);
	printf("%s: %s\n", what, ra >= 0 ? "same answer twice" : "fails");
	return ra;
}

static int fd_arg;
static long cmd_arg;

static long do_fcntl(long arg, void *buf)
{
	(void)arg;
	return fcntl(fd_arg, (int)cmd_arg, buf) < 0 ? -errno : 0;
}

static long do_getlk(long arg, void *buf)
{
	struct flock *l = buf;

	(void)arg;
	memset(l, 0, sizeof(*l));
	l->l_type = F_WRLCK;
	l->l_whence = SEEK_SET;
	l->l_len = 10;
	return fcntl(fd_arg, (int)cmd_arg, l) < 0 ? -errno : 0;
}

static long do_msgctl(long id, void *buf)
{
	long r = msgctl((int)id, (int)cmd_arg, buf);

	return r < 0 ? -errno : r;
}

static long do_keyctl(long key, void *buf)
{
	long r = syscall(SYS_keyctl, cmd_arg, key, buf, 256);

	return r < 0 ? -errno : r;
}

static long do_ifreq(long sock, void *buf)
{
	struct ifreq *r = buf;

	strncpy(r->ifr_name, "lo", sizeof(r->ifr_name));
	return ioctl((int)sock, (unsigned long)cmd_arg, r) < 0 ? -errno : 0;
}

static void files(void)
{
	char path[] = "/tmp/mrr-outparams-XXXXXX";
	pid_t pid;
	int st;

	fd_arg = MT_SYS(mkstemp(path));
	unlink(path);
	cmd_arg = F_GET_FILE_RW_HINT;
	twice("F_GET_FILE_RW_HINT", do_fcntl, 0, 0, 8);
	/* a lock held by a child, which F_GETLK then reports */
	pid = MT_SYS(fork());
	if (pid == 0) {
		struct flock l = {
			.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10};

		MT_SYS(fcntl(fd_arg, F_SETLK, &l));
		pause();
		_exit(0);
	}
	/* wait until the child holds it */
	for (int i = 0; i < 10000; i++) {
		struct flock l = {
			.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10};

		MT_SYS(fcntl(fd_arg, F_GETLK, &l));
		if (l.l_type != F_UNLCK)
			break;
		usleep(1000);
	}
	cmd_arg = F_GETLK;
	MT_CHECK(twice("F_GETLK", do_getlk, 0, 0, sizeof(struct flock)) == 0,
		 "F_GETLK");
	cmd_arg = F_OFD_GETLK;
	twice("F_OFD_GETLK", do_getlk, 0, 0, sizeof(struct flock));
	kill(pid, SIGKILL);
	MT_SYS(waitpid(pid, &st, 0));
	close(fd_arg);
}

static void queues(void)
{
	struct msqid_ds ds;
	int q;

	q = MT_SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
	cmd_arg = IPC_INFO;
	twice("msgctl(IPC_INFO)", do_msgctl, q, 0, sizeof(struct msginfo));
	cmd_arg = MSG_INFO;
	twice("msgctl(MSG_INFO)", do_msgctl, q, 0, sizeof(struct msginfo));
	/* MSG_STAT takes an index into the kernel's table: find q's */
	cmd_arg = MSG_STAT;
	for (int i = 0; i < 4096; i++) {
		long id = msgctl(i, MSG_STAT, &ds);

		if (id == q) {
			twice("msgctl(MSG_STAT)", do_msgctl, i, 0,
			      sizeof(struct msqid_ds));
			break;
		}
	}
	MT_SYS(msgctl(q, IPC_RMID, NULL));
}

static void keys(void)
{
	long key = syscall(SYS_add_key, "user", "mrr-misc", "payload", 7,
			   KEY_SPEC_PROCESS_KEYRING);

	if (key < 0) {
		printf("no keys here\n");
		return;
	}
	cmd_arg = KEYCTL_DESCRIBE;
	MT_CHECK(twice("KEYCTL_DESCRIBE", do_keyctl, key, 0, 8) > 0,
		 "KEYCTL_DESCRIBE");
	cmd_arg = KEYCTL_GET_SECURITY;
	twice("KEYCTL_GET_SECURITY", do_keyctl, key, 0, 1);
}

static void net(void)
{
	static const struct {
		long req;
		const char *name;
		size_t len;
	} reqs[] = {
		{SIOCGIFADDR, "SIOCGIFADDR", 16},
		{SIOCGIFNETMASK, "SIOCGIFNETMASK", 16},
		{SIOCGIFHWADDR, "SIOCGIFHWADDR", 8}, /* family, 6-byte address
						      */
		{SIOCGIFTXQLEN, "SIOCGIFTXQLEN", 4},
		{SIOCGIFMAP, "SIOCGIFMAP", 16},
	};
	int s = MT_SYS(socket(AF_INET, SOCK_DGRAM, 0));

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		cmd_arg = reqs[i].req;
		twice(reqs[i].name, do_ifreq, s, IFNAMSIZ, reqs[i].len);
	}
	close(s);
}

int main(void)
{
	mt_init();
	files();
	queues();
	keys();
	net();
	mt_pass();
	return 0;
}
