/* hostile_personality: turns address-space randomisation back on for
 * itself (personality() without ADDR_NO_RANDOMIZE, as a program that wants
 * ASLR or that resets its personality would) and execs itself. The new
 * image is laid out at random unless the recorder keeps randomisation off;
 * a replay cannot then place it where the recording had it. The second
 * stage checks that its personality is what it asked for and prints PASS.
 */
#include "mrr_test.h"

#include <sys/personality.h>

int main(int argc, char **argv)
{
	int persona;

	mt_init();
	persona = personality(0xffffffff);
	MT_CHECK(persona != -1, "personality query: %s", strerror(errno));
	if (argc == 1) {
		char *const args[] = {argv[0], "stage2", NULL};

		MT_SYS(personality(persona & ~ADDR_NO_RANDOMIZE));
		printf("randomisation on; exec\n");
		fflush(stdout);
		execv("/proc/self/exe", args);
		MT_CHECK(0, "exec: %s", strerror(errno));
	}
	printf("stage 2 runs\n");
	mt_pass();
	return 0;
}
