/* Register numbering and the target description for gdb. */
#include "replay/gdb/regs.h"

#include <stddef.h>
#include <string.h>

/* clang-format off */
const char gdb_target_xml[] =
"<?xml version=\"1.0\"?>\n"
"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
"<target version=\"1.0\">\n"
"<architecture>i386:x86-64</architecture>\n"
"<osabi>GNU/Linux</osabi>\n"
"<feature name=\"org.gnu.gdb.i386.core\">\n"
"<flags id=\"i386_eflags\" size=\"4\">\n"
" <field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>\n"
" <field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>\n"
" <field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>\n"
" <field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>\n"
" <field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>\n"
"</flags>\n"
"<reg name=\"rax\" bitsize=\"64\" type=\"int64\" regnum=\"0\"/>\n"
"<reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"rcx\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"rdx\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"rsi\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"rdi\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
"<reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
"<reg name=\"r8\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r9\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r10\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r11\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r12\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r13\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r14\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"r15\" bitsize=\"64\" type=\"int64\"/>\n"
"<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>\n"
"<reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\"/>\n"
"<reg name=\"cs\" bitsize=\"32\" type=\"int32\"/>\n"
"<reg name=\"ss\" bitsize=\"32\" type=\"int32\"/>\n"
"<reg name=\"ds\" bitsize=\"32\" type=\"int32\"/>\n"
"<reg name=\"es\" bitsize=\"32\" type=\"int32\"/>\n"
"<reg name=\"fs\" bitsize=\"32\" type=\"int32\"/>\n"
"<reg name=\"gs\" bitsize=\"32\" type=\"int32\"/>\n"
"<reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\"/>\n"
"<reg name=\"fctrl\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"fstat\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"ftag\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"fiseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"fioff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"foseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"fooff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"<reg name=\"fop\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
"</feature>\n"
"<feature name=\"org.gnu.gdb.i386.sse\">\n"
"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
"<union id=\"vec128\"><field name=\"v4_float\" type=\"v4f\"/>"
"<field name=\"v2_double\" type=\"v2d\"/><field name=\"v16_int8\" type=\"v16i8\"/>"
"<field name=\"v8_int16\" type=\"v8i16\"/><field name=\"v4_int32\" type=\"v4i32\"/>"
"<field name=\"v2_int64\" type=\"v2i64\"/><field name=\"uint128\" type=\"uint128\"/></union>\n"
"<reg name=\"xmm0\" bitsize=\"128\" type=\"vec128\" regnum=\"40\"/>\n"
"<reg name=\"xmm1\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm2\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm3\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm4\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm5\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm6\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm7\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm8\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm9\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm10\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm11\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm12\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm13\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm14\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"xmm15\" bitsize=\"128\" type=\"vec128\"/>\n"
"<reg name=\"mxcsr\" bitsize=\"32\" type=\"int\" group=\"vector\"/>\n"
"</feature>\n"
"<feature name=\"org.gnu.gdb.i386.linux\">\n"
"<reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>\n"
"</feature>\n"
"<feature name=\"org.gnu.gdb.i386.segments\">\n"
"<reg name=\"fs_base\" bitsize=\"64\" type=\"int\" regnum=\"58\"/>\n"
"<reg name=\"gs_base\" bitsize=\"64\" type=\"int\"/>\n"
"</feature>\n"
"</target>\n";
/* clang-format on */

#define G(f) offsetof(struct user_regs_struct, f)

/* gdb's numbers 0-16 and the segment registers, in user_regs_struct */
static const size_t gpr_off[] = {
	G(rax), G(rbx),	   G(rcx), G(rdx), G(rsi), G(rdi), G(rbp), G(rsp),
	G(r8),	G(r9),	   G(r10), G(r11), G(r12), G(r13), G(r14), G(r15),
	G(rip), G(eflags), G(cs),  G(ss),  G(ds),  G(es),  G(fs),  G(gs),
};

/* the full x87 tag word from the abridged one FXSAVE keeps */
static uint32_t full_tag(uint16_t abridged)
{
	uint32_t tag = 0;

	for (int i = 0; i < 8; i++)
		tag |= (abridged & (1u << i) ? 0u : 3u) << (2 * i);
	return tag;
}

size_t gdb_reg_get(const struct gdb_regs *r, int regno, uint8_t *out)
{
	const struct user_fpregs_struct *f = &r->f;
	uint32_t v32;

	if (regno < 0 || regno >= GDB_NREGS)
		return 0;
	if (regno <= 16) {
		memcpy(out, (const uint8_t *)&r->g + gpr_off[regno], 8);
		return 8;
	}
	if (regno <= 23) {
		v32 = (uint32_t) *
		      (const unsigned long long *)((const uint8_t *)&r->g +
						   gpr_off[regno]);
		memcpy(out, &v32, 4);
		return 4;
	}
	if (regno <= 31) {
		memcpy(out, (const uint8_t *)f->st_space + 16 * (regno - 24),
		       10);
		return 10;
	}
	switch (regno) {
	case 32:
		v32 = f->cwd;
		break;
	case 33:
		v32 = f->swd;
		break;
	case 34:
		v32 = full_tag(f->ftw);
		break;
	case 35:
		v32 = (uint32_t)(f->rip >> 32);
		break;
	case 36:
		v32 = (uint32_t)f->rip;
		break;
	case 37:
		v32 = (uint32_t)(f->rdp >> 32);
		break;
	case 38:
		v32 = (uint32_t)f->rdp;
		break;
	case 39:
		v32 = f->fop;
		break;
	case 56:
		v32 = f->mxcsr;
		break;
	case 57:
		memcpy(out, &r->g.orig_rax, 8);
		return 8;
	case 58:
		memcpy(out, &r->g.fs_base, 8);
		return 8;
	case 59:
		memcpy(out, &r->g.gs_base, 8);
		return 8;
	default: /* xmm0-15 */
		memcpy(out, (const uint8_t *)f->xmm_space + 16 * (regno - 40),
		       16);
		return 16;
	}
	memcpy(out, &v32, 4);
	return 4;
}

int gdb_reg_set(struct gdb_regs *r, int regno, const uint8_t *in, size_t size)
{
	uint8_t cur[16];
	size_t want = gdb_reg_get(r, regno, cur);
	uint32_t v32;

	if (!want || size != want)
		return -1;
	if (regno <= 16) {
		memcpy((uint8_t *)&r->g + gpr_off[regno], in, 8);
		return 0;
	}
	if (regno <= 23) {
		memcpy(&v32, in, 4);
		*(unsigned long long *)((uint8_t *)&r->g + gpr_off[regno]) =
			v32;
		return 0;
	}
	if (regno <= 31) {
		memcpy((uint8_t *)r->f.st_space + 16 * (regno - 24), in, 10);
		return 0;
	}
	if (regno >= 40 && regno <= 55) {
		memcpy((uint8_t *)r->f.xmm_space + 16 * (regno - 40), in, 16);
		return 0;
	}
	memcpy(&v32, in, 4);
	switch (regno) {
	case 32:
		r->f.cwd = (uint16_t)v32;
		break;
	case 33:
		r->f.swd = (uint16_t)v32;
		break;
	case 56:
		r->f.mxcsr = v32;
		break;
	case 57:
		memcpy(&r->g.orig_rax, in, 8);
		break;
	case 58:
		memcpy(&r->g.fs_base, in, 8);
		break;
	case 59:
		memcpy(&r->g.gs_base, in, 8);
		break;
	default:
		break; /* the x87 pointers and tag: kept */
	}
	return 0;
}
