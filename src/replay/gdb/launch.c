/* Where gdb connects from: a port on 127.0.0.1 that `-s PORT` names, or
 * one the kernel picks for the gdb that `-g` starts. */
#define _GNU_SOURCE
#include "replay/gdb/server.h"

#include "core/exitcodes.h"
#include "core/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int gdb_listen(const struct gdb_opts *g, int *port_out);
int gdb_accept(int lfd, const struct gdb_opts *g, int port, pid_t *gdb_pid);

/* Returns the listening socket, or -MRR_EXIT_* after a message. */
int gdb_listen(const struct gdb_opts *g, int *port_out)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0) {
		mrr_err("cannot make a socket for gdb: %s", strerror(errno));
		return -MRR_EXIT_OSERR;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)g->port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		if (errno == EADDRINUSE)
			mrr_err("port %d on 127.0.0.1 is in use; pick another "
				"with -s PORT",
				g->port);
		else
			mrr_err("cannot listen on 127.0.0.1:%d: %s", g->port,
				strerror(errno));
		close(fd);
		return -MRR_EXIT_OSERR;
	}
	*port_out = ntohs(a.sin_port);
	return fd;
}

/* Starts gdb on the replay: the recorded executable comes from the
 * target (qXfer:exec-file), mrr's settings come first. */
static pid_t spawn_gdb(int port)
{
	char target[64];
	pid_t pid;

	snprintf(target, sizeof(target), "target extended-remote 127.0.0.1:%d",
		 port);
	pid = fork();
	if (pid == 0) {
		execlp("gdb", "gdb", "-q", "-iex", "set sysroot /", "-iex",
		       "set auto-load safe-path /", "-iex", "set non-stop off",
		       "-ex", target, (char *)NULL);
		fprintf(stderr, "mrr: cannot run gdb: %s\n", strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Waits for gdb's connection. Returns the connected socket or -1. */
int gdb_accept(int lfd, const struct gdb_opts *g, int port, pid_t *gdb_pid)
{
	int fd, one = 1;

	if (g->run_gdb) {
		/* ^C at the terminal is for gdb, which interrupts through
		 * the protocol */
		signal(SIGINT, SIG_IGN);
		*gdb_pid = spawn_gdb(port);
		if (*gdb_pid < 0) {
			mrr_err("cannot start gdb: %s", strerror(errno));
			return -1;
		}
	} else {
		printf("target extended-remote :%d\n", port);
		fflush(stdout);
	}
	for (;;) {
		struct pollfd p = {.fd = lfd, .events = POLLIN};
		int st;

		/* a gdb that could not start never connects */
		if (*gdb_pid > 0 &&
		    waitpid(*gdb_pid, &st, WNOHANG) == *gdb_pid) {
			*gdb_pid = 0;
			mrr_err("gdb ended before it connected to the replay");
			return -1;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0 || errno != EINTR)
			break;
	}
	if (fd < 0) {
		mrr_err("cannot accept gdb's connection: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}
