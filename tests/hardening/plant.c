/* plant: the other user's side of the trace-directory attacks
 * (trace_dir.sh). Run as that user; waits for a path to appear, then acts
 * at once, faster than a shell loop could.
 *
 *   plant [--timeout SEC] --wait PATH ACTION...
 *
 * ACTION is one of, run in order:
 *   --mv FROM TO        rename(FROM, TO)
 *   --mkdir DIR         mkdir(DIR, 0777), then chmod 0777
 *   --ln TARGET LINK    symlink(TARGET, LINK)
 *   --mkdir-latest DIR  mkdir DIR/T (0777) where T is what DIR/latest-trace
 *                       points to
 * Exits 0 when every action succeeded, 1 when one failed (saying why), 2
 * when PATH did not appear in time. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits until path exists: inotify on its directory, and a look after
 * every event (and every 10 ms, in case the directory itself is made
 * late). */
static int wait_for(const char *path, double timeout)
{
	char dir[PATH_MAX], buf[4096];
	struct stat st;
	double end = now() + timeout;
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), wd = -1;

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(dir));
	while (now() < end) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		if (wd < 0 && fd >= 0)
			wd = inotify_add_watch(fd, dir,
					       IN_CREATE | IN_MOVED_TO);
		if (lstat(path, &st) == 0)
			return 0;
		if (poll(&p, 1, 10) > 0)
			while (read(fd, buf, sizeof(buf)) > 0)
				;
	}
	return -1;
}

int main(int argc, char **argv)
{
	double timeout = 10;
	int i = 1, failed = 0;

	if (i + 1 < argc && !strcmp(argv[i], "--timeout")) {
		timeout = atof(argv[i + 1]);
		i += 2;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--wait")) {
		fprintf(stderr, "usage: plant [--timeout SEC] --wait PATH "
				"ACTION...\n");
		return 64;
	}
	if (wait_for(argv[i + 1], timeout)) {
		fprintf(stderr, "plant: %s did not appear\n", argv[i + 1]);
		return 2;
	}
	for (i += 2; i < argc; i++) {
		const char *a = argv[i];
		int r = -1;

		if (!strcmp(a, "--mv") && i + 2 < argc) {
			r = rename(argv[i + 1], argv[i + 2]);
			i += 2;
		} else if (!strcmp(a, "--mkdir") && i + 1 < argc) {
			r = mkdir(argv[i + 1], 0777);
			if (!r)
				r = chmod(argv[i + 1], 0777);
			i += 1;
		} else if (!strcmp(a, "--ln") && i + 2 < argc) {
			r = symlink(argv[i + 1], argv[i + 2]);
			i += 2;
		} else if (!strcmp(a, "--mkdir-latest") && i + 1 < argc) {
			char link[PATH_MAX], target[NAME_MAX + 1],
				made[PATH_MAX * 2];
			ssize_t n;

			snprintf(link, sizeof(link), "%s/latest-trace",
				 argv[i + 1]);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = 0;
				snprintf(made, sizeof(made), "%s/%s",
					 argv[i + 1], target);
				r = mkdir(made, 0777);
				if (!r)
					r = chmod(made, 0777);
			}
			i += 1;
		} else {
			fprintf(stderr, "plant: bad action %s\n", a);
			return 64;
		}
		if (r) {
			fprintf(stderr, "plant: %s failed: %s\n", a,
				strerror(errno));
			failed = 1;
		}
	}
	return failed;
}
