/* mrr-test: args=20000 */
/* pread_loop [N [FILE]]: N preads of 64 bytes (default 20000) at offsets
 * spread over a file, with a checksum of everything read. Without FILE it
 * reads a temp file of known bytes and checks every read against them. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#define FILE_SIZE (256 * 1024)
#define RECORD	  64

static unsigned char pattern(size_t off)
{
	return (unsigned char)((off ^ (off >> 7)) * 13);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 20000;
	unsigned char buf[RECORD];
	char path[64];
	uint64_t sum = 0;
	off_t size;
	int fd, own = argc <= 2;

	mt_init();
	MT_CHECK(count > 0, "bad count %s", argv[1]);
	if (own) {
		static unsigned char data[FILE_SIZE];
		for (size_t i = 0; i < FILE_SIZE; i++)
			data[i] = pattern(i);
		/* A random name: the hardening tests kill this program at
		 * any moment, also between the open and the unlink, and a
		 * name made from the pid then collided with a later run's. */
		snprintf(path, sizeof(path), "/tmp/mrr-pread_loop-XXXXXX");
		fd = MT_SYS(mkstemp(path));
		MT_SYS(unlink(path));
		MT_CHECK(MT_SYS(write(fd, data, FILE_SIZE)) == FILE_SIZE,
			 "short write");
		size = FILE_SIZE;
	} else {
		struct stat st;
		fd = MT_SYS(open(argv[2], O_RDONLY));
		MT_SYS(fstat(fd, &st));
		size = st.st_size;
		MT_CHECK(size >= RECORD, "%s is smaller than %d bytes", argv[2],
			 RECORD);
	}

	for (long i = 0; i < count; i++) {
		off_t off = (off_t)((uint64_t)i * 7919 * RECORD %
				    (uint64_t)(size - RECORD + 1));
		ssize_t n = pread(fd, buf, RECORD, off);
		MT_CHECK(n == RECORD, "pread %ld at %lld returned %zd", i,
			 (long long)off, n);
		for (int k = 0; k < RECORD; k++) {
			if (own)
				MT_CHECK(buf[k] == pattern(off + k),
					 "byte %lld is %u",
					 (long long)(off + k), buf[k]);
			sum = sum * 1099511628211ull + buf[k];
		}
	}
	MT_SYS(close(fd));
	printf("%ld preads of %d bytes, checksum %016llx\n", count, RECORD,
	       (unsigned long long)sum);
	mt_pass();
	return 0;
}
