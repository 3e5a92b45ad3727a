/* mrr-test: no-pass-line=1 */
/* closefds: closes every file descriptor, 0 to 2 included, with close_range
 * (a loop over /proc/self/fd on kernels without it), then works with fresh
 * ones: a temp file must come back as fd 0, a pipe as 1 and 2, dup2 and a
 * read-back must work. With stdout gone there can be no PASS line: the exit
 * status says what failed (0: all passed; 10 and up: the failing step). */
#include "mrr_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>

static void close_all(void)
{
	DIR *d;
	struct dirent *e;
	int fds[1024], n = 0;

	if (syscall(SYS_close_range, 0u, ~0u, 0u) == 0)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		_exit(10);
	while ((e = readdir(d)) && n < 1024)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			fds[n++] = atoi(e->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

int main(void)
{
	char path[64], buf[32];
	int fd, p[2];

	printf("closing every fd, 0 to 2 included; the exit status tells the "
	       "rest\n");
	fflush(stdout);
	snprintf(path, sizeof(path), "/tmp/mrr-closefds-%d", (int)getpid());
	close_all();

	if (fcntl(0, F_GETFD) != -1 || errno != EBADF)
		_exit(11);
	if (write(1, "x", 1) != -1 || errno != EBADF)
		_exit(12);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd != 0)
		_exit(13);
	unlink(path);
	if (write(fd, "closefds works", 14) != 14)
		_exit(14);
	if (pipe(p) || p[0] != 1 || p[1] != 2)
		_exit(15);
	if (lseek(fd, 0, SEEK_SET) != 0 || read(fd, buf, 14) != 14 ||
	    memcmp(buf, "closefds works", 14))
		_exit(16);
	if (write(p[1], buf, 14) != 14 || read(p[0], buf + 14, 14) != 14 ||
	    memcmp(buf, buf + 14, 14))
		_exit(17);
	if (dup2(fd, 100) != 100 || lseek(100, 3, SEEK_SET) != 3 ||
	    read(100, buf, 5) != 5 || memcmp(buf, "sefds", 5))
		_exit(18);
	if (close(100) || close(p[0]) || close(p[1]) || close(fd))
		_exit(19);
	if (close(fd) != -1 || errno != EBADF)
		_exit(20);
	_exit(0);
}
