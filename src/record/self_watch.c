/* mrr's own waits, watched from a thread of its own (self_watch.h). */
#define _GNU_SOURCE
#include "record/self_watch.h"

#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How long the main loop may stand in one fanotify wait: a listener that
 * runs answers in microseconds. MRR_SELF_STUCK_MS overrides it. */
#define STUCK_MS_DEFAULT 3000
#define POLL_MS		 250

static atomic_ulong beats;
static atomic_bool fired;
static char fired_why[512]; /* written before fired is set */
static pid_t main_tid;

void rec_self_watch_beat(void)
{
	atomic_fetch_add_explicit(&beats, 1, memory_order_relaxed);
}

bool rec_self_watch_fired(char *why, size_t len)
{
	if (!atomic_load(&fired))
		return false;
	if (why && len)
		snprintf(why, len, "%s", fired_why);
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The first line of /proc/self/task/TID/FILE of the main thread. */
static bool main_line(const char *file, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", main_tid, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* The file the main thread's blocked call opens or reads, into buf. */
static void blocked_file(char *buf, size_t len)
{
	char line[256], fdpath[64];
	unsigned long long nr, a[3];
	ssize_t n;

	snprintf(buf, len, "a file the program uses");
	if (!main_line("syscall", line, sizeof(line)) ||
	    sscanf(line, "%llu %llx %llx %llx", &nr, &a[0], &a[1], &a[2]) != 4)
		return;
	if (nr == SYS_openat || nr == SYS_openat2 || nr == SYS_open) {
		/* the path lies in mrr's own memory, the call still in it */
		const char *p =
			(const char *)(uintptr_t)(nr == SYS_open ? a[0] : a[1]);
		char target[PATH_MAX];

		if (!p)
			return;
		snprintf(buf, len, "%.*s", (int)strnlen(p, PATH_MAX), p);
		/* a program's fd or mapping, opened through /proc: its file */
		if (!strncmp(buf, "/proc/", 6) &&
		    (n = readlink(buf, target, sizeof(target) - 1)) > 0) {
			target[n] = 0;
			snprintf(buf, len, "%s", target);
		}
		return;
	}
	/* a read of an open file (pre-content events) */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%llu", a[0]);
	n = readlink(fdpath, buf, len - 1);
	if (n > 0)
		buf[n] = 0;
	else
		snprintf(buf, len, "a file the program uses");
}

/* Whether process pid holds a fanotify group (an fd of one). */
static bool holds_fanotify(pid_t pid)
{
	char path[64], link[64];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char fd_path[320];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, e->d_name);
		n = readlink(fd_path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			found = strcmp(link, "anon_inode:[fanotify]") == 0;
		}
	}
	closedir(d);
	return found;
}

/* Whether pid is traced by mrr's main thread (a recorded process). */
static bool traced_by_us(pid_t pid)
{
	char path[64], line[128];
	bool ours = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10)) {
			ours = atoi(line + 10) == main_tid;
			break;
		}
	fclose(f);
	return ours;
}

#define MAX_LISTENERS 16

/* The recorded processes that hold a fanotify group, into pids; returns
 * how many (0: the listener lives outside the recording, and can
 * answer). */
static int find_listeners(pid_t *pids)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while (n < MAX_LISTENERS && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid() ||
		    !traced_by_us((pid_t)pid) || !holds_fanotify((pid_t)pid))
			continue;
		pids[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

static void *watch(void *arg)
{
	unsigned long seen = atomic_load(&beats);
	uint64_t since = now_ms(), stuck_ms = STUCK_MS_DEFAULT;
	const char *s = getenv("MRR_SELF_STUCK_MS");
	struct timespec poll = {0, POLL_MS * 1000000L};

	(void)arg;
	if (s && atol(s) > 0)
		stuck_ms = (uint64_t)atol(s);
	for (;;) {
		unsigned long now_beats;
		char wchan[128], file[PATH_MAX];
		pid_t listeners[MAX_LISTENERS];
		int n;

		nanosleep(&poll, NULL);
		now_beats = atomic_load(&beats);
		if (now_beats != seen) {
			seen = now_beats;
			since = now_ms();
			continue;
		}
		if (now_ms() - since < stuck_ms ||
		    !main_line("wchan", wchan, sizeof(wchan)) ||
		    !strstr(wchan, "fanotify"))
			continue;
		blocked_file(file, sizeof(file));
		n = find_listeners(listeners);
		if (!n) {
			since = now_ms(); /* an outside listener: wait on */
			continue;
		}
		snprintf(fired_why, sizeof(fired_why),
			 "mrr's own use of %.300s waited for the program's "
			 "fanotify permission listener (pid %d), which mrr "
			 "holds stopped as it records one task at a time; mrr "
			 "killed the listener, ending the wait",
			 file, listeners[0]);
		/* first the reason: the main loop may see the kills at once */
		atomic_store(&fired, true);
		/* their group is released, and the kernel allows what it left
		 * unanswered, when the last of them is gone */
		for (int i = 0; i < n; i++)
			kill(listeners[i], SIGKILL);
		return NULL;
	}
}

int rec_self_watch_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int err;

	main_tid = (pid_t)syscall(SYS_gettid);
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024 + PATH_MAX * 2);
	/* the thread inherits the mask: no signal of mrr's goes to it */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, &attr, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		mrr_debug("no watchdog thread for mrr's own waits: %s",
			  strerror(err));
	return -err;
}
