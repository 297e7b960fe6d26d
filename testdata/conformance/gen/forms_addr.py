"""Address arithmetic family ('addr'): 32-bit address wrap and negative
offsets in every state space.

On the GPU an address held in a 32-bit register plus an immediate offset is
a 32-bit sum: `ld.shared.u32 %r, [%r4+68]` with %r4 just below 2^32 reads
shared offset (%r4 + 68) mod 2^32. Each form here computes, per lane, a base
register such that base + offset only reaches the intended word after
wrapping (or through a negative immediate), in .shared, .local, .const and
.param with 32-bit registers, and with 64-bit registers and negative
offsets in .shared, .local, .const, .param, .global and generic space.
A form whose access faults on the GPU records that error (expected/ERROR).

Kernel shape: 128 threads, one CTA. Inputs a[tid] and k[tid] (the wrap
adjustment K, the same in every lane); output d[tid] (and d2). Parameters:
p_d, [p_d2,] p_a, p_k, p_n.
Shared forms first store a[tid] to word tid of a 512-byte shared array, then
bar.sync; local forms store a[tid] + j to word j (j < 8) of a 64-byte local
array; const forms read a 64-word initialised .const array; param forms read
the kernel's own p_n parameter (= 128) through a register address.
"""

import re

from ptxgen import Form, SENTINEL

N = 128


def const_values(name):
    # a recognisable table: word i = 0xC0DE0000 + i * 0x101
    return ', '.join('%d' % (0xC0DE0000 + i * 0x101) for i in range(64))


def _emit(form, ctx):
    ctx.prologue(guard=False)
    regs = {'tid': ctx.tidx, 'gtid': ctx.gtid}
    a = ctx.load('a', 'u32')
    regs['a'] = a
    if form.k_literal:
        kv = form.kval
        if form.kbits == 32 and kv >= 1 << 31:
            kv -= 1 << 32
        elif form.kbits == 64 and kv >= 1 << 63:
            kv -= 1 << 64
        regs['K'] = str(kv)
    else:
        regs['K'] = ctx.load('k', 'u32' if form.kbits == 32 else 'u64')
    d = ctx.regs.new(32)
    regs['d'] = d
    has_d2 = any(n == 'd2' for n, _ in form.outs)
    if has_d2:
        regs['d2'] = ctx.regs.new(32)
        ctx.emit('mov.b32 %s, %s;' % (regs['d2'], SENTINEL[32]))
    ctx.emit('mov.b32 %s, %s;' % (d, SENTINEL[32]))
    ctx.decls = []

    def sub(line):
        def rep(m):
            kind, name = m.group(1), m.group(2)
            key = kind + name
            if key not in regs:
                if kind == 'R':
                    regs[key] = ctx.regs.new(32)
                elif kind == 'RD':
                    regs[key] = ctx.regs.new(64)
                else:
                    regs[key] = ctx.regs.new(1)
            return regs[key]
        line = re.sub(r'\{(RD|R|P)_(\w+)\}', rep, line)
        for k in ('tid', 'gtid', 'a', 'd', 'd2', 'K'):
            if k in regs:
                line = line.replace('{%s}' % k, regs[k])
        return line.replace('{ID}', form.id)

    for line in form.body:
        if line.startswith('.local'):
            ctx.decls.append('\t' + sub(line))
        elif line.endswith(':'):
            ctx.label(sub(line)[:-1])
        else:
            ctx.emit(sub(line))
    ctx.store('d', 'u32', d)
    if has_d2 and not any('p_d2' in ln for ln in form.body):
        ctx.store('d2', 'u32', regs['d2'])


# common setup snippets -------------------------------------------------------

SH_FILL = [
    'mov.u32 {R_s}, sh_{ID};',
    'shl.b32 {R_t0}, {tid}, 2;',
    'add.u32 {R_t0}, {R_t0}, {R_s};',
    'st.shared.u32 [{R_t0}], {a};',
    'bar.sync 0;',
    'and.b32 {R_idx}, {tid}, 31;',
    'shl.b32 {R_off}, {R_idx}, 2;',
]
SH_PRELUDE = '.shared .align 16 .b8 sh_{ID}[512];'

LOC_FILL = [
    '.local .align 16 .b8 lb_{ID}[64];',
    'mov.u32 {R_l}, lb_{ID};',
    'mov.u64 {RD_l}, lb_{ID};',
] + ['add.u32 {R_v%d}, {a}, %d;' % (j, j) for j in range(8)] + \
    ['st.local.u32 [lb_{ID}+%d], {R_v%d};' % (4 * j, j) for j in range(8)] + [
    'mov.u32 {R_lane}, %laneid;',
    'and.b32 {R_q}, {R_lane}, 3;',
    'shl.b32 {R_off}, {R_q}, 2;',
]

CONST_PRELUDE = '.const .align 4 .b32 ct_{ID}[64] = {%s};'
CONST_SETUP = [
    'mov.u32 {R_c}, ct_{ID};',
    'mov.u64 {RD_c}, ct_{ID};',
    'and.b32 {R_idx}, {tid}, 31;',
    'shl.b32 {R_off}, {R_idx}, 2;',
]

GLOB_SETUP = [
    'ld.param.u64 {RD_ga}, [p_a];',
    'cvta.to.global.u64 {RD_ga}, {RD_ga};',
    'mul.wide.u32 {RD_o}, {tid}, 4;',
    'add.u64 {RD_ga}, {RD_ga}, {RD_o};',
]

# (id, space, body, what, K, K bits): {K} is the adjustment that makes the
# base wrap. By default K comes from the input buffer k (every lane the same
# value), so ptxas cannot fold it into the immediate and the hardware does
# the address arithmetic; forms named *_imm have K as a literal instead
# (what ptxas makes of a constant wrap).
FORMS = [
    # --- .shared, 32-bit register ------------------------------------------
    ('sh_ld_pos_wrap', 'sh', ['add.u32 {R_r}, {R_s}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                              'ld.shared.u32 {d}, [{R_r}+68];'],
     'r = base + 4i - 64 (below 2^32 for the low lanes), ld [r+68]: word i+1', 0xFFFFFFC0, 32),
    ('sh_ld_big_neg', 'sh', ['add.u32 {R_r}, {R_s}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                             'ld.shared.u32 {d}, [{R_r}+4100];'], 'r = base + 4i - 4096, ld [r+4100]', 0xFFFFF000, 32),
    ('sh_ld_neg_imm', 'sh', ['add.u32 {R_r}, {R_s}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                             'ld.shared.u32 {d}, [{R_r}+-8];'], 'negative immediate: ld [r-8], r = base + 4i + 12',
     12, 32),
    ('sh_ld_neg_imm_64k', 'sh', ['add.u32 {R_r}, {R_s}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                                 'ld.shared.u32 {d}, [{R_r}+-65536];'], 'ld [r-65536]', 0x10004, 32),
    ('sh_ld_imm_max', 'sh', ['add.u32 {R_r}, {R_s}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                             'ld.shared.u32 {d}, [{R_r}+2147483632];'],
     'r = target + 2^31 + 16, ld [r + 2^31 - 16]: the sum always passes 2^32', 0x80000014, 32),
    ('sh_ld_imm_min', 'sh', ['add.u32 {R_r}, {R_s}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                             'ld.shared.u32 {d}, [{R_r}+-2147483648];'], 'ld [r - 2^31]', 0x80000004, 32),
    ('sh_st_pos_wrap', 'sh', ['shl.b32 {R_o2}, {tid}, 2;', 'add.u32 {R_r}, {R_s}, {R_o2};',
                              'add.u32 {R_r}, {R_r}, {K};', 'xor.b32 {R_v}, {a}, 0x5A5A5A5A;',
                              'st.shared.u32 [{R_r}+256], {R_v};', 'bar.sync 0;',
                              'add.u32 {R_r2}, {R_s}, {R_o2};', 'ld.shared.u32 {d}, [{R_r2}];'],
     'st [r+256] with r = base + 4*tid - 256, read back plainly', 0xFFFFFF00, 32),
    ('sh_ld_v2_wrap', 'sh', ['and.b32 {R_h}, {tid}, 31;', 'shl.b32 {R_o8}, {R_h}, 3;',
                             'add.u32 {R_r}, {R_s}, {R_o8};', 'add.u32 {R_r}, {R_r}, {K};',
                             'ld.shared.v2.u32 {{d}, {d2}}, [{R_r}+64];'], 'ld.shared.v2 [r+64], r wrapped',
     0xFFFFFFC0, 32),
    ('sh_ld_u8_wrap', 'sh', ['add.u32 {R_r}, {R_s}, {tid};', 'add.u32 {R_r}, {R_r}, {K};',
                             'ld.shared.u8 {d}, [{R_r}+3];'], 'byte loads: ld.shared.u8 [r+3], r = base + tid - 3',
     0xFFFFFFFD, 32),
    ('sh_ld_u16_neg', 'sh', ['shl.b32 {R_o2}, {tid}, 1;', 'add.u32 {R_r}, {R_s}, {R_o2};',
                             'add.u32 {R_r}, {R_r}, {K};', 'ld.shared.u16 {d}, [{R_r}+-6];'], 'ld.shared.u16 [r-6]',
     6, 32),
    ('sh_atom_wrap', 'sh', ['shl.b32 {R_o2}, {tid}, 2;', 'add.u32 {R_r}, {R_s}, {R_o2};',
                            'add.u32 {R_r}, {R_r}, {K};', 'atom.shared.add.u32 {d}, [{R_r}+64], 256;',
                            'bar.sync 0;', 'add.u32 {R_r2}, {R_s}, {R_o2};', 'ld.shared.u32 {d2}, [{R_r2}];'],
     'atom.shared.add [r+64] with r wrapped; old value and the word afterwards', 0xFFFFFFC0, 32),
    # --- .shared, 64-bit register ------------------------------------------
    ('sh64_neg_imm', 'sh', ['cvt.u64.u32 {RD_s}, {R_s};', 'cvt.u64.u32 {RD_o}, {R_off};',
                            'add.u64 {RD_r}, {RD_s}, {RD_o};', 'add.u64 {RD_r}, {RD_r}, {K};',
                            'ld.shared.u32 {d}, [{RD_r}+-4];'], '64-bit register, ld [rd-4]', 8, 64),
    ('sh64_wrap64', 'sh', ['cvt.u64.u32 {RD_s}, {R_s};', 'cvt.u64.u32 {RD_o}, {R_off};',
                           'add.u64 {RD_r}, {RD_s}, {RD_o};', 'add.u64 {RD_r}, {RD_r}, {K};',
                           'ld.shared.u32 {d}, [{RD_r}+256];'], '64-bit register below 0 (mod 2^64), ld [rd+256]',
     (1 << 64) - 252, 64),
    ('sh64_above_4g', 'sh', ['cvt.u64.u32 {RD_s}, {R_s};', 'cvt.u64.u32 {RD_o}, {R_off};',
                             'add.u64 {RD_r}, {RD_s}, {RD_o};', 'add.u64 {RD_r}, {RD_r}, {K};',
                             'ld.shared.u32 {d}, [{RD_r}];'],
     '64-bit shared address 2^32 above the word: truncated to 32 bits, or a fault', 0x100000004, 64),
    ('generic_sh_neg', 'sh', ['cvt.u64.u32 {RD_s}, {R_s};', 'cvta.shared.u64 {RD_g}, {RD_s};',
                              'cvt.u64.u32 {RD_o}, {R_off};', 'add.u64 {RD_g}, {RD_g}, {RD_o};',
                              'add.u64 {RD_g}, {RD_g}, {K};', 'ld.u32 {d}, [{RD_g}+-8];'],
     'generic address of shared memory, ld [g-8]', 12, 64),
    # --- .local -----------------------------------------------------------
    ('loc_ld_pos_wrap', 'loc', ['add.u32 {R_r}, {R_l}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                                'ld.local.u32 {d}, [{R_r}+68];'], '.local, 32-bit register wrapped, ld [r+68]',
     0xFFFFFFC0, 32),
    ('loc_ld_neg_imm', 'loc', ['add.u32 {R_r}, {R_l}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                               'ld.local.u32 {d}, [{R_r}+-8];'], '.local, ld [r-8]', 12, 32),
    ('loc_ld_imm_max', 'loc', ['add.u32 {R_r}, {R_l}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                               'ld.local.u32 {d}, [{R_r}+2147483632];'], '.local, ld [r + 2^31 - 16]',
     0x80000014, 32),
    ('loc64_neg_imm', 'loc', ['cvt.u64.u32 {RD_o}, {R_off};', 'add.u64 {RD_r}, {RD_l}, {RD_o};',
                              'add.u64 {RD_r}, {RD_r}, {K};', 'ld.local.u32 {d}, [{RD_r}+-8];'],
     '.local, 64-bit register, ld [rd-8]', 12, 64),
    ('loc_st_wrap', 'loc', ['add.u32 {R_r}, {R_l}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                            'xor.b32 {R_w}, {a}, 0x33333333;', 'st.local.u32 [{R_r}+260], {R_w};',
                            'add.u32 {R_r2}, {R_l}, {R_off};', 'ld.local.u32 {d}, [{R_r2}+4];'],
     '.local, st [r+260] with r wrapped, read back plainly', 0xFFFFFF00, 32),
    # --- .const -----------------------------------------------------------
    ('const_ld_pos_wrap', 'const', ['add.u32 {R_r}, {R_c}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                                    'ld.const.u32 {d}, [{R_r}+68];'], '.const, 32-bit register wrapped, ld [r+68]',
     0xFFFFFFC0, 32),
    ('const_ld_neg_imm', 'const', ['add.u32 {R_r}, {R_c}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                                   'ld.const.u32 {d}, [{R_r}+-8];'], '.const, ld [r-8]', 12, 32),
    ('const_ld_big_wrap', 'const', ['add.u32 {R_r}, {R_c}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                                    'ld.const.u32 {d}, [{R_r}+65540];'],
     '.const, ld [r+65540], r = base + 4i - 65536', 0xFFFF0000, 32),
    ('const_ld_imm_min', 'const', ['add.u32 {R_r}, {R_c}, {R_off};', 'add.u32 {R_r}, {R_r}, {K};',
                                   'ld.const.u32 {d}, [{R_r}+-2147483648];'], '.const, ld [r - 2^31]', 0x80000004, 32),
    ('const64_neg_imm', 'const', ['cvt.u64.u32 {RD_o}, {R_off};', 'add.u64 {RD_r}, {RD_c}, {RD_o};',
                                  'add.u64 {RD_r}, {RD_r}, {K};', 'ld.const.u32 {d}, [{RD_r}+-8];'],
     '.const, 64-bit register, ld [rd-8]', 12, 64),
    # --- .param (the kernel's own p_n, at byte 16) -------------------------
    ('param_ld_pos_wrap', 'param', ['mov.u32 {R_p}, p_d;', 'add.u32 {R_r}, {R_p}, {K};',
                                    'ld.param.u32 {d}, [{R_r}+88];'],
     'kernel param p_n (byte 24) via a 32-bit register, r = &p_d - 64 wrapped, ld.param [r+88]', 0xFFFFFFC0, 32),
    ('param_ld_neg_imm', 'param', ['mov.u32 {R_p}, p_d;', 'add.u32 {R_r}, {R_p}, {K};',
                                   'ld.param.u32 {d}, [{R_r}+-8];'], 'kernel param p_n, ld.param [r-8]', 32, 32),
    ('param_ld_imm_max', 'param', ['mov.u32 {R_p}, p_d;', 'add.u32 {R_r}, {R_p}, {K};',
                                   'ld.param.u32 {d}, [{R_r}+2147483632];'],
     'kernel param p_n, ld.param [r + 2^31 - 16] with r = &p_d + 2^31 + 40', 0x80000028, 32),
    ('param64_neg_imm', 'param', ['mov.u64 {RD_p}, p_d;', 'add.u64 {RD_r}, {RD_p}, {K};',
                                  'ld.param.u32 {d}, [{RD_r}+-8];'], 'kernel param p_n, 64-bit register, [rd-8]',
     32, 64),
    # --- .global / generic, 64-bit registers -------------------------------
    ('glob_neg_imm', 'glob', ['add.u64 {RD_r}, {RD_ga}, {K};', 'ld.global.u32 {d}, [{RD_r}+-8];'],
     '.global, ld [rd-8]', 8, 64),
    ('glob_imm_min', 'glob', ['add.u64 {RD_r}, {RD_ga}, {K};', 'ld.global.u32 {d}, [{RD_r}+-2147483648];'],
     '.global, ld [rd - 2^31]', 2 ** 31, 64),
    ('glob_imm_max', 'glob', ['add.u64 {RD_r}, {RD_ga}, {K};', 'ld.global.u32 {d}, [{RD_r}+2147483647];'],
     '.global, ld [rd + 2^31 - 1]', (1 << 64) - (2 ** 31 - 1), 64),
    ('glob_st_neg_imm', 'glob', ['ld.param.u64 {RD_gd}, [p_d2];', 'cvta.to.global.u64 {RD_gd}, {RD_gd};',
                                 'add.u64 {RD_gd}, {RD_gd}, {RD_o};', 'add.u64 {RD_gd}, {RD_gd}, {K};',
                                 'add.u32 {R_w}, {a}, 1;', 'st.global.u32 [{RD_gd}+-8], {R_w};',
                                 'mov.u32 {d}, 0;'], '.global, st [rd-8] (d2 holds a+1)', 8, 64),
    ('generic_glob_neg', 'glob', ['cvta.global.u64 {RD_g}, {RD_ga};', 'add.u64 {RD_g}, {RD_g}, {K};',
                                  'ld.u32 {d}, [{RD_g}+-16];'], 'generic address of global memory, ld [g-16]', 16, 64),
]
IMM_TOO = ('sh_ld_pos_wrap', 'sh_ld_neg_imm', 'sh_ld_imm_max', 'loc_ld_pos_wrap', 'const_ld_pos_wrap',
           'param_ld_pos_wrap', 'sh64_above_4g')


def _vec(form):
    from vectors import rng_for
    R = rng_for('addr', form.id)
    v = {'a': [(0xA0000000 | (i << 16) | R.getrandbits(16)) for i in range(N)]}
    v['k'] = [form.kval] * N
    return v


def addr_forms():
    L = []
    for fid, space, body, what, kval, kbits in FORMS:
        for literal in ((False, True) if fid in IMM_TOO else (False,)):
            full = 'addr_' + fid + ('_imm' if literal else '')
            prelude = ''
            setup = []
            if space == 'sh':
                prelude, setup = SH_PRELUDE.replace('{ID}', full), SH_FILL
            elif space == 'loc':
                setup = LOC_FILL
            elif space == 'const':
                prelude, setup = (CONST_PRELUDE % const_values(full)).replace('{ID}', full), CONST_SETUP
            elif space == 'glob':
                setup = GLOB_SETUP
            outs = [('d', 'u32')]
            if any('{d2}' in ln for ln in body) or fid == 'glob_st_neg_imm':
                outs.append(('d2', 'u32'))
            # k is a parameter of every form (so p_n sits at byte 24, or 32
            # with d2); the *_imm forms do not read it
            ins = [('a', 'u32'), ('k', 'u32' if kbits == 32 else 'u64')]
            f = Form(full, 'addr', setup + body, ins, outs, n=N, guard=False, emit=_emit,
                     vecgen=_vec, kind='addr', prelude=prelude, record_error=True,
                     note='address form: %s (K = %#x %s)' % (
                         what, kval, 'as a literal' if literal else 'from input k'),
                     opcode=next((ln.split()[0] for ln in body if ln.startswith(('ld', 'st', 'atom'))), ''))
            f.kval, f.kbits, f.k_literal = kval, kbits, literal
            L.append(f)
    return L
