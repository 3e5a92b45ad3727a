/* hostile_fanotify: a program that is its own fanotify permission listener.
 * It marks a file of its own with FAN_OPEN_PERM, forks a child that
 * answers FAN_ALLOW to every event, then opens and maps the file and reads
 * it through the mapping. Under mrr, mrr's own open of the mapped file (to
 * store it in the trace) raises a permission event that only the child can
 * answer, while mrr holds the child stopped: the recording hung for ever
 * (LTP fanotify24 did so). mrr must stop the recording with exit 69 and a
 * sentence (refused.sh), or record it faithfully. Without the privilege for
 * fanotify permission events it prints SKIP and exits 77. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void listen_and_allow(int group)
{
	char buf[4096];

	for (;;) {
		ssize_t n = read(group, buf, sizeof(buf));
		struct fanotify_event_metadata *m = (void *)buf;

		if (n <= 0)
			_exit(n < 0 ? 2 : 0);
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = {m->fd, FAN_ALLOW};

			if (m->mask & FAN_OPEN_PERM &&
			    write(group, &r, sizeof(r)) != sizeof(r))
				_exit(3);
			if (m->fd >= 0)
				close(m->fd);
		}
	}
}

int main(void)
{
	char path[] = "./hostile_fanotify.XXXXXX";
	const char text[] = "mapped under a permission mark\n";
	int fd, group, status;
	pid_t child;
	char *p;

	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, sizeof(text)) != sizeof(text)) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	group = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (group < 0 && (errno == EPERM || errno == ENOSYS)) {
		unlink(path);
		printf("SKIP: fanotify_init: %s\n", strerror(errno));
		return 77;
	}
	if (group < 0 ||
	    fanotify_mark(group, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, path)) {
		perror("fanotify");
		unlink(path);
		return 1;
	}
	child = fork();
	if (child == 0)
		listen_and_allow(group);
	fd = open(path, O_RDONLY);
	p = fd < 0 ? MAP_FAILED
		   : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("open and map");
		kill(child, SIGKILL);
		unlink(path);
		return 1;
	}
	printf("read through the mapping: %s", p);
	close(fd);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	unlink(path);
	printf("PASS\n");
	return 0;
}
