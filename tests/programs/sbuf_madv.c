/* sbuf_madv: a MADV_DONTNEED over an unlocked range (which the syscall
 * buffer may run untraced after its MADV_COLD probe), then the seed of rr
 * issue 3667 (a range with a locked page, which must take the traced path).
 * Both must reproduce page for page. */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/syscall.h>

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p, *q;
	int r;

	mt_init();
	p = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	memset(p, 7, 4 * pg);
	MT_SYS(madvise(p, 4 * pg, MADV_DONTNEED));
	for (long i = 0; i < 4 * pg; i += pg)
		MT_CHECK(p[i] == 0, "page %ld not dropped", i / pg);
	printf("unlocked range: all 4 pages read zero\n");

	q = MT_SYS(mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	q[0] = 42;
	q[2 * pg] = 42;
	/* the raw syscall: ASan-style wrappers must not hide the lock */
	if (syscall(SYS_mlock, q + pg, pg) != 0) {
		printf("mlock failed (%s): locked case skipped\n",
		       strerror(errno));
		mt_pass();
		return 0;
	}
	r = madvise(q, 3 * pg, MADV_DONTNEED);
	MT_CHECK(r == -1 && errno == EINVAL, "madvise returned %d errno %d", r,
		 errno);
	MT_CHECK(q[0] == 0 && q[2 * pg] == 42, "pages %d %d", q[0], q[2 * pg]);
	printf("locked range: EINVAL, first page 0, third 42\n");
	mt_pass();
	return 0;
}
