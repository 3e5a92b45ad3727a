/* The replay's temporary directory and its removal on every way out. The
 * signal handler removes it itself, with async-signal-safe calls only (open,
 * getdents64, unlinkat, rmdir), rather than setting a flag for the main loop:
 * the main loop may sit in a wait for a tracee that never stops. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "replay/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int cleanup_signals[] = {
	SIGINT,	 SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,   SIGALRM,
	SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
};

/* Written only with the cleanup signals blocked, read by the handler. */
static char tmpdir_path[PATH_MAX];
static volatile sig_atomic_t have_tmpdir;
static pid_t owner_pid;

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Unlinks every entry of the directory open at fd (links themselves, never
 * what they point to; subdirectories are left, the rmdir then fails). Safe
 * in a signal handler. */
static void empty_dir_fd(int fd)
{
	char buf[4096] __attribute__((aligned(8)));
	int removed;
	long n;

	/* Removing entries while reading may skip some: read again from the
	 * start until a whole pass removes nothing. */
	do {
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) >
		       0) {
			for (long off = 0; off < n;) {
				struct linux_dirent64 *d =
					(struct linux_dirent64 *)(buf + off);

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") ||
				    !strcmp(d->d_name, ".."))
					continue;
				if (unlinkat(fd, d->d_name, 0) == 0)
					removed = 1;
			}
		}
	} while (removed);
}

/* Removes path, a flat directory. Safe in a signal handler. */
static void remove_tmpdir_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		empty_dir_fd(fd);
		close(fd);
	}
	rmdir(path);
}

void replay_tmpdir_remove(void)
{
	sigset_t all, old;

	if (!have_tmpdir || getpid() != owner_pid)
		return;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	remove_tmpdir_path(tmpdir_path);
	have_tmpdir = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void on_signal(int sig)
{
	int saved = errno;

	/* A child between fork and exec still has this handler. */
	if (getpid() == owner_pid && have_tmpdir) {
		remove_tmpdir_path(tmpdir_path);
		have_tmpdir = 0;
	}
	signal(sig, SIG_DFL);
	errno = saved;
	/* Pending while the handler runs; it ends mrr once the handler
	 * returns, as it would have without the handler. */
	raise(sig);
}

static void at_exit_remove(void)
{
	replay_tmpdir_remove();
}

void replay_cleanup_install(void)
{
	struct sigaction sa;
	static int installed;

	owner_pid = getpid();
	if (installed)
		return;
	installed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(int); i++) {
		struct sigaction old;

		/* A signal the user's shell ignores (nohup) stays ignored. */
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(cleanup_signals[i], &sa, NULL);
	}
	atexit(at_exit_remove);
}

int replay_tmpdir_is_stale(int dir_fd, const char *name, uid_t uid)
{
	const char *p = name + strlen(REPLAY_TMPDIR_PREFIX);
	struct stat st;
	char *end;
	long pid;

	if (strncmp(name, REPLAY_TMPDIR_PREFIX, strlen(REPLAY_TMPDIR_PREFIX)))
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || end == p || *end != '-' || pid <= 0 || pid > INT_MAX ||
	    strlen(end + 1) != 6)
		return 0;
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(st.st_mode) || st.st_uid != uid)
		return 0;
	/* EPERM: alive, someone else's. A reused pid keeps the directory
	 * until that process is gone too. */
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return 1;
}

/* Removes the stale replay directories of uid in the directory open at
 * dir_fd. */
static void sweep_stale(int dir_fd, uid_t uid)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, sub;

	fd = dup(dir_fd);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!replay_tmpdir_is_stale(dir_fd, de->d_name, uid))
			continue;
		sub = openat(dir_fd, de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		/* still ours once opened (not swapped for someone else's) */
		if (fstat(sub, &st) == 0 && st.st_uid == uid) {
			empty_dir_fd(sub);
			unlinkat(dir_fd, de->d_name, AT_REMOVEDIR);
		}
		close(sub);
	}
	closedir(d);
}

int replay_tmpdir_create(char *buf, size_t buflen)
{
	const char *tmp = getenv("TMPDIR");
	sigset_t sigs, old;
	int fd, n, err = 0;

	if (!tmp || !tmp[0])
		tmp = "/tmp";
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		sweep_stale(fd, geteuid());
		close(fd);
	}
	n = snprintf(buf, buflen, "%s/" REPLAY_TMPDIR_PREFIX "%d-XXXXXX", tmp,
		     (int)getpid());
	if (n < 0 || (size_t)n >= buflen || (size_t)n >= sizeof(tmpdir_path))
		return -ENAMETOOLONG;
	sigemptyset(&sigs);
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(int); i++)
		sigaddset(&sigs, cleanup_signals[i]);
	/* No signal between making the directory and recording its name. */
	sigprocmask(SIG_BLOCK, &sigs, &old);
	if (mkdtemp(buf)) {
		memcpy(tmpdir_path, buf, (size_t)n + 1);
		owner_pid = getpid();
		have_tmpdir = 1;
	} else {
		err = -errno;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}
