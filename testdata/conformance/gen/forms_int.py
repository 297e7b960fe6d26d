"""Integer arithmetic ('int') and bit-manipulation ('bits') families."""

from ptxgen import Form
from vectors import rng_for

INT6 = ['u16', 'u32', 'u64', 's16', 's32', 's64']
CC4 = ['u32', 's32', 'u64', 's64']
WIDE = {'u16': 'u32', 's16': 's32', 'u32': 'u64', 's32': 's64'}


DIV0 = 'ISA: division by zero yields an unspecified, machine-specific value'


def _w(t):
    return int(t[1:])


def rows24(t, k, count=64):
    """Operands that fit in 24 bits (signed or unsigned) for mul24/mad24."""
    R = rng_for('rows24', t, k)
    out = []
    for _ in range(count):
        row = []
        for j in range(k):
            if j == 2:
                row.append(R.getrandbits(32))
            elif t == 's32':
                row.append(R.choice([R.randint(-(1 << 23), (1 << 23) - 1), -(1 << 23), (1 << 23) - 1])
                           & 0xffffffff)
            else:
                row.append(R.choice([R.getrandbits(24), 0xffffff, 0x800000]))
        out.append(tuple(row))
    return out


def int_forms(n=256):
    fam = 'int'
    L = []

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, **kw))

    def bin_(op, t, dt=None, extra_q='', **kw):
        dt = dt or t
        q = op + extra_q
        F('%s_%s' % (q.replace('.', '_'), t), '%s.%s {d}, {a}, {b};' % (q, t),
          [('a', t), ('b', t)], [('d', dt)], **kw)

    for t in INT6 + ['u16x2', 's16x2']:
        bin_('add', t)
    F('add_sat_s32', 'add.sat.s32 {d}, {a}, {b};', [('a', 's32'), ('b', 's32')], [('d', 's32')])
    for t in INT6:
        bin_('sub', t)
    F('sub_sat_s32', 'sub.sat.s32 {d}, {a}, {b};', [('a', 's32'), ('b', 's32')], [('d', 's32')])

    # carry chains: carry-in comes from an input (0/1) via add.cc/sub.cc with a
    # register of all ones / a zero register; carry-out is materialised with
    # addc/subc of zeros into a second output buffer.
    for t in CC4:
        w = _w(t)
        m1 = 'mov.b%d {m1}, -1;' % w
        z = 'mov.b%d {z}, 0;' % w
        tmp = [('m1', t), ('z', t), ('tt', t)]
        ab = [('a', t), ('b', t)]
        abc = [('a', t), ('b', t), ('c', t)]
        ci = [('ci', t, 'carry')]
        set_cf = 'add.cc.%s {tt}, {ci}, {m1};' % t        # CF = (ci != 0)
        set_bf = 'sub.cc.%s {tt}, {z}, {ci};' % t         # borrow = (ci != 0)
        co_add = 'addc.%s {co}, {z}, {z};' % t
        co_sub = 'subc.%s {co}, {z}, {z};' % t
        F('add_cc_%s' % t, [z, 'add.cc.%s {d}, {a}, {b};' % t, co_add], ab,
          [('d', t), ('co', t)], temps=[('z', t)], opcode='add.cc')
        F('addc_%s' % t, [m1, z, set_cf, 'addc.%s {d}, {a}, {b};' % t], ab + ci, [('d', t)],
          temps=tmp, opcode='addc')
        F('addc_cc_%s' % t, [m1, z, set_cf, 'addc.cc.%s {d}, {a}, {b};' % t, co_add], ab + ci,
          [('d', t), ('co', t)], temps=tmp, opcode='addc.cc')
        F('sub_cc_%s' % t, [z, 'sub.cc.%s {d}, {a}, {b};' % t, co_sub], ab,
          [('d', t), ('co', t)], temps=[('z', t)], opcode='sub.cc')
        F('subc_%s' % t, [z, set_bf, 'subc.%s {d}, {a}, {b};' % t], ab + ci, [('d', t)],
          temps=[('z', t), ('tt', t)], opcode='subc')
        F('subc_cc_%s' % t, [z, set_bf, 'subc.cc.%s {d}, {a}, {b};' % t, co_sub], ab + ci,
          [('d', t), ('co', t)], temps=[('z', t), ('tt', t)], opcode='subc.cc')
        for hl in ('lo', 'hi'):
            F('mad_%s_cc_%s' % (hl, t), [z, 'mad.%s.cc.%s {d}, {a}, {b}, {c};' % (hl, t), co_add],
              abc, [('d', t), ('co', t)], temps=[('z', t)], opcode='mad.%s.cc' % hl)
            F('madc_%s_%s' % (hl, t), [m1, z, set_cf, 'madc.%s.%s {d}, {a}, {b}, {c};' % (hl, t)],
              abc + ci, [('d', t)], temps=tmp, opcode='madc.%s' % hl)
            F('madc_%s_cc_%s' % (hl, t),
              [m1, z, set_cf, 'madc.%s.cc.%s {d}, {a}, {b}, {c};' % (hl, t), co_add],
              abc + ci, [('d', t), ('co', t)], temps=tmp, opcode='madc.%s.cc' % hl)

    # a three-word add chain: (a0,a1,a2) + (b0,b1,b2) with carries through
    F('add_cc_chain3_u32',
      ['add.cc.u32 {d0}, {a0}, {b0};', 'addc.cc.u32 {d1}, {a1}, {b1};', 'addc.u32 {d2}, {a2}, {b2};'],
      [('a0', 'u32'), ('a1', 'u32'), ('a2', 'u32'), ('b0', 'u32'), ('b1', 'u32'), ('b2', 'u32')],
      [('d0', 'u32'), ('d1', 'u32'), ('d2', 'u32')], opcode='add.cc')
    F('sub_cc_chain3_u32',
      ['sub.cc.u32 {d0}, {a0}, {b0};', 'subc.cc.u32 {d1}, {a1}, {b1};', 'subc.u32 {d2}, {a2}, {b2};'],
      [('a0', 'u32'), ('a1', 'u32'), ('a2', 'u32'), ('b0', 'u32'), ('b1', 'u32'), ('b2', 'u32')],
      [('d0', 'u32'), ('d1', 'u32'), ('d2', 'u32')], opcode='sub.cc')

    for t in INT6:
        for mode in ('lo', 'hi'):
            F('mul_%s_%s' % (mode, t), 'mul.%s.%s {d}, {a}, {b};' % (mode, t),
              [('a', t), ('b', t)], [('d', t)])
            F('mad_%s_%s' % (mode, t), 'mad.%s.%s {d}, {a}, {b}, {c};' % (mode, t),
              [('a', t), ('b', t), ('c', t)], [('d', t)])
        if t in WIDE:
            F('mul_wide_%s' % t, 'mul.wide.%s {d}, {a}, {b};' % t, [('a', t), ('b', t)], [('d', WIDE[t])])
            F('mad_wide_%s' % t, 'mad.wide.%s {d}, {a}, {b}, {c};' % t,
              [('a', t), ('b', t), ('c', WIDE[t])], [('d', WIDE[t])])
    F('mad_hi_sat_s32', 'mad.hi.sat.s32 {d}, {a}, {b}, {c};',
      [('a', 's32'), ('b', 's32'), ('c', 's32')], [('d', 's32')])

    for t in ('u32', 's32'):
        r2, r3 = rows24(t, 2), rows24(t, 3)
        for mode in ('lo', 'hi'):
            F('mul24_%s_%s' % (mode, t), 'mul24.%s.%s {d}, {a}, {b};' % (mode, t),
              [('a', t), ('b', t)], [('d', t)], extra=r2)
            F('mad24_%s_%s' % (mode, t), 'mad24.%s.%s {d}, {a}, {b}, {c};' % (mode, t),
              [('a', t), ('b', t), ('c', t)], [('d', t)], extra=r3)
    F('mad24_hi_sat_s32', 'mad24.hi.sat.s32 {d}, {a}, {b}, {c};',
      [('a', 's32'), ('b', 's32'), ('c', 's32')], [('d', 's32')], extra=rows24('s32', 3))

    for t in INT6:
        F('sad_%s' % t, 'sad.%s {d}, {a}, {b}, {c};' % t, [('a', t), ('b', t), ('c', t)], [('d', t)])
        bin_('div', t, note=DIV0)
        bin_('rem', t, note=DIV0)
    for t in ('s16', 's32', 's64'):
        F('abs_%s' % t, 'abs.%s {d}, {a};' % t, [('a', t)], [('d', t)])
        F('neg_%s' % t, 'neg.%s {d}, {a};' % t, [('a', t)], [('d', t)])
    for op in ('min', 'max'):
        for t in ['u16', 'u32', 'u64', 'u16x2', 's16', 's64', 's16x2', 's32']:
            bin_(op, t)
        for t in ('s16x2', 's32'):
            bin_(op, t, extra_q='.relu')

    for at in ('u32', 's32'):
        for bt in ('u32', 's32'):
            ct = 'u32' if at == bt == 'u32' else 's32'
            F('dp4a_%s_%s' % (at, bt), 'dp4a.%s.%s {d}, {a}, {b}, {c};' % (at, bt),
              [('a', at), ('b', bt), ('c', ct)], [('d', ct)])
            for mode in ('lo', 'hi'):
                F('dp2a_%s_%s_%s' % (mode, at, bt), 'dp2a.%s.%s.%s {d}, {a}, {b}, {c};' % (mode, at, bt),
                  [('a', at), ('b', bt), ('c', ct)], [('d', ct)])
    return L


LOP3_LUTS = [0x00, 0xFF, 0xF0, 0xCC, 0xAA, 0x0F, 0x96, 0x69, 0xE8, 0x17, 0x80, 0xFE, 0x01,
             0x7F, 0xCA, 0xB8, 0xE2, 0x6A, 0x3C, 0x5A, 0x66, 0x1E, 0x78, 0xD2, 0x4B, 0x87, 0x2D,
             0xAC, 0x53, 0x35]


def bits_forms(n=256):
    fam = 'bits'
    L = []

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, **kw))

    for t in ('b32', 'b64'):
        F('popc_%s' % t, 'popc.%s {d}, {a};' % t, [('a', t)], [('d', 'u32')])
        F('clz_%s' % t, 'clz.%s {d}, {a};' % t, [('a', t)], [('d', 'u32')])
        F('brev_%s' % t, 'brev.%s {d}, {a};' % t, [('a', t)], [('d', t)])
        w = _w(t)
        F('bfi_%s' % t, 'bfi.%s {d}, {a}, {b}, {c}, {l};' % t,
          [('a', t), ('b', t), ('c', 'u32', ('bitpos', w)), ('l', 'u32', ('bitpos', w))], [('d', t)])
    for t in ('u32', 'u64', 's32', 's64'):
        F('bfind_%s' % t, 'bfind.%s {d}, {a};' % t, [('a', t)], [('d', 'u32')])
        F('bfind_shiftamt_%s' % t, 'bfind.shiftamt.%s {d}, {a};' % t, [('a', t)], [('d', 'u32')])
        w = _w(t)
        F('bfe_%s' % t, 'bfe.%s {d}, {a}, {b}, {c};' % t,
          [('a', t), ('b', 'u32', ('bitpos', w)), ('c', 'u32', ('bitpos', w))], [('d', t)])
    for mode in ('', 'f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16'):
        q = 'prmt.b32' + ('.' + mode if mode else '')
        F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};',
          [('a', 'b32'), ('b', 'b32'), ('c', 'b32', 'prmt')], [('d', 'b32')])
    for t in ('b16', 'b32', 'b64'):
        F('shl_%s' % t, 'shl.%s {d}, {a}, {b};' % t, [('a', t), ('b', 'u32', ('shift', _w(t)))], [('d', t)])
    for t in ('b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64'):
        F('shr_%s' % t, 'shr.%s {d}, {a}, {b};' % t, [('a', t), ('b', 'u32', ('shift', _w(t)))], [('d', t)])
    # immediate shift counts
    for (op, t, k) in (('shl', 'b32', 7), ('shl', 'b16', 15), ('shl', 'b64', 40), ('shr', 's32', 31),
                       ('shr', 'u32', 1), ('shr', 's64', 63), ('shr', 'u16', 9), ('shr', 's16', 3)):
        F('%s_%s_imm%d' % (op, t, k), '%s.%s {d}, {a}, %d;' % (op, t, k), [('a', t)], [('d', t)])
    for d in ('l', 'r'):
        for mode in ('wrap', 'clamp'):
            F('shf_%s_%s_b32' % (d, mode), 'shf.%s.%s.b32 {d}, {a}, {b}, {c};' % (d, mode),
              [('a', 'b32'), ('b', 'b32'), ('c', 'u32', ('shift', 32))], [('d', 'b32')])
    for op in ('and', 'or', 'xor'):
        for t in ('pred', 'b16', 'b32', 'b64'):
            F('%s_%s' % (op, t), '%s.%s {d}, {a}, {b};' % (op, t), [('a', t), ('b', t)], [('d', t)])
    for t in ('pred', 'b16', 'b32', 'b64'):
        F('not_%s' % t, 'not.%s {d}, {a};' % t, [('a', t)], [('d', t)])
    for t in ('b16', 'b32', 'b64'):
        F('cnot_%s' % t, 'cnot.%s {d}, {a};' % t, [('a', t)], [('d', t)])
    # and/or with an immediate and a negated-predicate operand
    F('and_b32_imm', 'and.b32 {d}, {a}, 0x00FF00F0;', [('a', 'b32')], [('d', 'b32')])
    F('or_pred_not', 'or.pred {d}, {a}, !{b};', [('a', 'pred'), ('b', 'pred')], [('d', 'pred')])
    F('and_pred_not', 'and.pred {d}, !{a}, {b};', [('a', 'pred'), ('b', 'pred')], [('d', 'pred')])
    for lut in LOP3_LUTS:
        F('lop3_b32_%02x' % lut, 'lop3.b32 {d}, {a}, {b}, {c}, 0x%02X;' % lut,
          [('a', 'b32'), ('b', 'b32'), ('c', 'b32')], [('d', 'b32')])
    for bop, lut in (('or', 0x96), ('and', 0xE8)):
        F('lop3_%s_b32_%02x' % (bop, lut), 'lop3.%s.b32 {d}|{p}, {a}, {b}, {c}, 0x%02X, {q};' % (bop, lut),
          [('a', 'b32'), ('b', 'b32'), ('c', 'b32'), ('q', 'pred')], [('d', 'b32'), ('p', 'pred')])
    F('fns_b32', 'fns.b32 {d}, {a}, {b}, {c};',
      [('a', 'b32'), ('b', 'u32', 'base32'), ('c', 's32', 'offset')], [('d', 'b32')])
    for mode in ('clamp', 'wrap'):
        F('bmsk_%s_b32' % mode, 'bmsk.%s.b32 {d}, {a}, {b};' % mode,
          [('a', 'u32', ('bitpos', 32)), ('b', 'u32', ('bitpos', 32))], [('d', 'b32')])
        for t in ('u32', 's32'):
            F('szext_%s_%s' % (mode, t), 'szext.%s.%s {d}, {a}, {b};' % (mode, t),
              [('a', t), ('b', 'u32', ('bitpos', 32))], [('d', t)])
    return L
