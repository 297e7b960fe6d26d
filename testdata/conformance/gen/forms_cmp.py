"""Comparison family ('setp'), and 'select' (set, selp, slct, mov packing,
immediate operands)."""

from ptxgen import Form

SIGNED = ['eq', 'ne', 'lt', 'le', 'gt', 'ge']
UNSIGNED = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'lo', 'ls', 'hi', 'hs']
BITS = ['eq', 'ne']
FLOAT = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']


def cmps_for(t):
    if t[0] == 'b':
        return BITS
    if t[0] == 'u':
        return UNSIGNED
    if t[0] == 's':
        return SIGNED
    return FLOAT


def setp_forms(n=256):
    fam = 'setp'
    L = []

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, opcode='setp', **kw))

    scalar = ['b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64', 'f32', 'f64', 'f16', 'bf16']
    for t in scalar + ['f16x2', 'bf16x2']:
        ftzs = ('', 'ftz') if t in ('f32', 'f16', 'f16x2') else ('',)
        pq = t in ('f16x2', 'bf16x2') or t not in ('f16', 'bf16')
        for c in cmps_for(t):
            for ftz in ftzs:
                q = '.'.join(x for x in ('setp', c, ftz, t) if x)
                if pq:
                    F(q.replace('.', '_'), q + ' {p}|{q}, {a}, {b};', [('a', t), ('b', t)],
                      [('p', 'pred'), ('q', 'pred')])
                else:
                    F(q.replace('.', '_'), q + ' {p}, {a}, {b};', [('a', t), ('b', t)], [('p', 'pred')])
    # single-destination syntax for the types above that used p|q
    for t, c in (('s32', 'lt'), ('u64', 'hs'), ('f32', 'gtu'), ('f64', 'nan'), ('b32', 'ne')):
        q = 'setp.%s.%s' % (c, t)
        F(q.replace('.', '_') + '_p', q + ' {p}, {a}, {b};', [('a', t), ('b', t)], [('p', 'pred')])
    # predicate combine with a third predicate operand, plain and negated
    combos = [('s32', 'lt'), ('s32', 'eq'), ('u32', 'hs'), ('u64', 'lo'), ('s16', 'ge'), ('f32', 'lt'),
              ('f32', 'gtu'), ('f32', 'nan'), ('f64', 'le'), ('f64', 'neu'), ('f16', 'gt'),
              ('bf16', 'leu'), ('f16x2', 'lt'), ('bf16x2', 'geu'), ('b32', 'ne')]
    for t, c in combos:
        for bop in ('and', 'or', 'xor'):
            for neg in ('', '!'):
                q = 'setp.%s.%s.%s' % (c, bop, t)
                pq = t not in ('f16', 'bf16')
                fid = q.replace('.', '_') + ('_notc' if neg else '')
                if pq:
                    F(fid, q + ' {p}|{q}, {a}, {b}, %s{c};' % neg, [('a', t), ('b', t), ('c', 'pred')],
                      [('p', 'pred'), ('q', 'pred')])
                else:
                    F(fid, q + ' {p}, {a}, {b}, %s{c};' % neg, [('a', t), ('b', t), ('c', 'pred')],
                      [('p', 'pred')])
    F('setp_lt_and_ftz_f32', 'setp.lt.and.ftz.f32 {p}|{q}, {a}, {b}, {c};',
      [('a', 'f32'), ('b', 'f32'), ('c', 'pred')], [('p', 'pred'), ('q', 'pred')])
    return L


def select_forms(n=256):
    fam = 'select'
    L = []

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, **kw))

    # set: integer/float destination of a comparison
    for dt in ('u32', 's32', 'f32'):
        for st, cs in (('s32', ['lt', 'eq', 'ge']), ('u32', ['hi', 'ls']), ('f32', ['lt', 'equ', 'nan', 'ge']),
                       ('f64', ['gt', 'ltu']), ('s64', ['le']), ('u16', ['lo']), ('b32', ['ne']),
                       ('s16', ['gt'])):
            for c in cs:
                q = 'set.%s.%s.%s' % (c, dt, st)
                F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', st), ('b', st)], [('d', dt)],
                  opcode='set')
        F('set_lt_ftz_%s_f32' % dt, 'set.lt.ftz.%s.f32 {d}, {a}, {b};' % dt,
          [('a', 'f32'), ('b', 'f32')], [('d', dt)], opcode='set')
        for bop in ('and', 'or', 'xor'):
            for neg in ('', '!'):
                q = 'set.lt.%s.%s.s32' % (bop, dt)
                F(q.replace('.', '_') + ('_notc' if neg else ''), q + ' {d}, {a}, {b}, %s{c};' % neg,
                  [('a', 's32'), ('b', 's32'), ('c', 'pred')], [('d', dt)], opcode='set')
        q = 'set.gtu.or.%s.f32' % dt
        F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', [('a', 'f32'), ('b', 'f32'), ('c', 'pred')],
          [('d', dt)], opcode='set')
    # set with half-precision destinations / sources
    for (dt, st, c) in (('f16', 'f32', 'lt'), ('f16', 's32', 'ge'), ('u32', 'f16', 'ltu'), ('s32', 'f16', 'eq'),
                        ('u16', 'f16', 'gt'), ('f16x2', 'f16x2', 'le'), ('u32', 'f16x2', 'ne'),
                        ('bf16', 'f32', 'gt'), ('u32', 'bf16', 'lt'), ('bf16x2', 'bf16x2', 'geu'),
                        ('s32', 'bf16x2', 'nan'), ('f16', 'f16', 'num')):
        q = 'set.%s.%s.%s' % (c, dt, st)
        F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', st), ('b', st)], [('d', dt)], opcode='set')
    F('set_lt_ftz_f16x2_f16x2', 'set.lt.ftz.f16x2.f16x2 {d}, {a}, {b};', [('a', 'f16x2'), ('b', 'f16x2')],
      [('d', 'f16x2')], opcode='set')

    # selp / slct
    for t in ('b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64', 'f32', 'f64'):
        F('selp_%s' % t, 'selp.%s {d}, {a}, {b}, {c};' % t, [('a', t), ('b', t), ('c', 'pred')], [('d', t)])
        F('slct_%s_s32' % t, 'slct.%s.s32 {d}, {a}, {b}, {c};' % t, [('a', t), ('b', t), ('c', 's32')],
          [('d', t)], opcode='slct')
        F('slct_%s_f32' % t, 'slct.%s.f32 {d}, {a}, {b}, {c};' % t, [('a', t), ('b', t), ('c', 'f32')],
          [('d', t)], opcode='slct')
    for t in ('u32', 'f32', 'b64'):
        F('slct_ftz_%s_f32' % t, 'slct.ftz.%s.f32 {d}, {a}, {b}, {c};' % t,
          [('a', t), ('b', t), ('c', 'f32')], [('d', t)], opcode='slct')

    # mov packing / unpacking
    F('mov_b64_pack', 'mov.b64 {d}, {{{a}, {b}}};', [('a', 'b32'), ('b', 'b32')], [('d', 'b64')], opcode='mov')
    F('mov_b64_unpack', 'mov.b64 {{{d}, {e}}}, {a};', [('a', 'b64')], [('d', 'b32'), ('e', 'b32')], opcode='mov')
    F('mov_b32_pack', 'mov.b32 {d}, {{{a}, {b}}};', [('a', 'b16'), ('b', 'b16')], [('d', 'b32')], opcode='mov')
    F('mov_b32_unpack', 'mov.b32 {{{d}, {e}}}, {a};', [('a', 'b32')], [('d', 'b16'), ('e', 'b16')], opcode='mov')
    F('mov_b128_pack_unpack', ['mov.b128 {q}, {{{a}, {b}}};', 'mov.b128 {{{d}, {e}}}, {q};'],
      [('a', 'b64'), ('b', 'b64')], [('d', 'b64'), ('e', 'b64')], temps=[('q', 'b128')], opcode='mov')
    F('mov_b128_pack_4x32', ['mov.b128 {q}, {{{a}, {b}, {c}, {e}}};', 'mov.b128 {{{d}, {f}}}, {q};'],
      [('a', 'b32'), ('b', 'b32'), ('c', 'b32'), ('e', 'b32')], [('d', 'b64'), ('f', 'b64')],
      temps=[('q', 'b128')], opcode='mov')
    F('mov_b64_pack_4x16', 'mov.b64 {d}, {{{a}, {b}, {c}, {e}}};',
      [('a', 'b16'), ('b', 'b16'), ('c', 'b16'), ('e', 'b16')], [('d', 'b64')], opcode='mov')
    F('mov_b64_unpack_4x16', 'mov.b64 {{{d}, {e}, {f}, {g}}}, {a};', [('a', 'b64')],
      [('d', 'b16'), ('e', 'b16'), ('f', 'b16'), ('g', 'b16')], opcode='mov')
    for t in ('b16', 'b32', 'b64', 'u16', 's32', 'u64', 'f32', 'f64'):
        F('mov_%s' % t, 'mov.%s {d}, {a};' % t, [('a', t)], [('d', t)], opcode='mov')
    F('mov_pred', 'mov.pred {d}, {a};', [('a', 'pred')], [('d', 'pred')], opcode='mov')

    # immediate operand forms (hex float literals, negative integers)
    imm = [
        ('imm_add_f32_hex', 'add.rn.f32 {d}, {a}, 0f3F800000;', 'f32'),
        ('imm_mul_f32_neg', 'mul.rn.f32 {d}, {a}, 0fC0490FDB;', 'f32'),
        ('imm_add_f32_inf', 'add.rn.f32 {d}, {a}, 0f7F800000;', 'f32'),
        ('imm_fma_f32', 'fma.rn.f32 {d}, {a}, 0f3EAAAAAB, 0fBF000000;', 'f32'),
        ('imm_add_f64_hex', 'add.rn.f64 {d}, {a}, 0d3FF0000000000001;', 'f64'),
        ('imm_mul_f64_neg', 'mul.rn.f64 {d}, {a}, 0dC00921FB54442D18;', 'f64'),
        ('imm_add_s32_neg', 'add.s32 {d}, {a}, -7;', 's32'),
        ('imm_mul_lo_u32', 'mul.lo.u32 {d}, {a}, 0x9E3779B9;', 'u32'),
        ('imm_add_s64_neg', 'add.s64 {d}, {a}, -1234567890123;', 's64'),
        ('imm_sub_u16', 'sub.u16 {d}, {a}, 1000;', 'u16'),
        ('imm_min_s32', 'min.s32 {d}, {a}, -100;', 's32'),
        ('imm_xor_b64', 'xor.b64 {d}, {a}, 0x8000000000000001;', 'b64'),
        ('imm_mov_f32', 'mov.f32 {d}, 0fFFC00001;', None),
        ('imm_mov_f64', 'mov.f64 {d}, 0d7FF0000000000001;', None),
    ]
    for fid, body, t in imm:
        if t is None:
            dt = 'f32' if 'f32' in body else 'f64'
            F(fid, body, [('a', dt)], [('d', dt)], opcode=body.split()[0])
        else:
            F(fid, body, [('a', t)], [('d', t)], opcode=body.split()[0])
    F('imm_setp_lt_s32', 'setp.lt.s32 {p}, {a}, -5;', [('a', 's32')], [('p', 'pred')], opcode='setp')
    F('imm_selp_b32', 'selp.b32 {d}, 0x12345678, {a}, {c};', [('a', 'b32'), ('c', 'pred')], [('d', 'b32')],
      opcode='selp')
    return L
