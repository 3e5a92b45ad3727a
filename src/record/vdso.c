/* The vDSO, kept but made recordable.
 *
 * The vDSO answers clock_gettime and friends in user space, from the TSC and
 * a page the kernel updates: nothing a ptrace recorder sees. Hiding it
 * (dropping AT_SYSINFO_EHDR) breaks programs that look it up themselves.
 * So mrr keeps it where the kernel put it and turns each function it
 * exports into a real syscall: `mov eax, NR; syscall; ret`, whose stop mrr
 * records like any other. Functions with no plain syscall equivalent answer
 * -ENOSYS, the kernel's own answer where it lacks them, and callers fall
 * back to the syscall. The patched image is captured in the exec event, so
 * the replay lays the same bytes over its vDSO. */
#include "record/vdso.h"

#include "core/proc.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define VDSO_MAX_SIZE (64 * 1024)

struct vdso_call {
	const char *name; /* without the __vdso_ prefix */
	long nr;	  /* syscall it becomes, or -1 for -ENOSYS */
};

/* Every function here takes the syscall's arguments in the syscall's
 * registers (none has more than three). */
static const struct vdso_call vdso_calls[] = {
	{"clock_gettime", SYS_clock_gettime},
	{"gettimeofday", SYS_gettimeofday},
	{"time", SYS_time},
	{"clock_getres", SYS_clock_getres},
	{"getcpu", SYS_getcpu},
	/* its arguments differ from getrandom(2)'s: callers must fall back */
	{"getrandom", -1},
};

static long call_nr(const char *name)
{
	size_t i;

	if (!strncmp(name, "__vdso_", 7))
		name += 7;
	for (i = 0; i < sizeof(vdso_calls) / sizeof(vdso_calls[0]); i++)
		if (!strcmp(name, vdso_calls[i].name))
			return vdso_calls[i].nr;
	return -1;
}

static void make_stub(uint8_t stub[8], long nr)
{
	if (nr >= 0) { /* mov eax, nr; syscall; ret */
		stub[0] = 0xb8;
		memcpy(stub + 1, &(uint32_t){(uint32_t)nr}, 4);
		stub[5] = 0x0f;
		stub[6] = 0x05;
		stub[7] = 0xc3;
	} else { /* mov rax, -ENOSYS; ret */
		static const uint8_t enosys[8] = {0x48, 0xc7, 0xc0, 0xda,
						  0xff, 0xff, 0xff, 0xc3};
		memcpy(stub, enosys, 8);
	}
}

/* Finds the vDSO's dynamic symbols in a local copy of its image and writes
 * a stub over each function, in the copy. Returns the count, or -ENOEXEC
 * if the image is not what it should be. */
static int patch_image(uint8_t *img, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh;
	int patched = 0;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
		return -ENOEXEC;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *str;
		const Elf64_Sym *sym;
		size_t nsym;

		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
			continue;
		str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset ||
		    str->sh_offset > size ||
		    str->sh_size > size - str->sh_offset)
			return -ENOEXEC;
		sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
		nsym = sh[i].sh_size / sizeof(*sym);
		for (size_t k = 0; k < nsym; k++) {
			const char *name;

			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
			    sym[k].st_name >= str->sh_size ||
			    sym[k].st_value > size - 8 || sym[k].st_size < 8)
				continue;
			name = (const char *)img + str->sh_offset +
			       sym[k].st_name;
			if (!memchr(name, 0, str->sh_size - sym[k].st_name))
				continue;
			make_stub(img + sym[k].st_value, call_nr(name));
			patched++;
		}
	}
	return patched ? patched : -ENOEXEC;
}

int rec_patch_vdso(struct rtask *t, struct capture *c)
{
	struct proc_vma *v = NULL;
	uint64_t start = 0, size = 0;
	uint8_t *img;
	long n, i;
	int err;

	n = proc_read_vmas(t->t.tid, false, &v);
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, "[vdso]")) {
			start = v[i].start;
			size = v[i].end - v[i].start;
		}
	free(v);
	if (!start)
		return -ENOENT;
	if (size > VDSO_MAX_SIZE)
		return -E2BIG;
	img = malloc(size);
	if (!img)
		return -ENOMEM;
	err = tracee_read_all(&t->t, start, img, size);
	if (!err)
		err = patch_image(img, size) < 0 ? -ENOEXEC : 0;
	if (!err)
		err = tracee_write_all(&t->t, start, img, size);
	free(img);
	if (!err)
		err = capture_add(c, t, start, size);
	return err;
}
