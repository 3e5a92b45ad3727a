/* CLONE_INTO_CGROUP and set_tid out of a replayed clone3 (clone_args.h). */
#include "replay/clone_args.h"

#include <linux/sched.h>
#include <string.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* struct clone_args's layout (linux/sched.h, CLONE_ARGS_SIZE_VER0..2) */
enum {
	CA_FLAGS = 0,
	CA_SET_TID = 64,
	CA_SIZE_VER1 = 80, /* set_tid, set_tid_size */
	CA_SIZE_VER2 = 88, /* cgroup */
};

int clone_args_strip(struct tracee *t, uint64_t addr, uint64_t size,
		     struct clone_args_saved *s)
{
	uint64_t v;
	int err;

	memset(s, 0, sizeof(*s));
	s->addr = addr;
	if (size >= CA_SIZE_VER2) {
		err = tracee_read_all(t, addr + CA_FLAGS, &v, sizeof(v));
		if (err < 0)
			return err;
		if (v & CLONE_INTO_CGROUP) {
			s->flags = v;
			v &= ~(uint64_t)CLONE_INTO_CGROUP;
			err = tracee_write_all(t, addr + CA_FLAGS, &v,
					       sizeof(v));
			if (err < 0)
				return err;
			s->flags_changed = true;
		}
	}
	if (size >= CA_SIZE_VER1) {
		uint64_t none[2] = {0, 0};

		err = tracee_read_all(t, addr + CA_SET_TID, s->set_tid,
				      sizeof(s->set_tid));
		if (err < 0)
			return err;
		if (s->set_tid[0] || s->set_tid[1]) {
			err = tracee_write_all(t, addr + CA_SET_TID, none,
					       sizeof(none));
			if (err < 0)
				return err;
			s->set_tid_changed = true;
		}
	}
	return 0;
}

int clone_args_restore(struct tracee *t, const struct clone_args_saved *s)
{
	uint64_t v;
	int err;

	if (s->set_tid_changed) {
		err = tracee_write_all(t, s->addr + CA_SET_TID, s->set_tid,
				       sizeof(s->set_tid));
		if (err < 0)
			return err;
	}
	if (!s->flags_changed)
		return 0;
	/* the flags word may hold CLONE_UNTRACED's change as well: put back
	 * only the cgroup bit */
	err = tracee_read_all(t, s->addr + CA_FLAGS, &v, sizeof(v));
	if (err < 0)
		return err;
	v |= s->flags & CLONE_INTO_CGROUP;
	return tracee_write_all(t, s->addr + CA_FLAGS, &v, sizeof(v));
}
