/* The program the gdb tests debug (built -O0 -g): a loop, a call, a heap
 * block, a global written in user code, a syscall between lines, a fork. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int counter;

static int square(int x)
{
	int y = x * x;
	return y;
}

int main(void)
{
	long *heap = malloc(4 * sizeof(long));
	int local = 7, sum = 0, status;
	pid_t pid;

	heap[0] = 0x1111;
	heap[1] = 0x2222;
	heap[2] = 0x3333;
	heap[3] = 0x4444;
	for (int i = 0; i < 5; i++) {
		sum += square(i);
		counter = i * 10;
	}
	local += sum;
	getppid();
	printf("local=%d sum=%d counter=%d\n", local, sum, counter);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(3);
	waitpid(pid, &status, 0);
	printf("child exit %d\n", WEXITSTATUS(status));
	free(heap);
	return 0;
}
