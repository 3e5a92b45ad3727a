/* hostile_shared: a parent and its child share anonymous memory
 * (MAP_SHARED) and race on it: the child stores a counter as fast as it
 * can, the parent samples it after a short sleep and prints what it saw.
 * The interleaving of two processes' plain memory accesses is no syscall
 * result: a replay cannot reproduce it unless mrr records it (or runs the
 * processes one at a time at record and replay alike). Recording such a
 * program must either replay faithfully or stop with an error; a replay
 * that diverges, or runs on with other values, is wrong. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	volatile long *shared;
	long seen;
	int st;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("FAIL: mmap");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("FAIL: fork");
		return 1;
	}
	if (pid == 0) {
		for (long i = 1; i <= 100000000; i++)
			shared[0] = i;
		_exit(0);
	}
	usleep(20000);
	seen = shared[0];
	printf("the parent saw the child's counter at %ld\n", seen);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0 || shared[0] != 100000000) {
		fprintf(stderr, "FAIL: child status %#x, counter %ld\n", st,
			shared[0]);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
