/* Debug registers through PTRACE_POKEUSER. The kernel turns each write of
 * DR7 into perf breakpoint events of its own and validates them: an
 * address must be written before the slot is enabled, and an enabled slot's
 * length and kind must match its alignment. */
#include "core/hwbp.h"
#include "core/owntrap.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#define DR_OFFSET(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))

static int peek_dr(pid_t tid, int n, uint64_t *out)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFFSET(n), NULL);
	if (v == -1 && errno)
		return -errno;
	*out = (uint64_t)v;
	return 0;
}

static int poke_dr(pid_t tid, int n, uint64_t v)
{
	if (ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(n), (void *)v) < 0)
		return -errno;
	return 0;
}

/* An execute breakpoint of dr7's slot that goes: see owntrap.h. */
static void exec_gone(pid_t tid, uint64_t dr7, int slot)
{
	uint64_t addr;

	if ((dr7 >> (slot * 2) & 3) && !(dr7 >> (16 + slot * 4) & 3) &&
	    peek_dr(tid, slot, &addr) == 0)
		owntrap_disarmed(tid, addr);
}

/* DR7's two-bit LEN field for a length, or -1. */
static int len_bits(int len)
{
	switch (len) {
	case 1:
		return 0;
	case 2:
		return 1;
	case 4:
		return 3;
	case 8:
		return 2;
	}
	return -1;
}

int hwbp_set(pid_t tid, int slot, uint64_t addr, enum hwbp_kind kind, int len)
{
	uint64_t dr7;
	int lb = len_bits(len), ret;

	if (slot < 0 || slot >= HWBP_SLOTS || lb < 0)
		return -EINVAL;
	if (kind != HWBP_EXEC && kind != HWBP_WRITE && kind != HWBP_RW)
		return -EINVAL;
	if ((kind == HWBP_EXEC && len != 1) || (addr & (uint64_t)(len - 1)))
		return -EINVAL;
	ret = peek_dr(tid, 7, &dr7);
	if (ret)
		return ret;
	/* Disable the slot first: the kernel refuses a new address whose
	 * length or alignment does not fit the slot's current enabled kind. */
	if (dr7 & (3ull << (slot * 2))) {
		exec_gone(tid, dr7, slot);
		dr7 &= ~(3ull << (slot * 2));
		ret = poke_dr(tid, 7, dr7);
		if (ret)
			return ret;
	}
	ret = poke_dr(tid, slot, addr);
	if (ret)
		return ret;
	dr7 &= ~(0xfull << (16 + slot * 4));
	dr7 |= ((uint64_t)kind | ((uint64_t)lb << 2)) << (16 + slot * 4);
	dr7 |= 1ull << (slot * 2); /* local enable */
	ret = poke_dr(tid, 7, dr7);
	if (!ret && kind == HWBP_EXEC)
		owntrap_armed(tid, addr);
	return ret;
}

int hwbp_clear(pid_t tid, int slot)
{
	uint64_t dr7;
	int ret;

	if (slot < 0 || slot >= HWBP_SLOTS)
		return -EINVAL;
	ret = peek_dr(tid, 7, &dr7);
	if (ret)
		return ret;
	if (!(dr7 & (3ull << (slot * 2))))
		return 0;
	exec_gone(tid, dr7, slot);
	dr7 &= ~(3ull << (slot * 2));
	return poke_dr(tid, 7, dr7);
}

int hwbp_clear_all(pid_t tid)
{
	uint64_t dr7;
	int ret = peek_dr(tid, 7, &dr7);

	if (ret || !(dr7 & 0xff))
		return ret;
	for (int i = 0; i < HWBP_SLOTS; i++)
		exec_gone(tid, dr7, i);
	return poke_dr(tid, 7, dr7 & ~0xffull);
}

int hwbp_read_dr6(pid_t tid, uint64_t *dr6)
{
	return peek_dr(tid, 6, dr6);
}

int hwbp_clear_dr6(pid_t tid)
{
	return poke_dr(tid, 6, 0);
}

int hwbp_fired_slot(uint64_t dr6)
{
	for (int i = 0; i < HWBP_SLOTS; i++)
		if (dr6 & (1ull << i))
			return i;
	return -1;
}
