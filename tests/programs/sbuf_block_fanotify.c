/* sbuf_block_fanotify: a buffered call that blocks on another recorded
 * process (issue 10, LTP fanotify07). Parent and child share a MAP_SHARED
 * page, so mrr runs them one at a time. The child reads a regular file
 * (buffered: an untraced read) that the parent watches with a fanotify
 * FAN_ACCESS_PERM mark: the kernel holds the read until the parent answers.
 * Each round the child writes the shared page and makes a few buffered
 * calls before its read, and checks after it what the parent wrote before
 * answering; the parent checks the child's writes when it gets the event.
 * So the user code of both must run in the recorded order at replay too.
 * One round is denied (the read fails with EPERM). Needs root
 * (CAP_SYS_ADMIN for fanotify_init); elsewhere it says so and passes. */
/* mrr-test: skip-nobody=1 timeout=60 */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/fanotify.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define ROUNDS 4

struct shared {
	volatile int child_round; /* the child's last round before its read */
	volatile int answered;	  /* rounds the parent answered */
	volatile uint64_t sum;	  /* what the child read */
};

static char path[64], other[64];

static void child(struct shared *s, int fd, int ofd)
{
	char buf[16], obuf[8];

	for (int r = 1; r <= ROUNDS; r++) {
		/* buffered calls before the blocking one: their records go
		 * out before the parent's events */
		for (int k = 0; k < 3; k++)
			MT_CHECK(pread(ofd, obuf, 2, k) == 2, "pread");
		s->child_round = r;
		ssize_t n = pread(fd, buf, 5, 0);

		MT_CHECK(s->answered == r, "round %d: answered %d", r,
			 s->answered);
		if (r == 3) {
			MT_CHECK(n == -1 && errno == EPERM,
				 "denied read gave %zd (%s)", n,
				 strerror(errno));
			continue;
		}
		MT_CHECK(n == 5 && memcmp(buf, "fanot", 5) == 0,
			 "round %d read %zd", r, n);
		s->sum = s->sum * 31 + (uint64_t)(unsigned char)buf[r];
	}
	_exit(0);
}

int main(void)
{
	struct shared *s;
	int fan, fd, ofd, status;
	pid_t pid;

	mt_init();
	snprintf(path, sizeof(path), "/tmp/mrr-sbufblock-%d", getpid());
	snprintf(other, sizeof(other), "/tmp/mrr-sbufblock-%d.o", getpid());
	fd = MT_SYS(open(path, O_RDWR | O_CREAT | O_TRUNC, 0600));
	MT_CHECK(write(fd, "fanotify!", 9) == 9, "write");
	close(fd);
	ofd = MT_SYS(open(other, O_RDWR | O_CREAT | O_TRUNC, 0600));
	MT_CHECK(write(ofd, "other", 5) == 5, "write");
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fan < 0) {
		printf("fanotify permission events unavailable (%s): nothing "
		       "to check\n",
		       strerror(errno));
		unlink(path);
		unlink(other);
		mt_pass();
		return 0;
	}
	MT_SYS(fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS_PERM, AT_FDCWD,
			     path));
	/* opened after the mark: the kernel decides at open whether a file
	 * may have permission events at all */
	fd = MT_SYS(open(path, O_RDONLY));
	s = MT_SYS(mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	pid = MT_SYS(fork());
	if (pid == 0)
		child(s, fd, ofd);
	for (int r = 1; r <= ROUNDS; r++) {
		struct fanotify_event_metadata m;
		struct fanotify_response resp;
		struct pollfd pfd = {.fd = fan, .events = POLLIN};

		/* not for ever, should the child fail */
		MT_CHECK(poll(&pfd, 1, 20000) == 1, "round %d: no event", r);
		MT_CHECK(read(fan, &m, sizeof(m)) == sizeof(m), "read event");
		MT_CHECK(m.vers == FANOTIFY_METADATA_VERSION &&
				 (m.mask & FAN_ACCESS_PERM) && m.pid == pid,
			 "round %d: event mask %#llx pid %d", r,
			 (unsigned long long)m.mask, m.pid);
		MT_CHECK(s->child_round == r, "round %d: child at %d", r,
			 s->child_round);
		s->answered = r;
		resp.fd = m.fd;
		resp.response = r == 3 ? FAN_DENY : FAN_ALLOW;
		MT_CHECK(write(fan, &resp, sizeof(resp)) == sizeof(resp),
			 "answer");
		close(m.fd);
		printf("round %d answered (%s)\n", r,
		       r == 3 ? "denied" : "allowed");
	}
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child status %#x", status);
	printf("child read sum %llu\n", (unsigned long long)s->sum);
	unlink(path);
	unlink(other);
	mt_pass();
	return 0;
}
