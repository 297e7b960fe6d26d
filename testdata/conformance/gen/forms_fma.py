"""FMA-contraction probes (families 'fma_f32', 'fma_f64', 'fma_half').

PTX lets the code generator fuse a `mul` and an `add`/`sub` that carry no
rounding modifier into one fused multiply-add; ptxas does so, and the GPU's
result then has one rounding where the PTX, read literally, has two. Each
probe here is a small arrangement of such a pair (same basic block or not,
the product used once or several times, as either operand, negated, .ftz /
.sat, immediates, chains, rounding modifiers on one or both sides) in f32,
f64, f16, f16x2, bf16 and bf16x2. The input vectors are chosen so that single
and double rounding give different bits (c = -round(a*b), offsets, products
near 1, subnormal products for .ftz), and the SASS of every probe is recorded
(sass/<family>.sass, forms.json "sass"), so the contraction rule can be read
off: FFMA/DFMA/HFMA2 where ptxas fused, FMUL+FADD where it did not.

Operands: a, b, c, e (the probe's type), p (a predicate); outputs d, d2.
"""

import math
import re
import struct

import numpy as np

from ptxgen import Form
from vectors import rng_for

N = 128

# type -> (family, register width, mov type, PTX immediates -1.0, 1.0, 4/3 or None)
TYPES = {
    'f32': ('fma_f32', 32, 'b32', ('0fBF800000', '0f3F800000', '0f3FAAAAAB')),
    'f64': ('fma_f64', 64, 'b64', ('0dBFF0000000000000', '0d3FF0000000000000', '0d3FF5555555555555')),
    'f16': ('fma_half', 16, 'b16', None),
    'f16x2': ('fma_half', 32, 'b32', None),
    'bf16': ('fma_half', 16, 'b16', None),
    'bf16x2': ('fma_half', 32, 'b32', None),
}
F, D, H, H2, B, B2 = 'f32', 'f64', 'f16', 'f16x2', 'bf16', 'bf16x2'
ALL = (F, D, H, H2, B, B2)

# (id, PTX lines, types, what it asks)
# Tokens: T the type, W the register width's mov type, IMM_M1 / IMM_1 / IMM_43
# the immediates -1.0, 1.0, 4/3. Placeholders: {a} {b} {c} {e} {p} inputs,
# {d} {d2} outputs, {t} {u} {x} temporaries of the type, {k} a u32 temp,
# {q} a predicate temp.
PROBES = [
    ('add_tc', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};'], ALL,
     'product as the first add operand, same block, one use'),
    ('add_ct', ['mul.T {t}, {a}, {b};', 'add.T {d}, {c}, {t};'], ALL,
     'product as the second add operand'),
    ('sub_tc', ['mul.T {t}, {a}, {b};', 'sub.T {d}, {t}, {c};'], ALL,
     'product as the minuend'),
    ('sub_ct', ['mul.T {t}, {a}, {b};', 'sub.T {d}, {c}, {t};'], ALL,
     'product as the subtrahend (a[i] -= m * a[j])'),
    ('neg_add', ['mul.T {t}, {a}, {b};', 'neg.T {u}, {t};', 'add.T {d}, {u}, {c};'], (F, D, H, H2, B),
     'neg of the product, then add'),
    ('neg_sub', ['mul.T {t}, {a}, {b};', 'neg.T {u}, {t};', 'sub.T {d}, {c}, {u};'], (F, D, H),
     'neg of the product, then subtracted'),
    ('negop_add', ['neg.T {u}, {a};', 'mul.T {t}, {u}, {b};', 'add.T {d}, {t}, {c};'], (F, D),
     'negated multiplicand'),
    ('two_adds', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'add.T {d2}, {t}, {e};'], ALL,
     'product used by two adds'),
    ('add_sub', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'sub.T {d2}, {e}, {t};'], (F, D, H),
     'product used by an add and a sub'),
    ('add_store', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'mov.W {d2}, {t};'], ALL,
     'product used by an add and also stored'),
    ('add_mul', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'mul.T {d2}, {t}, {e};'], (F, D, H),
     'product used by an add and by another mul'),
    ('chain', ['mul.T {t}, {a}, {b};', 'add.T {u}, {t}, {c};', 'add.T {d}, {u}, {e};'], (F, D, H, H2),
     'mul -> add -> add'),
    ('mulmul_add', ['mul.T {t}, {a}, {b};', 'mul.T {u}, {t}, {c};', 'add.T {d}, {u}, {e};'], (F, D),
     'product of a product, then add'),
    ('two_products_add', ['mul.T {t}, {a}, {b};', 'mul.T {u}, {c}, {e};', 'add.T {d}, {t}, {u};'],
     (F, D, H), 'sum of two products: which one is fused'),
    ('two_products_sub', ['mul.T {t}, {a}, {b};', 'mul.T {u}, {c}, {e};', 'sub.T {d}, {t}, {u};'],
     (F, D), 'difference of two products'),
    ('two_products_add_rev', ['mul.T {u}, {c}, {e};', 'mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {u};'],
     (F, D), 'sum of two products, the first add operand defined second'),
    ('two_products_sub_rev', ['mul.T {u}, {c}, {e};', 'mul.T {t}, {a}, {b};', 'sub.T {d}, {u}, {t};'],
     (F, D), 'difference of two products, the product defined first is the minuend'),
    ('bb_bra', ['mul.T {t}, {a}, {b};', 'bra.uni $L_f1;', '$L_f1:', 'add.T {d}, {t}, {c};'], (F, D, H, H2),
     'add in the next basic block (unconditional branch)'),
    ('bb_cond', ['mul.T {t}, {a}, {b};', '@{p} bra $L_f1;', 'add.T {d}, {t}, {c};', 'bra.uni $L_f2;',
                 '$L_f1:', 'sub.T {d}, {t}, {c};', '$L_f2:'], (F, D, H, H2, B),
     'mul before a divergent branch, add on one side and sub on the other'),
    ('bb_one_side', ['mul.T {t}, {a}, {b};', 'mov.W {d}, {c};', '@{p} bra $L_f1;', 'add.T {d}, {t}, {c};',
                     '$L_f1:'], (F, D), 'product used only on one side of a branch'),
    ('bb_loop', ['mul.T {t}, {a}, {b};', 'mov.W {d}, {c};', 'selp.u32 {k}, 3, 2, {p};', '$L_f1:',
                 'add.T {d}, {d}, {t};', 'sub.u32 {k}, {k}, 1;', 'setp.ne.u32 {q}, {k}, 0;', '@{q} bra $L_f1;'],
     (F, D), 'loop-invariant product added inside a loop (2 or 3 trips)'),
    ('bb_join', ['mul.T {t}, {a}, {b};', '@{p} bra $L_f1;', 'mov.W {x}, {e};', 'bra.uni $L_f2;', '$L_f1:',
                 'mov.W {x}, {c};', '$L_f2:', 'add.T {d}, {t}, {x};'], (F, D),
     'mul before a branch, add after the join'),
    ('pred_add', ['mul.T {t}, {a}, {b};', 'mov.W {d}, {c};', '@{p} add.T {d}, {t}, {c};'], (F, D, H),
     'predicated add'),
    ('rn_mul', ['mul.rn.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};'], (F, D, H, B), 'mul.rn + add'),
    ('rn_add', ['mul.T {t}, {a}, {b};', 'add.rn.T {d}, {t}, {c};'], (F, D, H, B), 'mul + add.rn'),
    ('rn_both', ['mul.rn.T {t}, {a}, {b};', 'add.rn.T {d}, {t}, {c};'], (F, D, H), 'mul.rn + add.rn'),
    ('rz_both', ['mul.rz.T {t}, {a}, {b};', 'add.rz.T {d}, {t}, {c};'], (F, D), 'mul.rz + add.rz'),
    ('rm_mul', ['mul.rm.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};'], (F, D), 'mul.rm + add'),
    ('rp_add', ['mul.T {t}, {a}, {b};', 'add.rp.T {d}, {t}, {c};'], (F, D), 'mul + add.rp'),
    ('rz_mul_rn_add', ['mul.rz.T {t}, {a}, {b};', 'add.rn.T {d}, {t}, {c};'], (F,), 'mul.rz + add.rn'),
    ('ftz_both', ['mul.ftz.T {t}, {a}, {b};', 'add.ftz.T {d}, {t}, {c};'], (F, H, H2), 'mul.ftz + add.ftz'),
    ('ftz_mul', ['mul.ftz.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};'], (F, H), 'mul.ftz + add'),
    ('ftz_add', ['mul.T {t}, {a}, {b};', 'add.ftz.T {d}, {t}, {c};'], (F, H), 'mul + add.ftz'),
    ('sat_mul', ['mul.sat.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};'], (F, H), 'mul.sat + add'),
    ('sat_add', ['mul.T {t}, {a}, {b};', 'add.sat.T {d}, {t}, {c};'], (F, H), 'mul + add.sat'),
    ('sat_both', ['mul.sat.T {t}, {a}, {b};', 'add.sat.T {d}, {t}, {c};'], (F, H, H2), 'mul.sat + add.sat'),
    ('ftz_sat_both', ['mul.ftz.sat.T {t}, {a}, {b};', 'add.ftz.sat.T {d}, {t}, {c};'], (F, H),
     'mul.ftz.sat + add.ftz.sat'),
    ('ftz_sat_add', ['mul.ftz.T {t}, {a}, {b};', 'add.ftz.sat.T {d}, {t}, {c};'], (F, H),
     'mul.ftz + add.ftz.sat'),
    ('ftz_two_adds_mixed', ['mul.ftz.T {t}, {a}, {b};', 'add.ftz.T {d}, {t}, {c};', 'add.T {d2}, {t}, {e};'],
     (F,), 'mul.ftz used by add.ftz and by a plain add'),
    ('imm_add', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, IMM_M1;'], (F, D), 'add of an immediate (-1.0)'),
    ('imm_mul', ['mul.T {t}, {a}, IMM_43;', 'add.T {d}, {t}, {c};'], (F, D), 'mul by an immediate (4/3)'),
    ('imm_both', ['mul.T {t}, {a}, IMM_43;', 'add.T {d}, {t}, IMM_M1;'], (F, D), 'both immediates'),
    ('imm_sub_minuend', ['mul.T {t}, {a}, {b};', 'sub.T {d}, IMM_1, {t};'], (F, D), '1.0 - a*b'),
    ('abs_add', ['mul.T {t}, {a}, {b};', 'abs.T {u}, {t};', 'add.T {d}, {u}, {c};'], (F, D, H),
     'abs of the product, then add'),
    ('mov_between', ['mul.T {t}, {a}, {b};', 'mov.W {u}, {t};', 'add.T {d}, {u}, {c};'], (F, D, H),
     'a mov between mul and add'),
    ('add_then_mul', ['add.T {t}, {a}, {b};', 'mul.T {d}, {t}, {c};'], (F, D),
     'control: add then mul (nothing to contract)'),
    ('fma_explicit', ['fma.rn.T {d}, {a}, {b}, {c};'], (F, D, H), 'control: fma.rn'),
    ('mad_plain', ['mad.T {d}, {a}, {b}, {c};'], (F, D), 'mad without a rounding modifier'),
    ('mad_rn', ['mad.rn.T {d}, {a}, {b}, {c};'], (F, D), 'mad.rn'),
    ('square_add', ['mul.T {t}, {a}, {a};', 'add.T {d}, {t}, {c};'], (F, D), 'square plus c'),
    ('add_self', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {t};'], (F, D), 'product added to itself'),
    ('max_use', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'max.T {d2}, {t}, {e};'], (F, D),
     'product used by an add and by max'),
    ('sub_chain', ['mul.T {t}, {a}, {b};', 'sub.T {u}, {c}, {t};', 'sub.T {d}, {u}, {e};'], (F, D),
     'c - a*b - e'),
    ('dist_sq', ['sub.T {x}, {a}, {c};', 'mul.T {t}, {x}, {x};', 'add.T {d}, {t}, {e};'], (F, D),
     'squared difference accumulated (k-means distance)'),
    ('second_use_bb', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'mov.W {d2}, {e};', '@{p} bra $L_f1;',
                       'add.T {d2}, {t}, {e};', '$L_f1:'], (F, D),
     'second use of the product in another basic block'),
    ('mul_both_branches', ['@{p} bra $L_f1;', 'mul.T {t}, {a}, {b};', 'bra.uni $L_f2;', '$L_f1:',
                           'mul.T {t}, {a}, {c};', '$L_f2:', 'add.T {d}, {t}, {e};'], (F, D),
     'mul on both sides of a branch, add at the join'),
    ('add_before_mul', ['add.T {u}, {c}, {e};', 'mul.T {t}, {a}, {b};', 'add.T {d}, {u}, {t};'], (F,),
     'unrelated add first, product as second operand'),
    ('setp_use', ['mul.T {t}, {a}, {b};', 'add.T {d}, {t}, {c};', 'setp.gt.T {q}, {t}, {e};',
                  'selp.T {d2}, {t}, {e}, {q};'], (F,), 'product also compared and selected'),
]

SCALE_S = {'f32': 2.0 ** -10, 'f64': 2.0 ** -20, 'f16': 2.0 ** -4, 'bf16': 2.0 ** -2}


# --------------------------------------------------------------------------
# arithmetic on raw bits (numpy, IEEE round-to-nearest-even)

def _np(t):
    return {'f32': (np.float32, np.uint32), 'f64': (np.float64, np.uint64), 'f16': (np.float16, np.uint16)}[t]


def to_val(t, bits):
    if t == 'bf16':
        return float(np.array([bits << 16], dtype=np.uint32).view(np.float32)[0])
    ft, it = _np(t)
    return float(np.array([bits], dtype=it).view(ft)[0])


def to_bits(t, v):
    """Round the float64 v to type t (nearest even) and return its bits."""
    if t == 'bf16':
        f = np.array([v], dtype=np.float64).astype(np.float32)       # exact for our uses
        b = int(f.view(np.uint32)[0])
        if (b >> 23) & 0xFF == 0xFF:
            return b >> 16 | (0x40 if b & 0x7FFFFF else 0)
        b += 0x7FFF + ((b >> 16) & 1)
        return (b >> 16) & 0xFFFF
    ft, it = _np(t)
    with np.errstate(all='ignore'):
        return int(np.array([v], dtype=np.float64).astype(ft).view(it)[0])


def rn_mul(t, x, y):
    """bits of round(x*y) in type t (x, y bits)."""
    if t == 'f64':
        ft, it = _np(t)
        with np.errstate(all='ignore'):
            r = np.array([to_val(t, x)]) * np.array([to_val(t, y)])
        return int(r.view(it)[0])
    # f32 / f16 / bf16 products are exact in float64; one rounding to t
    return to_bits(t, to_val(t, x) * to_val(t, y))


def rn_sub(t, x, y):
    if t == 'f64':
        with np.errstate(all='ignore'):
            r = np.array([to_val(t, x)]) - np.array([to_val(t, y)])
        return int(r.view(np.uint64)[0])
    return to_bits(t, to_val(t, x) - to_val(t, y))


def neg(t, x):
    return x ^ (1 << ({'f64': 63, 'f32': 31}.get(t, 15)))


def rand_val(R, t, lo=-3, hi=3):
    m = {'f64': 52, 'f32': 23, 'f16': 10, 'bf16': 7}[t]
    v = (1.0 + R.getrandbits(m) / 2.0 ** m) * 2.0 ** R.randint(lo, hi)
    return to_bits(t, -v if R.getrandbits(1) else v)


def near_one(R, t):
    m = {'f64': 52, 'f32': 23, 'f16': 10, 'bf16': 7}[t]
    k = R.randint(1, 1 << max(1, m // 2))
    return to_bits(t, 1.0 + k * 2.0 ** -m)


def specials(t):
    v = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.0]
    big = {'f64': 1.7e308, 'f32': 3.4e38, 'f16': 65504.0, 'bf16': 3.38e38}[t]
    out = [to_bits(t, x) for x in v] + [to_bits(t, big), to_bits(t, -big)]
    return out


def scalar_rows(t, key, n=N):
    """Rows (a, b, c, e, p) of raw bits for one scalar type."""
    R = rng_for('fma', t, key)
    one = to_bits(t, 1.0)
    s = to_bits(t, SCALE_S[t])
    rows = []

    def add(a, b, c, e):
        rows.append((a, b, c, e, R.getrandbits(1)))

    def small(R):
        return to_bits(t, to_val(t, rand_val(R, t)) * 2.0 ** -20) if t in ('f32', 'f64') else rand_val(R, t, -6, -3)

    for i in range(24):            # c = -round(a*b): fused leaves the rounding error
        a, b = rand_val(R, t), rand_val(R, t)
        add(a, b, neg(t, rn_mul(t, a, b)), small(R) if i % 2 else rand_val(R, t))
    for _ in range(12):            # c = +round(a*b)
        a, b = rand_val(R, t), rand_val(R, t)
        add(a, b, rn_mul(t, a, b), rand_val(R, t))
    for _ in range(12):            # c = s - round(a*b): the error survives next to s
        a, b = rand_val(R, t, -1, 0), rand_val(R, t, -1, 0)
        add(a, b, rn_sub(t, s, rn_mul(t, a, b)), rand_val(R, t))
    for _ in range(8):             # e = 1, c = -round(a*b) (sum of two products)
        a, b = rand_val(R, t), rand_val(R, t)
        add(a, b, neg(t, rn_mul(t, a, b)), one)
    for _ in range(8):             # b = 1, a = -round(c*e)
        c, e = rand_val(R, t), rand_val(R, t)
        add(neg(t, rn_mul(t, c, e)), one, c, e)
    for _ in range(8):             # products near 1 (immediate -1.0, 1 - a*b)
        add(near_one(R, t), near_one(R, t), to_bits(t, -1.0), to_bits(t, -1.0))
    imm = {'f32': 0x3FAAAAAB, 'f64': 0x3FF5555555555555}.get(t)
    for _ in range(8):             # c = -round(a * 4/3) (mul by an immediate)
        a = rand_val(R, t)
        c = neg(t, rn_mul(t, a, imm)) if imm is not None else neg(t, rn_mul(t, a, a))
        add(a, rand_val(R, t), c, rand_val(R, t))
    for _ in range(8):             # e = -round(round(a*b)*c) (product of a product)
        a, b, c = rand_val(R, t), rand_val(R, t), rand_val(R, t)
        add(a, b, c, neg(t, rn_mul(t, rn_mul(t, a, b), c)))
    for _ in range(8):             # e = -round((a-c)^2) (squared distance)
        a, c = rand_val(R, t), rand_val(R, t)
        x = rn_sub(t, a, c)
        add(a, rand_val(R, t), c, neg(t, rn_mul(t, x, x)))
    for _ in range(8):             # subnormal products (.ftz)
        lo = {'f32': (-70, -60), 'f64': (-540, -530), 'f16': (-10, -6), 'bf16': (-70, -60)}[t]
        a, b = rand_val(R, t, *lo), rand_val(R, t, *lo)
        add(a, b, neg(t, rn_mul(t, a, b)) if R.getrandbits(1) else rand_val(R, t, 2 * lo[0], 2 * lo[1]),
            rand_val(R, t))
    for _ in range(8):             # .sat: results inside (0, 1)
        a, b = rand_val(R, t, -1, -1), rand_val(R, t, -1, -1)
        add(a, b, rn_sub(t, to_bits(t, 0.25), rn_mul(t, a, b)), rand_val(R, t))
    sp = specials(t)
    for i in range(8):
        add(sp[i % len(sp)], sp[(3 * i + 1) % len(sp)], sp[(5 * i + 2) % len(sp)], rand_val(R, t))
    while len(rows) < n:
        add(rand_val(R, t, -8, 8), rand_val(R, t, -8, 8), rand_val(R, t, -8, 8), rand_val(R, t, -8, 8))
    return rows[:n]


def vectors_for(t, key, names):
    if t in ('f16x2', 'bf16x2'):
        e = t[:-2]
        lo = scalar_rows(e, key + '/lo')
        hi = scalar_rows(e, key + '/hi')
        rows = [tuple((hl << 16) | ll for ll, hl in zip(rl[:4], rh[:4])) + (rl[4],) for rl, rh in zip(lo, hi[17:] + hi[:17])]
    else:
        rows = scalar_rows(t, key)
    idx = {'a': 0, 'b': 1, 'c': 2, 'e': 3, 'p': 4}
    return {nm: [r[idx[nm]] for r in rows] for nm in names}


def fma_forms():
    L = []
    for pid, lines, types, what in PROBES:
        for t in types:
            fam, bits, movt, imms = TYPES[t]
            text = [ln.replace('.T ', '.%s ' % t).replace('.W ', '.%s ' % movt) for ln in lines]
            if imms is None and any('IMM_' in ln for ln in text):
                continue
            if imms:
                text = [ln.replace('IMM_M1', imms[0]).replace('IMM_1', imms[1]).replace('IMM_43', imms[2])
                        for ln in text]
            joined = ' '.join(text)
            used = set(re.findall(r'\{(\w+)\}', joined))
            ins = [(nm, 'pred' if nm == 'p' else t) for nm in ('a', 'b', 'c', 'e', 'p') if nm in used]
            outs = [(nm, 'u32' if (nm == 'd2' and pid == 'setp_use' and False) else t)
                    for nm in ('d', 'd2') if nm in used]
            temps = [(nm, t) for nm in ('t', 'u', 'x') if nm in used]
            temps += [(nm, 'u32') for nm in ('k',) if nm in used]
            temps += [(nm, 'pred') for nm in ('q',) if nm in used]
            fid = 'fma_%s_%s' % (pid, t)
            names = [nm for nm, _ in ins]
            L.append(Form(fid, fam, text, ins, outs, temps=temps, n=N,
                          vecgen=lambda form, t=t, names=names: vectors_for(t, form.id, names),
                          kind='contraction', note='contraction probe: ' + what, opcode='mul+add'))
    return L
