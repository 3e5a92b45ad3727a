/* Facts about a task read from /proc and from ELF files. */
#ifndef MRR_CORE_PROC_H
#define MRR_CORE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_vma {
	uint64_t start, end;
	uint64_t offset;
	unsigned prot;	/* PROT_* */
	bool shared;	/* 's' in maps */
	bool anon;	/* no backing file (incl. [heap], [stack]) */
	bool locked;	/* VmFlags has "lo" (only with smaps) */
	char name[256]; /* path or [heap]/[stack]/... or "" */
};

/* Reads /proc/pid/maps (or smaps when with_flags, for the locked bit).
 * Returns the count and a malloc'd array in *out, or -errno. */
long proc_read_vmas(pid_t pid, bool with_flags, struct proc_vma **out);

/* The state letter of /proc/TID/stat ('R', 'S', 'D', 't', ...), or 0 when
 * the task is gone or the file cannot be read. */
char proc_task_state(pid_t tid);

/* The signal masks of /proc/TID/status, bit sig-1 for each signal. */
struct proc_sigmasks {
	uint64_t pending; /* SigPnd | ShdPnd: the task's and its process's */
	uint64_t blocked; /* SigBlk */
	uint64_t ignored; /* SigIgn */
	uint64_t caught;  /* SigCgt */
};

/* Reads them into *m. Returns 0, or -1 when the task is gone (or the file
 * cannot be read), with *m all zero. Keeps the files of the last few tasks
 * open (O_CLOEXEC) for the next calls: call it from one thread only. */
int proc_sigmasks(pid_t tid, struct proc_sigmasks *m);

/* What /proc/TID/syscall says of a blocked task. */
struct proc_syscall {
	long nr;	  /* the call it waits in, or -1: blocked outside one */
	uint64_t args[6]; /* its arguments (0 when nr is -1) */
	uint64_t sp, pc;  /* its stack and instruction pointers */
};

/* Reads /proc/TID/syscall into *s. Returns 1 when the task is blocked (in
 * a call or not), 0 when it is running (the file says "running": also a
 * task on its way into or out of a call), -1 when the file cannot be read
 * or parsed. */
int proc_task_syscall(pid_t tid, struct proc_syscall *s);

/* End address of the [stack] mapping of pid, or 0. */
uint64_t proc_stack_end(pid_t pid);

/* Copies the PT_INTERP path of the ELF file at path into buf ("" if none).
 * Returns 0 or -errno/-ENOEXEC. */
int elf_interp(const char *path, char *buf, size_t buflen);

/* Resolves prog like a shell: a name with a '/' is taken as is, otherwise
 * looked up in PATH. Returns 0 with the path in buf, -ENOENT, -EACCES
 * (found but not executable), -EISDIR. */
int resolve_program(const char *prog, char *buf, size_t buflen);

/* Removes the entries of a directory that holds only files, then the
 * directory itself. Best effort: errors are ignored. */
void remove_flat_dir(const char *dir);

#endif
