/* vdso_lookup: finds the vDSO through AT_SYSINFO_EHDR and calls its
 * clock_gettime, gettimeofday and time directly, as language runtimes (Go)
 * do. Under mrr the vDSO must still be there and parse as an ELF image, and
 * its answers must be sane: each clock moves forward, and they agree with
 * the libc calls. The replay must print the same times (issue 10: the vDSO
 * was hidden, and such programs crashed). */
#include "mrr_test.h"

#include <elf.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);

/* The address of the vDSO function named name, or NULL. */
static void *vdso_sym(const unsigned char *base, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);

	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Sym *sym =
			(const Elf64_Sym *)(base + sh[i].sh_offset);
		const char *str =
			(const char *)base + sh[sh[i].sh_link].sh_offset;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC &&
			    !strcmp(str + sym[k].st_name, name))
				return (void *)(base + sym[k].st_value);
	}
	return NULL;
}

static long long ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

int main(void)
{
	const unsigned char *base;
	clock_gettime_fn vgettime;
	gettimeofday_fn vgtod;
	time_fn vtime;
	struct timespec a, b, libc;
	struct timeval tv;
	time_t t;

	mt_init();
	base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	MT_CHECK(base != NULL, "no AT_SYSINFO_EHDR in the auxiliary vector");
	MT_CHECK(!memcmp(base, ELFMAG, SELFMAG),
		 "the vDSO is not an ELF image");
	vgettime = (clock_gettime_fn)vdso_sym(base, "__vdso_clock_gettime");
	vgtod = (gettimeofday_fn)vdso_sym(base, "__vdso_gettimeofday");
	vtime = (time_fn)vdso_sym(base, "__vdso_time");
	MT_CHECK(vgettime && vgtod && vtime, "vDSO functions missing");
	printf("found the vDSO and its time functions\n");

	MT_CHECK(vgettime(CLOCK_MONOTONIC, &a) == 0, "clock_gettime failed");
	MT_CHECK(clock_gettime(CLOCK_MONOTONIC, &libc) == 0, "libc");
	MT_CHECK(vgettime(CLOCK_MONOTONIC, &b) == 0, "clock_gettime failed");
	MT_CHECK(ns(&a) <= ns(&libc) && ns(&libc) <= ns(&b),
		 "monotonic clock went back: %lld %lld %lld", ns(&a), ns(&libc),
		 ns(&b));
	MT_CHECK(vgettime(CLOCK_REALTIME, &a) == 0, "realtime failed");
	MT_CHECK(vgtod(&tv, NULL) == 0, "gettimeofday failed");
	t = vtime(NULL);
	/* time() reads the coarse clock, updated at the tick: it may still
	 * show the second before the one gettimeofday just entered */
	MT_CHECK(a.tv_sec <= tv.tv_sec && tv.tv_sec <= t + 1 &&
			 t - a.tv_sec < 5,
		 "clocks disagree: %lld %lld %lld", (long long)a.tv_sec,
		 (long long)tv.tv_sec, (long long)t);
	printf("vDSO realtime %lld.%09ld, gettimeofday %lld.%06ld, time %lld\n",
	       (long long)a.tv_sec, a.tv_nsec, (long long)tv.tv_sec,
	       (long)tv.tv_usec, (long long)t);
	mt_pass();
	return 0;
}
