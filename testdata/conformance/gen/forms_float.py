"""f32 ('f32'), f64 ('f64') and half-precision ('half') arithmetic families."""

import math
import struct

from ptxgen import Form
from vectors import FPS, rng_for

RND = ['rn', 'rz', 'rm', 'rp']

# Error bounds for approximate instructions, as stated on the PTX ISA pages
# (see README.md: bounds marked "unverified" were not confirmed against the
# ISA text while this generator was written).  A result passes when it is
# within any one of the given bounds; special results (NaN, +-inf, +-0 and
# flushed subnormals) must match exactly.
PI = math.pi
TOL = {
    'div.approx.f32': {'ulp': 2, 'domain_note': '|b| in [2^-126, 2^126]; for 2^126 < |b| < 2^128 the '
                       'result is NaN if a is infinite, else a sign-preserving zero'},
    'div.full.f32': {'ulp': 2},
    'rcp.approx.f32': {'ulp': 1},
    'rcp.approx.ftz.f64': {'rel': 2.0 ** -18, 'unverified': True,
                           'note': 'ISA: "fast, gross approximation" on the upper 32 bits (1.11.20 '
                                   'format, 20 mantissa bits of a used); low 32 bits of d are zero; '
                                   'NaN -> 0x7fffffff00000000; no numeric bound is stated'},
    'sqrt.approx.f32': {'rel': 2.0 ** -23},
    'rsqrt.approx.f32': {'rel': 2.0 ** -22.9},
    'rsqrt.approx.f64': {'rel': 2.0 ** -22.9, 'unverified': True,
                         'note': 'ISA states the 2^-22.9 bound for rsqrt.f32 only; rsqrt.approx.f64 '
                                 'is emulated in software'},
    'rsqrt.approx.ftz.f64': {'rel': 2.0 ** -18, 'unverified': True,
                             'note': 'ISA: computed on the upper 32 bits (1.11.20); low 32 bits of d '
                                     'are zero; NaN -> 0x7fffffff00000000; no numeric bound stated'},
    'sin.approx.f32': {'abs': 2.0 ** -20.5, 'domain': [-2 * PI, 2 * PI],
                       'note': 'ISA: max abs error 2^-20.5 on [-2pi, 2pi], 2^-14.7 on [-100pi, 100pi], '
                               'no bound outside'},
    'sin.approx.f32@100pi': {'abs': 2.0 ** -14.7, 'domain': [-100 * PI, 100 * PI],
                             'note': 'ISA: max abs error 2^-14.7 on [-100pi, 100pi]'},
    'cos.approx.f32': {'abs': 2.0 ** -20.5, 'domain': [-2 * PI, 2 * PI],
                       'note': 'ISA: max abs error 2^-20.5 on [-2pi, 2pi], 2^-14.7 on [-100pi, 100pi], '
                               'no bound outside'},
    'cos.approx.f32@100pi': {'abs': 2.0 ** -14.7, 'domain': [-100 * PI, 100 * PI],
                             'note': 'ISA: max abs error 2^-14.7 on [-100pi, 100pi]'},
    'lg2.approx.f32': {'abs': 2.0 ** -22, 'rel': 2.0 ** -22,
                       'bounds': [{'abs': 2.0 ** -22, 'domain': [0.5, 2.0]},
                                  {'rel': 2.0 ** -22, 'domain': 'positive finite outside (0.5, 2)'}]},
    'ex2.approx.f32': {'ulp': 2, 'from_correctly_rounded': True},
    'tanh.approx.f32': {'rel': 2.0 ** -11},
    'tanh.approx.f16': {'abs': 2.0 ** -10.987},
    'tanh.approx.bf16': {'abs': 2.0 ** -8},
    'ex2.approx.f16': {'rel': 2.0 ** -9.9},
    'ex2.approx.bf16': {'rel': 2.0 ** -7},
}


def f32_round(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def ranged(t, lo, hi, count, key, log=False):
    """Rows of random values of float type t uniformly in [lo, hi] (log scale if log)."""
    R = rng_for('range', key)
    fp = FPS[t]
    out = []
    for _ in range(count):
        if log:
            x = math.exp(R.uniform(math.log(lo), math.log(hi)))
        else:
            x = R.uniform(lo, hi)
        b = fp.round_nearest(x) if t != 'f64' else fp.encode(x)
        if b is not None:
            out.append((b,))
    return out


def domain_vecgen(t, lo, hi, key, n):
    """Inputs in [lo, hi] plus the non-finite/zero/subnormal specials."""
    fp = FPS[t]
    vals = []
    for b in fp.edges():
        x = fp.decode(b)
        if not fp.is_finite(b) or x == 0 or (lo <= x <= hi) or fp.fields(b)[1] == 0:
            vals.append(b)
    vals = list(dict.fromkeys(vals))
    vals += [r[0] for r in ranged(t, lo, hi, n, key)]
    vals += [r[0] for r in ranged(t, 1e-6, min(hi, 1.0), n // 8, key + 'small', log=True)]
    vals = vals[:n]
    R = rng_for('dom', key)
    while len(vals) < n:
        vals.append(fp.round_nearest(R.uniform(lo, hi)))
    return lambda form: {'a': vals}


def fma_rows(t, key, count=48):
    """(a, b, c) with c = -round(a*b): fma exposes the unrounded product."""
    R = rng_for('fma', key)
    fp = FPS[t]
    rows = []
    for _ in range(count):
        a = fp.rand(R, 'reasonable')
        b = fp.rand(R, 'reasonable')
        x = fp.decode(a) * fp.decode(b)
        if t == 'f32':
            try:
                c = f32_round(-x)
            except OverflowError:
                continue
        elif t == 'f64':
            c = fp.encode(-x)
        else:
            c = fp.round_nearest(-x)
        if c is not None:
            rows.append((a, b, c))
    # ties and near-ties around 1: (1 + k ulp)(1 + j ulp) + c
    one = fp.encode(1.0)
    for k in (1, 2, 3):
        for j in (1, 2, 3):
            rows.append((one + k, one + j, fp.encode(-1.0)))
            rows.append((one + k, fp.encode(-1.0) + j, one))
    return rows


def mul_rows(t, key, count=40):
    """(a, b) whose exact product is a rounding tie or a near-tie: (1+k*2^-i)(1+j*2^-i')
    puts k*j at the half-ulp position of 1.0, scaled by random powers of two."""
    R = rng_for('mulr', key)
    fp = FPS[t]
    m = fp.m
    i1, i2 = (m + 1) // 2, (m + 1) - (m + 1) // 2
    rows = []
    for _ in range(count):
        k, j = R.choice([1, 3, 5, 7]), R.choice([1, 3, 5, 7, 2])
        ea, eb = R.randint(-8, 8), R.randint(-8, 8)
        sa, sb = R.choice([1.0, -1.0]), R.choice([1.0, -1.0])
        a = fp.encode(sa * math.ldexp(1.0 + k * 2.0 ** -i1, ea))
        b = fp.encode(sb * math.ldexp(1.0 + j * 2.0 ** -i2, eb))
        if a is not None and b is not None:
            rows.append((a, b))
    return rows


def add_rows(t, key, count=40):
    """(a, b) pairs where a + b needs rounding at each mode: b is a fraction of ulp(a)."""
    R = rng_for('addr', key)
    fp = FPS[t]
    rows = []
    for _ in range(count):
        a = fp.rand(R, 'reasonable')
        ua = fp.ulp_at(a)
        frac = R.choice([0.5, 0.25, 0.75, 0.5 + 2.0 ** -6, 0.5 - 2.0 ** -6, 1.5, 0.125])
        sign = R.choice([1.0, -1.0])
        b = fp.encode(sign * frac * ua)
        if b is not None:
            rows.append((a, b))
    return rows


def f32_forms(n=512):
    fam = 'f32'
    L = []
    t = 'f32'

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, **kw))

    for op in ('add', 'sub', 'mul'):
        rows = add_rows(t, op) if op != 'mul' else mul_rows(t, op)
        for rnd in [''] + RND:
            for ftz in ('', 'ftz'):
                for sat in ('', 'sat'):
                    q = '.'.join(x for x in (op, rnd, ftz, sat, t) if x)
                    F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)],
                      extra=rows)
    for op in ('fma', 'mad'):
        rows = fma_rows(t, op)
        for rnd in RND:
            for ftz in ('', 'ftz'):
                for sat in ('', 'sat'):
                    q = '.'.join(x for x in (op, rnd, ftz, sat, t) if x)
                    F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', [('a', t), ('b', t), ('c', t)],
                      [('d', t)], extra=rows)
    for ftz in ('', 'ftz'):
        for kind in ['approx', 'full'] + RND:
            q = '.'.join(x for x in ('div', kind, ftz, t) if x)
            ap = kind in ('approx', 'full')
            F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)],
              approx=ap, tol=TOL.get('div.%s.f32' % kind) if ap else None)
        for op in ('rcp', 'sqrt'):
            for kind in ['approx'] + RND:
                q = '.'.join(x for x in (op, kind, ftz, t) if x)
                ap = kind == 'approx'
                extra = ranged(t, 1e-3, 1e3, 40, q, log=True)
                F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256,
                  approx=ap, tol=TOL.get('%s.approx.f32' % op) if ap else None, extra=extra)
        q = '.'.join(x for x in ('rsqrt', 'approx', ftz, t) if x)
        F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
          tol=TOL['rsqrt.approx.f32'], extra=ranged(t, 1e-3, 1e3, 40, q, log=True))
        for op, lo, hi in (('lg2', 1e-30, 1e30), ('ex2', -140.0, 130.0)):
            q = '.'.join(x for x in (op, 'approx', ftz, t) if x)
            extra = ranged(t, lo, hi, 100, q, log=(op == 'lg2'))
            F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
              tol=TOL['%s.approx.f32' % op], extra=extra)
        # sin/cos: inputs restricted to the domain of each ISA bound (plus
        # specials, whose results are exact); outside [-100pi, 100pi] the ISA
        # gives no bound, so those inputs are not part of the suite.
        for op in ('sin', 'cos'):
            q = '.'.join(x for x in (op, 'approx', ftz, t) if x)
            for suffix, lim in (('', 2 * PI), ('_r100pi', 100 * PI)):
                key = '%s.approx.f32%s' % (op, '@100pi' if suffix else '')
                F(q.replace('.', '_') + suffix, q + ' {d}, {a};', [('a', t)], [('d', t)], n=256,
                  approx=True, tol=TOL[key], vecgen=domain_vecgen(t, -lim, lim, q + suffix, 256))
    F('tanh_approx_f32', 'tanh.approx.f32 {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
      tol=TOL['tanh.approx.f32'], extra=ranged(t, -12.0, 12.0, 100, 'tanh'))
    for op in ('min', 'max'):
        for ftz in ('', 'ftz'):
            for nan in ('', 'NaN'):
                for xs in ('', 'xorsign.abs'):
                    q = '.'.join(x for x in (op, ftz, nan, xs, t) if x)
                    F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)])
    for op in ('abs', 'neg'):
        for ftz in ('', 'ftz'):
            q = '.'.join(x for x in (op, ftz, t) if x)
            F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256)
    F('copysign_f32', 'copysign.f32 {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)])
    for op in ('finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal'):
        F('testp_%s_f32' % op, 'testp.%s.f32 {p}, {a};' % op, [('a', t)], [('p', 'pred')], n=256)
    return L


def f64_forms(n=512):
    fam = 'f64'
    L = []
    t = 'f64'

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, **kw))

    for op in ('add', 'sub', 'mul'):
        rows = add_rows(t, op) if op != 'mul' else mul_rows(t, op)
        for rnd in [''] + RND:
            q = '.'.join(x for x in (op, rnd, t) if x)
            F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)], extra=rows)
    for op in ('fma', 'mad'):
        rows = fma_rows(t, op)
        for rnd in RND:
            q = '%s.%s.f64' % (op, rnd)
            F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', [('a', t), ('b', t), ('c', t)],
              [('d', t)], extra=rows)
    for rnd in RND:
        F('div_%s_f64' % rnd, 'div.%s.f64 {d}, {a}, {b};' % rnd, [('a', t), ('b', t)], [('d', t)])
        for op in ('rcp', 'sqrt'):
            F('%s_%s_f64' % (op, rnd), '%s.%s.f64 {d}, {a};' % (op, rnd), [('a', t)], [('d', t)], n=256,
              extra=ranged(t, 1e-5, 1e5, 40, op + rnd, log=True))
    F('rcp_approx_ftz_f64', 'rcp.approx.ftz.f64 {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
      tol=TOL['rcp.approx.ftz.f64'], extra=ranged(t, 1e-5, 1e5, 60, 'rcpa', log=True))
    for ftz in ('', 'ftz'):
        q = '.'.join(x for x in ('rsqrt', 'approx', ftz, t) if x)
        F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
          tol=TOL[q], extra=ranged(t, 1e-5, 1e5, 60, q, log=True))
    for op in ('min', 'max'):
        F('%s_f64' % op, '%s.f64 {d}, {a}, {b};' % op, [('a', t), ('b', t)], [('d', t)])
    for op in ('abs', 'neg'):
        F('%s_f64' % op, '%s.f64 {d}, {a};' % op, [('a', t)], [('d', t)], n=256)
    F('copysign_f64', 'copysign.f64 {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)])
    for op in ('finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal'):
        F('testp_%s_f64' % op, 'testp.%s.f64 {p}, {a};' % op, [('a', t)], [('p', 'pred')], n=256)
    return L


def half_forms(n=512):
    fam = 'half'
    L = []

    def F(fid, body, ins, outs, **kw):
        kw.setdefault('n', n)
        L.append(Form(fid, fam, body, ins, outs, **kw))

    def q_(*parts):
        return '.'.join(x for x in parts if x)

    for op in ('add', 'sub', 'mul'):
        for t in ('f16', 'f16x2'):
            rows = (add_rows('f16', op + t) if op != 'mul' else mul_rows('f16', op + t)) if t == 'f16' else None
            for rnd in ('', 'rn'):
                for ftz in ('', 'ftz'):
                    for sat in ('', 'sat'):
                        q = q_(op, rnd, ftz, sat, t)
                        F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)],
                          extra=rows)
        for t in ('bf16', 'bf16x2'):
            rows = (add_rows('bf16', op + t) if op != 'mul' else mul_rows('bf16', op + t)) if t == 'bf16' else None
            for rnd in ('', 'rn'):
                q = q_(op, rnd, t)
                F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)], extra=rows)
    abc = lambda t: [('a', t), ('b', t), ('c', t)]
    for t in ('f16', 'f16x2'):
        rows = fma_rows('f16', 'fma' + t) if t == 'f16' else None
        for ftz in ('', 'ftz'):
            for sat in ('', 'sat'):
                q = q_('fma', 'rn', ftz, sat, t)
                F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', abc(t), [('d', t)], extra=rows)
            q = q_('fma', 'rn', ftz, 'relu', t)
            F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', abc(t), [('d', t)], extra=rows)
    for t in ('bf16', 'bf16x2'):
        rows = fma_rows('bf16', 'fma' + t) if t == 'bf16' else None
        for relu in ('', 'relu'):
            q = q_('fma', 'rn', relu, t)
            F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', abc(t), [('d', t)], extra=rows)
    for t in ('f16', 'f16x2', 'bf16', 'bf16x2'):
        for relu in ('', 'relu'):
            q = q_('fma', 'rn', 'oob', relu, t)
            F(q.replace('.', '_'), q + ' {d}, {a}, {b}, {c};', abc(t), [('d', t)])
    for op in ('min', 'max'):
        for t in ('f16', 'f16x2'):
            for ftz in ('', 'ftz'):
                for nan in ('', 'NaN'):
                    for xs in ('', 'xorsign.abs'):
                        q = q_(op, ftz, nan, xs, t)
                        F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)])
        for t in ('bf16', 'bf16x2'):
            for nan in ('', 'NaN'):
                for xs in ('', 'xorsign.abs'):
                    q = q_(op, nan, xs, t)
                    F(q.replace('.', '_'), q + ' {d}, {a}, {b};', [('a', t), ('b', t)], [('d', t)])
    for op in ('neg', 'abs'):
        for t in ('f16', 'f16x2'):
            for ftz in ('', 'ftz'):
                q = q_(op, ftz, t)
                F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256)
        for t in ('bf16', 'bf16x2'):
            q = q_(op, t)
            F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256)
    for t in ('f16', 'f16x2', 'bf16', 'bf16x2'):
        et = 'bf16' if t.startswith('bf') else 'f16'
        q = q_('ex2', 'approx', 'ftz' if et == 'bf16' else '', t)
        ex = ranged(et, -30.0, 20.0, 80, q) if t in ('f16', 'bf16') else None
        F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
          tol=TOL['ex2.approx.%s' % et], extra=ex)
        q = q_('tanh', 'approx', t)
        ex = ranged(et, -8.0, 8.0, 80, q) if t in ('f16', 'bf16') else None
        F(q.replace('.', '_'), q + ' {d}, {a};', [('a', t)], [('d', t)], n=256, approx=True,
          tol=TOL['tanh.approx.%s' % et], extra=ex)
    return L
