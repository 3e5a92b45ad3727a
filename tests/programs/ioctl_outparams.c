/* ioctl_outparams: calls whose out-parameter layout depends on a command
 * argument must hand the program at replay what the kernel wrote at
 * record: network-interface ioctls (SIOCGIFCONF, SIOCGIFNAME,
 * SIOCGIFFLAGS, SIOCGIFINDEX, SIOCGIFMTU), virtual-terminal and console
 * ioctls (VT_GETSTATE, VT_OPENQRY, KDGKBMODE, where a console can be
 * opened), fcntl(F_GETOWN_EX, F_GET_RW_HINT), msgctl(IPC_STAT), msgrcv,
 * semctl(IPC_STAT, GETALL) and keyctl(KEYCTL_READ). Each query runs twice into
 * buffers filled with different bytes: the kernel writes the same answer both
 * times, so a replay that does not write it back leaves the two fills and
 * fails.
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/kd.h>
#include <linux/keyctl.h>
#include <linux/vt.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#ifndef F_GET_RW_HINT
#define F_GET_RW_HINT 1035
#endif

/* Runs q twice on len-byte buffers filled with 0x55 and 0xaa; returns its
 * result, and fails unless both runs wrote the same bytes. */
static int twice_at(const char *what, int (*q)(void *arg, void *buf), void *arg,
		    size_t off, size_t len)
{
	unsigned char a[4096], b[4096];
	int ra, rb;

	memset(a, 0x55, sizeof(a));
	memset(b, 0xaa, sizeof(b));
	ra = q(arg, a);
	rb = q(arg, b);
	MT_CHECK(ra == rb, "%s: %d then %d", what, ra, rb);
	if (ra >= 0)
		MT_CHECK(memcmp(a + off, b + off, len) == 0,
			 "%s: the two answers differ (first bytes %02x %02x)",
			 what, a[off], b[off]);
	printf("%s: %s\n", what, ra >= 0 ? "same answer twice" : "fails");
	return ra;
}

static int twice(const char *what, int (*q)(void *arg, void *buf), void *arg,
		 size_t len)
{
	return twice_at(what, q, arg, 0, len);
}

static int fd_arg;
static unsigned long req_arg;

static int do_ioctl(void *arg, void *buf)
{
	(void)arg;
	return ioctl(fd_arg, req_arg, buf) < 0 ? -errno : 0;
}

static int do_ifreq(void *arg, void *buf)
{
	struct ifreq *r = buf;

	/* the name is input or output; the union after it is filled */
	if (arg)
		strncpy(r->ifr_name, (const char *)arg, sizeof(r->ifr_name));
	else
		r->ifr_ifindex = 1;
	return ioctl(fd_arg, req_arg, r) < 0 ? -errno : 0;
}

static int do_ifconf(void *arg, void *buf)
{
	struct ifconf *c = buf;
	char *space = (char *)buf + 64;

	(void)arg;
	memset(c, 0, 64);
	c->ifc_len = 40 * 8;
	c->ifc_buf = space;
	if (ioctl(fd_arg, SIOCGIFCONF, c) < 0)
		return -errno;
	c->ifc_buf = NULL; /* the pointer differs between the two buffers */
	/* what the kernel did not fill stays as filled: make it equal */
	memset(space + c->ifc_len, 0, 40 * 8 - c->ifc_len);
	return c->ifc_len;
}

static int do_fcntl(void *arg, void *buf)
{
	(void)arg;
	return fcntl(fd_arg, (int)req_arg, buf) < 0 ? -errno : 0;
}

static int do_msgctl(void *arg, void *buf)
{
	return msgctl(*(int *)arg, IPC_STAT, buf) < 0 ? -errno : 0;
}

static int do_semstat(void *arg, void *buf)
{
	return semctl(*(int *)arg, 0, IPC_STAT, buf) < 0 ? -errno : 0;
}

static int do_getall(void *arg, void *buf)
{
	return semctl(*(int *)arg, 0, GETALL, buf) < 0 ? -errno : 0;
}

static int do_keyread(void *arg, void *buf)
{
	return (int)syscall(SYS_keyctl, KEYCTL_READ, *(long *)arg, buf, 64);
}

static void net(void)
{
	int ret;

	fd_arg = MT_SYS(socket(AF_INET, SOCK_DGRAM, 0));
	ret = twice("SIOCGIFCONF", do_ifconf, NULL, 64 + 40 * 8);
	MT_CHECK(ret > 0, "SIOCGIFCONF: %d", ret);
	req_arg = SIOCGIFNAME;
	/* interface 1 is lo: "lo" and its NUL are written */
	MT_CHECK(twice("SIOCGIFNAME", do_ifreq, NULL, 3) == 0,
		 "no interface 1");
	req_arg = SIOCGIFFLAGS;
	MT_CHECK(twice_at("SIOCGIFFLAGS", do_ifreq, "lo", IFNAMSIZ, 2) == 0,
		 "no lo");
	req_arg = SIOCGIFINDEX;
	twice_at("SIOCGIFINDEX", do_ifreq, "lo", IFNAMSIZ, 4);
	req_arg = SIOCGIFMTU;
	twice_at("SIOCGIFMTU", do_ifreq, "lo", IFNAMSIZ, 4);
	close(fd_arg);
}

static void console(void)
{
	static const char *const paths[] = {"/dev/tty0", "/dev/console",
					    "/dev/tty1"};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		fd_arg = open(paths[i], O_RDONLY | O_NOCTTY | O_NONBLOCK);
		if (fd_arg >= 0)
			break;
	}
	if (fd_arg < 0) {
		printf("no console to ask\n");
		return;
	}
	req_arg = VT_GETSTATE;
	/* v_active (v_signal is left alone) */
	twice("VT_GETSTATE", do_ioctl, NULL, 2);
	req_arg = VT_OPENQRY;
	twice("VT_OPENQRY", do_ioctl, NULL, sizeof(int));
	req_arg = KDGKBMODE;
	twice("KDGKBMODE", do_ioctl, NULL, sizeof(int));
	req_arg = KDGETMODE;
	twice("KDGETMODE", do_ioctl, NULL, sizeof(int));
	close(fd_arg);
}

int main(void)
{
	int p[2], q;
	long key;
	struct {
		long mtype;
		char text[32];
	} m = {7, "hello queue"}, r;
	char path[] = "/tmp/mrr-ioctl-XXXXXX";

	mt_init();
	net();
	console();

	MT_SYS(pipe(p));
	fd_arg = p[0];
	MT_SYS(fcntl(p[0], F_SETOWN, getpid()));
	req_arg = F_GETOWN_EX;
	MT_CHECK(twice("F_GETOWN_EX", do_fcntl, NULL,
		       sizeof(struct f_owner_ex)) == 0,
		 "F_GETOWN_EX failed");
	fd_arg = MT_SYS(mkstemp(path));
	unlink(path);
	req_arg = F_GET_RW_HINT;
	twice("F_GET_RW_HINT", do_fcntl, NULL, 8);
	close(fd_arg);

	q = MT_SYS(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
	MT_SYS(msgsnd(q, &m, strlen(m.text) + 1, 0));
	twice("msgctl(IPC_STAT)", do_msgctl, &q, sizeof(struct msqid_ds));
	memset(&r, 0x55, sizeof(r));
	MT_CHECK(msgrcv(q, &r, sizeof(r.text), 0, 0) ==
			 (ssize_t)strlen(m.text) + 1,
		 "msgrcv: %s", strerror(errno));
	MT_CHECK(r.mtype == 7 && strcmp(r.text, "hello queue") == 0,
		 "msgrcv got type %ld '%.31s'", r.mtype, r.text);
	printf("msgrcv: type 7 'hello queue'\n");
	MT_SYS(msgctl(q, IPC_RMID, NULL));

	q = MT_SYS(semget(IPC_PRIVATE, 3, IPC_CREAT | 0600));
	{
		unsigned short vals[3] = {3, 1, 4};

		MT_SYS(semctl(q, 0, SETALL, vals));
	}
	twice("semctl(IPC_STAT)", do_semstat, &q, sizeof(struct semid_ds));
	MT_CHECK(twice("semctl(GETALL)", do_getall, &q, 6) == 0, "GETALL");
	MT_SYS(semctl(q, 0, IPC_RMID));

	key = syscall(SYS_add_key, "user", "mrr-test", "payload", 7,
		      KEY_SPEC_PROCESS_KEYRING);
	if (key < 0) {
		printf("no keys here\n");
	} else {
		MT_CHECK(twice("KEYCTL_READ", do_keyread, &key, 7) == 7,
			 "KEYCTL_READ");
	}
	mt_pass();
	return 0;
}
