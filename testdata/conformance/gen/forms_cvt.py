"""Conversion family ('cvt'): every valid scalar type pair with each rounding,
.ftz and .sat, plus the packed/relu/satfinite/tf32/fp8 and cvt.pack forms."""

import math

from ptxgen import Form
from vectors import FP, FPS, rng_for, tbits

INTS = ['u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64']
FLTS = ['f16', 'bf16', 'f32', 'f64']
RND = ['rn', 'rz', 'rm', 'rp']
IRND = ['rni', 'rzi', 'rmi', 'rpi']
MANT = {'f16': 11, 'bf16': 8, 'f32': 24, 'f64': 53}
WIDTH = {'f16': 16, 'bf16': 16, 'f32': 32, 'f64': 64}

# narrow target formats that are not FPS entries
EXTRA_FMT = {'tf32': (8, 10), 'e4m3': (4, 3), 'e5m2': (5, 2)}


def _fmt(name):
    if name in FPS:
        return FPS[name]
    fp = FP.__new__(FP)
    fp.name = name
    fp.e, fp.m = EXTRA_FMT[name]
    fp.bits = 1 + fp.e + fp.m
    fp.bias = (1 << (fp.e - 1)) - 1
    fp.emax_field = (1 << fp.e) - 1
    return fp


def int_range(t):
    w = tbits(t)
    if t[0] == 's':
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return 0, (1 << w) - 1


def halfway_rows(src, dst, key, count):
    """Source values at, just above and just below the rounding boundaries of
    the destination format (ties, quarter points) for every exponent range."""
    R = rng_for('half', key, src, dst)
    S = FPS[src]
    D = _fmt(dst)
    rows = []
    fracs = [0.5, 0.5, 0.5, 0.25, 0.75, 0.5 + 2.0 ** -4, 0.5 - 2.0 ** -4, 1.0 - 2.0 ** -3, 2.0 ** -3]
    tries = 0
    while len(rows) < count and tries < count * 20:
        tries += 1
        s = R.getrandbits(1)
        e = R.choice([0, 1, R.randint(0, D.emax_field - 1), R.randint(0, D.emax_field - 1),
                      D.emax_field - 1, D.bias, D.bias + 1])
        m = R.getrandbits(D.m)
        b = D.make(s, e, m)
        v = D.decode(b)
        if math.isinf(v) or math.isnan(v):
            continue
        u = D.ulp_at(b)
        x = v + math.copysign(R.choice(fracs) * u, v if v != 0 else R.choice([1.0, -1.0]))
        enc = S.encode(x)
        if enc is not None:
            rows.append((enc,))
    # overflow / underflow boundaries of the destination
    top = D.decode(D.max_finite())
    utop = D.ulp_at(D.max_finite())
    lo = D.decode(D.min_denorm())
    for f in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0):
        for sg in (1.0, -1.0):
            for x in (sg * (top + f * utop), sg * lo * f, sg * (lo * (1 + f)),
                      sg * (D.decode(D.min_normal()) - f * lo)):
                enc = S.encode(x)
                if enc is None:
                    enc = S.round_nearest(x) if src != 'f64' else None
                if enc is not None:
                    rows.append((enc,))
    return rows


def int_tie_rows(it, ft, key):
    """Integers that need rounding when converted to float type ft."""
    lo, hi = int_range(it)
    p = MANT[ft]
    rows = []
    for k in range(0, 64):
        for base in ((1 << p) + 1, (1 << p) + 3, (1 << p) - 1, (1 << (p + 1)) + 1, (1 << (p + 1)) + 3,
                     (1 << p) + 2):
            for d in (0, 1, -1):
                v = (base << k) + d
                for x in (v, -v):
                    if lo <= x <= hi:
                        rows.append((x & ((1 << tbits(it)) - 1),))
    R = rng_for('itie', key)
    R.shuffle(rows)
    return rows[:120]


def f2i_rows(ft, it, key):
    """Float values around the destination integer range limits and halves."""
    S = FPS[ft]
    lo, hi = int_range(it)
    xs = [lo, hi, lo - 1, hi + 1, lo - 0.5, hi + 0.5, lo + 0.5, hi - 0.5, hi + 1.5, lo - 1.5,
          2 * (hi + 1), -2 * (hi + 1), hi + 1 - 2 ** -4, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999,
          -0.49999999, 0.50000001, 1e-30, -1e-30, 3.5, -3.5, 4.5, 0.75, -0.75]
    rows = []
    for x in xs:
        b = S.encode(float(x))
        if b is None:
            b = S.round_nearest(float(x))
        if b is None:
            continue
        for d in (0, 1, -1):
            bb = b + d
            if 0 <= bb < (1 << S.bits):
                rows.append((bb,))
    R = rng_for('f2i', key)
    for _ in range(40):
        rows.append((S.rand(R, 'nearint'),))
    return rows


def cvt_forms(n=256):
    L = []
    seen = set()
    cur = ['cvt_int']   # module the next forms go to

    def F(fid, body, ins, outs, **kw):
        if fid in seen:
            return
        seen.add(fid)
        kw.setdefault('n', n)
        L.append(Form(fid, cur[0], body, ins, outs, opcode='cvt', **kw))

    def cv(mods, dt, at, extra=None, nn=None):
        q = '.'.join(['cvt'] + [m for m in mods if m] + [dt, at])
        # 8-bit results: the whole 16-bit destination register is stored; the
        # ISA defines it (sign-extended for .s8, zero-extended for .u8).
        ot = {'u8': 'u16', 's8': 's16'}.get(dt, dt)
        note = ('8-bit result stored as the full 16-bit destination register (sign/zero-extended '
                'per ISA 9.4.1)') if dt in ('u8', 's8') else None
        if at == 'bf16' and dt == 'f32':
            note = 'ISA: for cvt.f32.bf16 a NaN input yields an unspecified NaN'
        F(q.replace('.', '_'), q + ' {d}, {a};', [('a', at)], [('d', ot)], extra=extra, n=nn or n, note=note)

    def sat_possible(dt, at):
        # ISA: .sat is illegal where the destination range contains the source range
        dl, dh = int_range(dt)
        sl, sh = int_range(at)
        return sl < dl or sh > dh

    # int -> int
    for dt in INTS:
        for at in INTS:
            cv([], dt, at)
            if sat_possible(dt, at):
                cv(['sat'], dt, at)
    # int -> float
    cur[0] = 'cvt_i2f'
    for ft in FLTS:
        for it in INTS:
            ex = int_tie_rows(it, ft, ft + it)
            for r in RND:
                cv([r], ft, it, extra=ex)
    for (ft, it) in (('f32', 's32'), ('f32', 'u32'), ('f64', 's64'), ('f16', 's32')):
        cv(['rn', 'sat'], ft, it)
    # float -> int
    cur[0] = 'cvt_f2i'
    for ft in FLTS:
        for it in INTS:
            ex = f2i_rows(ft, it, ft + it)
            for r in IRND:
                cv([r], it, ft, extra=ex)
                if ft == 'f32':
                    cv([r, 'ftz'], it, ft, extra=ex)
            # .sat is illegal where the destination range contains the source
            # range; f16's finite range (+-65504) fits in s32/s64, so skip those
            if not (ft == 'f16' and it in ('s32', 's64')):
                cv(['rzi', 'sat'], it, ft, extra=ex)
    # float -> float, narrowing (rounding mandatory)
    cur[0] = 'cvt_f2f'
    for (dt, at) in (('f16', 'f32'), ('bf16', 'f32'), ('f32', 'f64'), ('f16', 'f64'), ('bf16', 'f64'),
                     ('bf16', 'f16'), ('f16', 'bf16')):
        ex = halfway_rows(at, dt, 'nar', 110)
        nn = 512
        for r in RND:
            cv([r], dt, at, extra=ex, nn=nn)
            if 'f32' in (dt, at):
                cv([r, 'ftz'], dt, at, extra=ex, nn=nn)
            if dt in ('f16', 'f32') and at in ('f32', 'f64'):
                cv([r, 'sat'], dt, at, extra=ex, nn=nn)
        if dt in ('f16', 'f32') and at in ('f32', 'f64'):
            cv(['rn', 'ftz', 'sat'], dt, at, extra=ex, nn=nn)
    # float -> float, widening (exact)
    for (dt, at) in (('f32', 'f16'), ('f64', 'f16'), ('f64', 'f32'), ('f32', 'bf16'), ('f64', 'bf16')):
        cv([], dt, at)
        if 'f32' in (dt, at):
            cv(['ftz'], dt, at)
    cv(['sat'], 'f64', 'f32')
    cv(['ftz', 'sat'], 'f64', 'f32')
    # float -> same float: round to integral value, ftz, sat
    for ft in FLTS:
        ex = f2i_rows(ft, 's32', 'same' + ft)
        for r in IRND:
            cv([r], ft, ft, extra=ex)
            if ft == 'f32':
                cv([r, 'ftz'], ft, ft, extra=ex)
    cv(['ftz'], 'f32', 'f32')
    cv(['sat'], 'f32', 'f32')
    cv(['ftz', 'sat'], 'f32', 'f32')
    cv(['rni', 'sat'], 'f32', 'f32')
    cv(['sat'], 'f64', 'f64')

    # .relu / .satfinite narrowing to f16/bf16 (scalar and x2)
    cur[0] = 'cvt_pack'
    for dt in ('f16', 'bf16'):
        ex = halfway_rows('f32', dt, 'relu', 110)
        for r in ('rn', 'rz'):
            for relu in ('', 'relu'):
                for sf in ('', 'satfinite'):
                    mods = [r, relu, sf]
                    q = '.'.join(['cvt'] + [m for m in mods if m] + [dt, 'f32'])
                    F(q.replace('.', '_'), q + ' {d}, {a};', [('a', 'f32')], [('d', dt)], extra=ex, n=512)
                    q2 = '.'.join(['cvt'] + [m for m in mods if m] + [dt + 'x2', 'f32'])
                    F(q2.replace('.', '_'), q2 + ' {d}, {a}, {b};', [('a', 'f32'), ('b', 'f32')],
                      [('d', dt + 'x2')], n=512)
    # tf32
    ex = halfway_rows('f32', 'tf32', 'tf32', 120)
    # (.rn/.rz with .satfinite need sm_100; .relu with .rn/.rz is sm_90)
    for mods in (['rna'], ['rna', 'satfinite'], ['rn'], ['rz'], ['rn', 'relu'], ['rz', 'relu']):
        q = '.'.join(['cvt'] + mods + ['tf32', 'f32'])
        F(q.replace('.', '_'), q + ' {d}, {a};', [('a', 'f32')], [('d', 'b32')], extra=ex, n=512)
    # fp8 (e4m3 / e5m2) pairs
    for f8 in ('e4m3', 'e5m2'):
        exf = halfway_rows('f32', f8, f8, 120)
        exh = halfway_rows('f16', f8, f8 + 'h', 120)
        for relu in ('', 'relu'):
            mods = ['rn', 'satfinite'] + ([relu] if relu else [])
            q = '.'.join(['cvt'] + mods + [f8 + 'x2', 'f32'])
            F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', 'f32'), ('b', 'f32')], [('d', 'b16')],
              extra=[(r[0], r2[0]) for r, r2 in zip(exf, exf[1:] + exf[:1])], n=512)
            q = '.'.join(['cvt'] + mods + [f8 + 'x2', 'f16x2'])
            F(q.replace('.', '_'), q + ' {d}, {a};', [('a', 'f16x2')], [('d', 'b16')],
              extra=[((r[0] << 16) | r2[0],) for r, r2 in zip(exh, exh[3:] + exh[:3])], n=512)
            mods = ['rn'] + ([relu] if relu else [])
            q = '.'.join(['cvt'] + mods + ['f16x2', f8 + 'x2'])
            F(q.replace('.', '_'), q + ' {d}, {a};', [('a', 'b16')], [('d', 'f16x2')],
              vecgen=lambda form: {'a': [(i | (((i * 37 + 11) & 0xff) << 8)) for i in range(256)]})
    # cvt.pack
    pack_edges = [0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, -32768, -32769,
                  7, 8, 15, 16, -8, -9, 3, 4, -2, -3, 0x7fffffff, -0x80000000, 1000, -1000]
    pack_edges = [x & 0xffffffff for x in pack_edges]
    R = rng_for('pack')
    rows2 = [(a, b) for a in pack_edges for b in pack_edges[:12]]
    rows3 = [(a, b, R.getrandbits(32)) for a in pack_edges for b in pack_edges[:8]]
    for ct in ('u16', 's16'):
        q = 'cvt.pack.sat.%s.s32' % ct
        F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', 's32'), ('b', 's32')], [('d', 'b32')],
          extra=rows2, n=512)
    for ct in ('u8', 's8', 'u4', 's4', 'u2', 's2'):
        q = 'cvt.pack.sat.%s.s32.b32' % ct
        F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', [('a', 's32'), ('b', 's32'), ('c', 'b32')],
          [('d', 'b32')], extra=rows3, n=512)
    return L
