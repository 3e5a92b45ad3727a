/* open_lookup_once: each open of the program is one open for the programs
 * that watch files. The syscall buffer makes an open untraced only after
 * it looked at the path (newfstatat), and opens with O_NONBLOCK, putting
 * the program's flags back after; neither the look nor the flags change
 * is an inotify or fanotify event, and a FIFO or a directory takes the
 * traced path, opened once. An inotify watch on a directory (and, as
 * root, a fanotify mark on it) counts the events of: an open of a new
 * file with O_CREAT, opens of a regular file for reading and for writing,
 * of a FIFO (O_RDWR, which never waits) and of the directory itself. Each
 * must show exactly one open and one close, and no access or attribute
 * change (fanotify reports nothing of a FIFO). */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>

struct counts {
	int open, access, close, attrib, other;
};

/* Reads the inotify events queued on in. */
static void inotify_counts(int in, struct counts *c)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	memset(c, 0, sizeof(*c));
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const void *)p;

			if (e->mask & IN_OPEN)
				c->open++;
			if (e->mask & IN_ACCESS)
				c->access++;
			if (e->mask & IN_CLOSE)
				c->close++;
			if (e->mask & IN_ATTRIB)
				c->attrib++;
			if (e->mask & ~(IN_OPEN | IN_ACCESS | IN_CLOSE |
					IN_ATTRIB | IN_ISDIR))
				c->other++;
			p += sizeof(*e) + e->len;
		}
	}
	MT_CHECK(n < 0 && errno == EAGAIN, "read of inotify: %zd (%s)", n,
		 strerror(errno));
}

/* Reads the fanotify events queued on fan. */
static void fanotify_counts(int fan, struct counts *c)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	memset(c, 0, sizeof(*c));
	while ((n = read(fan, buf, sizeof(buf))) > 0) {
		struct fanotify_event_metadata *m = (void *)buf;

		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			if (m->mask & FAN_OPEN)
				c->open++;
			if (m->mask & FAN_ACCESS)
				c->access++;
			if (m->mask & FAN_CLOSE)
				c->close++;
			if (m->fd >= 0)
				close(m->fd);
		}
	}
	MT_CHECK(n < 0 && errno == EAGAIN, "read of fanotify: %zd (%s)", n,
		 strerror(errno));
}

static void expect_once(const char *what, const char *how,
			const struct counts *c)
{
	MT_CHECK(c->open == 1 && c->close == 1 && !c->access && !c->attrib &&
			 !c->other,
		 "%s seen by %s: %d opens, %d closes, %d accesses, %d "
		 "attribute changes, %d other events",
		 what, how, c->open, c->close, c->access, c->attrib, c->other);
}

int main(void)
{
	char dir[] = "/tmp/mrr-open-once.XXXXXX", file[64], made[64], fifo[64];
	struct {
		const char *what, *path;
		int flags;
		int fan; /* fanotify reports it (not a FIFO's) */
	} opens[5];
	struct counts c;
	int in, fan, fd;

	mt_init();
	MT_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(file, sizeof(file), "%s/file", dir);
	snprintf(made, sizeof(made), "%s/made", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	fd = MT_SYS(open(file, O_WRONLY | O_CREAT | O_EXCL, 0600));
	MT_CHECK(write(fd, "data\n", 5) == 5, "write: %s", strerror(errno));
	MT_SYS(close(fd));
	MT_SYS(mkfifo(fifo, 0600));
	opens[0].what = "an open with O_CREAT of a new file";
	opens[0].path = made;
	opens[0].fan = 1;
	opens[0].flags = O_WRONLY | O_CREAT | O_EXCL;
	opens[1].what = "an open of a regular file for reading";
	opens[1].path = file;
	opens[1].fan = 1;
	opens[1].flags = O_RDONLY;
	opens[2].what = "an open of a regular file for writing";
	opens[2].path = file;
	opens[2].fan = 1;
	opens[2].flags = O_WRONLY | O_APPEND;
	opens[3].what = "an open of a FIFO";
	opens[3].path = fifo;
	opens[3].fan = 0;
	opens[3].flags = O_RDWR;
	opens[4].what = "an open of a directory";
	opens[4].path = dir;
	opens[4].fan = 1;
	opens[4].flags = O_RDONLY | O_DIRECTORY;

	in = MT_SYS(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
	MT_SYS(inotify_add_watch(in, dir, IN_ALL_EVENTS & ~IN_CREATE));
	/* as root: a fanotify mark too (notification class, no answers) */
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC,
			    O_RDONLY);
	if (fan >= 0 && fanotify_mark(fan, FAN_MARK_ADD,
				      FAN_OPEN | FAN_ACCESS | FAN_CLOSE |
					      FAN_EVENT_ON_CHILD | FAN_ONDIR,
				      AT_FDCWD, dir) < 0) {
		close(fan);
		fan = -1;
	}
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		fd = open(opens[i].path, opens[i].flags | O_CLOEXEC, 0600);
		MT_CHECK(fd >= 0, "%s: %s", opens[i].what, strerror(errno));
		MT_SYS(close(fd));
		inotify_counts(in, &c);
		expect_once(opens[i].what, "inotify", &c);
		if (fan >= 0) {
			fanotify_counts(fan, &c);
			if (opens[i].fan)
				expect_once(opens[i].what, "fanotify", &c);
		}
		printf("%s: one open, one close\n", opens[i].what);
	}
	printf("fanotify: %s\n", fan >= 0 ? "watched" : "not available");
	MT_SYS(unlink(made));
	MT_SYS(unlink(file));
	MT_SYS(unlink(fifo));
	MT_SYS(rmdir(dir));
	mt_pass();
	return 0;
}
