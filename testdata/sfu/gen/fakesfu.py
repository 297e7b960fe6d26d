"""A stand-in for the GPU, used by gen.py --dry-run.

It is NOT a model of the real hardware.  It imitates the *structure* that the
Go models in vm/internal/sfu assume (the structure envytools documents for
the Tesla-generation SFU: a result that depends on the mantissa only and is
rescaled by the exponent; ex2 and sin/cos on a fixed-point operand; lg2 as a
fixed-point sum truncated to f32), with smooth plus hashed pseudo-random
errors of realistic size, and the ptxas wrapper sequences of the non-.ftz
forms.  That makes a dry run produce files of realistic size, and lets the Go
tests check the reader, the models and the wrappers end to end: on dry-run
data every model test must pass.
"""

import os

import numpy as np

from sfuspec import U32, U64, splitmix64, bits2f64, mul_rz_f32, C_2PI_INV

MASK23 = (1 << 23) - 1


def _noise(idx, salt):
    """Deterministic pseudo-random values in [-1, 1)."""
    z = splitmix64(salt, np.asarray(idx, dtype=U64))
    return (z >> U64(11)).astype(np.float64) * 2.0 ** -52 - 1.0


NOISE = os.environ.get("FAKESFU_NOISE", "smooth")


def _err(idx, n, salt):
    """Smooth plus hashed error, in units of the result's last place
    (FAKESFU_NOISE=iid: pessimistic, independent errors, for sizing)."""
    if NOISE == "iid":
        return 0.5 * _noise(idx, salt) - 0.1
    u = np.asarray(idx, dtype=np.float64) / n
    return 0.22 * np.sin(2 * np.pi * 37.3 * u + salt) + 0.14 * _noise(idx, salt)


def _fields(x):
    x = np.asarray(x, dtype=U32)
    return (x >> U32(31)).astype(np.int64), ((x >> U32(23)) & U32(0xFF)).astype(np.int64), (x & U32(MASK23)).astype(np.int64)


def _mk(s, e, m):
    return ((np.asarray(s, dtype=np.int64) << 31) | (np.asarray(e, dtype=np.int64) << 23) | np.asarray(m, dtype=np.int64)).astype(U32)


def _unit_result(y, frac_bits):
    """Round y in [0.5, 2] to nearest on the grid of its binade, with
    frac_bits fraction bits in the mantissa; returns (exponent offset from
    127, 23-bit mantissa field)."""
    lo = y < 1.0
    scale = np.where(lo, 2.0 ** (frac_bits + 1), 2.0 ** frac_bits)
    q = np.floor(y * scale + 0.5).astype(np.int64)
    eoff = np.where(lo, -1, 0)
    carry = q >= (np.int64(1) << (frac_bits + 1))
    eoff = np.where(carry, eoff + 1, eoff)
    q = np.where(carry, q >> 1, q)
    mant = (q - (np.int64(1) << frac_bits)) << (23 - frac_bits)
    return eoff, mant


# ---------------------------------------------------------------------------
# MUFU cores (flush-to-zero inputs and outputs, canonical NaN 0x7fffffff)

def rcp(x):
    s, e, m = _fields(x)
    y = 1.0 / (1.0 + m * 2.0 ** -23) + _err(m, 1 << 23, 1) * 2.0 ** -24
    y = np.where(m == 0, 1.0, y)
    eoff, mant = _unit_result(y, 23)
    ex = 127 + eoff + 127 - e
    out = np.where(ex <= 0, _mk(s, 0, 0), _mk(s, np.clip(ex, 0, 255), mant))
    out = np.where(e == 0, _mk(s, 255, 0), out)
    out = np.where((e == 255) & (m == 0), _mk(s, 0, 0), out)
    out = np.where((e == 255) & (m != 0), U32(0x7FFFFFFF), out)
    return out.astype(U32)


def _rsq_sqrt(x, is_sqrt):
    s, e, m = _fields(x)
    u = e - 127
    p = u & 1
    k = (u - p) >> 1
    xm = (1.0 + m * 2.0 ** -23) * np.where(p == 1, 2.0, 1.0)
    idx = m + (p << 23)
    if is_sqrt:
        y = np.sqrt(xm) + _err(idx, 1 << 24, 3) * 2.0 ** -23
    else:
        y = 1.0 / np.sqrt(xm) + _err(idx, 1 << 24, 2) * 2.0 ** -24
    y = np.where(idx == 0, 1.0, y)
    eoff, mant = _unit_result(y, 23)
    ex = 127 + eoff + (k if is_sqrt else -k)
    out = _mk(0, np.clip(ex, 0, 255), mant)
    zero = e == 0
    if is_sqrt:
        out = np.where(zero, _mk(s, 0, 0), out)
        out = np.where((s == 1) & ~zero, U32(0x7FFFFFFF), out)
        out = np.where((e == 255) & (s == 0), U32(0x7F800000), out)
    else:
        out = np.where(zero, _mk(s, 255, 0), out)
        out = np.where((s == 1) & ~zero, U32(0x7FFFFFFF), out)
        out = np.where((e == 255) & (s == 0), U32(0), out)
    out = np.where((e == 255) & (m != 0), U32(0x7FFFFFFF), out)
    return out.astype(U32)


def rsqrt(x):
    return _rsq_sqrt(x, False)


def sqrt(x):
    return _rsq_sqrt(x, True)


def _ex2_table(f):
    y = 2.0 ** (f * 2.0 ** -23) + _err(f, 1 << 23, 4) * 2.0 ** -23
    y = np.where(f == 0, 1.0, y)
    return _unit_result(y, 23)


def ex2(x):
    s, e, m = _fields(x)
    sh = e - 127
    big = e >= 134
    mm = (m | (1 << 23))
    J = np.where(sh >= 0, mm << np.clip(sh, 0, 6), mm >> np.clip(-sh, 0, 63))
    J = np.where(big, 0, J)
    i = J >> 23
    F = J & MASK23
    neg = s == 1
    Fi = np.where(neg & (F != 0), MASK23 - F, F)
    eoff, mant = _ex2_table(Fi)
    ex = np.where(~neg, 127 + eoff + i,
                  np.where(F == 0, 127 - i, 127 + eoff - i - 1))
    mant = np.where(neg & (F == 0), 0, mant)
    out = np.where(ex <= 0, U32(0), np.where(ex >= 255, U32(0x7F800000), _mk(0, np.clip(ex, 0, 255), mant)))
    out = np.where(big & ~neg, U32(0x7F800000), out)
    out = np.where(big & neg, U32(0), out)
    out = np.where(e == 0, U32(0x3F800000), out)
    out = np.where((e == 255) & (m == 0), np.where(neg, U32(0), U32(0x7F800000)), out)
    out = np.where((e == 255) & (m != 0), U32(0x7FFFFFFF), out)
    return out.astype(U32)


def lg2(x):
    s, e, m = _fields(x)
    L = np.floor((np.log2(1.0 + m * 2.0 ** -23) + _err(m, 1 << 23, 5) * 2.0 ** -25) * 2.0 ** 36).astype(np.int64)
    L = np.where(m == 0, 0, np.maximum(L, 0))
    V = (e - 127) * (np.int64(1) << 36) + L
    neg = V < 0
    A = np.abs(V)
    _, nb = np.frexp(A.astype(np.float64))           # bit length (A < 2^44)
    sh = np.maximum(nb - 24, 0)
    At = A >> sh
    val = At.astype(np.float64) * np.ldexp(1.0, (sh - 36).astype(np.int32))
    out = val.astype(np.float32).view(U32) | (neg.astype(U32) << U32(31))
    out = np.where(A == 0, U32(0), out)
    out = np.where(e == 0, U32(0xFF800000), out)
    out = np.where((s == 1) & (e != 0), U32(0x7FFFFFFF), out)
    out = np.where((e == 255) & (m == 0) & (s == 0), U32(0x7F800000), out)
    out = np.where((e == 255) & (m != 0), U32(0x7FFFFFFF), out)
    return out.astype(U32)


_SIN_TAB = None


def _sin_table():
    global _SIN_TAB
    if _SIN_TAB is None:
        k = np.arange(1 << 23, dtype=np.int64)
        y = np.sin(2 * np.pi * k * 2.0 ** -25) + _err(k, 1 << 23, 6) * 2.0 ** -23
        y = np.clip(np.round(y * 2.0 ** 30) * 2.0 ** -30, 0.0, 1.0)
        y[0] = 0.0
        _SIN_TAB = y.astype(np.float32).view(U32)
    return _SIN_TAB


def sincos(t, is_cos):
    S = _sin_table()
    s, e, m = _fields(t)
    sh = e - 125
    mm = m | (1 << 23)
    J = np.where(sh >= 0, np.where(sh >= 25, 0, (mm << np.clip(sh, 0, 25)) & ((1 << 25) - 1)),
                 mm >> np.clip(-sh, 0, 63))
    q = J >> 23
    f = J & MASK23
    if is_cos:
        qq = (q + 1) & 3
        sign = qq >> 1
    else:
        qq = q
        sign = s ^ (q >> 1)
    k = np.where((qq & 1) == 1, MASK23 - f, f)
    out = S[k] | (sign.astype(U32) << U32(31))
    if is_cos:
        out = np.where(e == 0, U32(0x3F800000), out)
    else:
        out = np.where(e == 0, _mk(s, 0, 0), out)
    out = np.where(e == 255, U32(0x7FFFFFFF), out)
    return out.astype(U32)


def tanh(x):
    s, e, m = _fields(x)
    mq = m & ~0xFFF
    xq = bits2f64(_mk(0, e, mq))
    y = np.tanh(xq) * (1.0 + _noise(e * (1 << 23) + mq, 7) * 2.0 ** -17)
    y = np.minimum(y, 1.0)
    out = y.astype(np.float32).view(U32) | (s.astype(U32) << U32(31))
    out = np.where(e < 117, np.asarray(x, dtype=U32), out)
    out = np.where(e >= 131, _mk(s, 127, 0), out)
    out = np.where((e == 255) & (m != 0), U32(0x7FFFFFFF), out)
    return out.astype(U32)


def _f64h(x, is_rsq):
    hi = (np.asarray(x, dtype=U64) >> U64(32)).astype(np.int64)
    s = hi >> 31
    e = (hi >> 20) & 0x7FF
    m = hi & 0xFFFFF
    if is_rsq:
        u = e - 1023
        p = u & 1
        k = (u - p) >> 1
        xm = (1.0 + m * 2.0 ** -20) * np.where(p == 1, 2.0, 1.0)
        idx = m + (p << 20)
        y = 1.0 / np.sqrt(xm) + _err(idx, 1 << 21, 9) * 2.0 ** -21
    else:
        idx = m
        y = 1.0 / (1.0 + m * 2.0 ** -20) + _err(idx, 1 << 20, 8) * 2.0 ** -21
    y = np.where(idx == 0, 1.0, y)
    eoff, mant = _unit_result(y, 20)
    mant = mant >> 3
    if is_rsq:
        ex = 1023 + eoff - k
        out = (np.clip(ex, 0, 2047) << 20) | mant
        out = np.where(s == 1, 0x7FFFFFFF, out)
        out = np.where(e == 0, (s << 31) | 0x7FF00000, out)
        out = np.where((e == 0x7FF) & (s == 0), 0, out)
    else:
        ex = 1023 + eoff + 1023 - e
        out = np.where(ex <= 0, s << 31, (s << 31) | (np.clip(ex, 0, 2047) << 20) | mant)
        out = np.where(e == 0, (s << 31) | 0x7FF00000, out)
        out = np.where(e == 0x7FF, s << 31, out)
    out = np.where((e == 0x7FF) & (m != 0), 0x7FFFFFFF, out)
    return (out.astype(U64) << U64(32)).astype(U64)


# ---------------------------------------------------------------------------
# PTX instructions = ptxas's SASS sequences over the cores

F32_MIN_NORMAL = np.float32(2.0 ** -126)


def _f(b):
    return np.asarray(b, dtype=U32).view(np.float32)


def _mul(a_bits, s):
    with np.errstate(all="ignore"):
        return (_f(a_bits) * np.float32(s)).view(U32)


def _geu_abs_min_normal(x):
    a = np.abs(_f(x))
    return ~(a < F32_MIN_NORMAL)     # GEU: true when unordered


def run(instr, x):
    if instr == "rcp.approx.ftz.f32":
        return rcp(x)
    if instr == "rcp.approx.f32":
        a = np.abs(_f(x))
        p0 = a > np.float32(2.0 ** 126)
        p2 = _geu_abs_min_normal(x)
        s = np.where(p0, np.float32(0.25), np.where(p2, np.float32(1.0), np.float32(2.0 ** 24))).astype(np.float32)
        with np.errstate(all="ignore"):
            y = rcp((_f(x) * s).view(U32))
            return (s * _f(y)).view(U32)
    if instr in ("rsqrt.approx.ftz.f32", "sqrt.approx.ftz.f32", "lg2.approx.ftz.f32", "ex2.approx.ftz.f32",
                 "tanh.approx.f32"):
        return {"rsqrt": rsqrt, "sqrt": sqrt, "lg2": lg2, "ex2": ex2, "tanh": tanh}[instr.split(".")[0]](x)
    if instr in ("rsqrt.approx.f32", "sqrt.approx.f32", "lg2.approx.f32"):
        p2 = _geu_abs_min_normal(x)
        y = np.where(p2, x, _mul(x, 2.0 ** 24))
        op = instr.split(".")[0]
        r = {"rsqrt": rsqrt, "sqrt": sqrt, "lg2": lg2}[op](y)
        with np.errstate(all="ignore"):
            if op == "rsqrt":
                fix = _mul(r, 4096.0)
            elif op == "sqrt":
                fix = _mul(r, 2.0 ** -12)
            else:
                fix = (_f(r) + np.float32(-24.0)).view(U32)
        return np.where(p2, r, fix).astype(U32)
    if instr == "ex2.approx.f32":
        p1 = ~(_f(x) < np.float32(-126.0))
        y = np.where(p1, x, _mul(x, 0.5))
        r = ex2(y)
        with np.errstate(all="ignore"):
            sq = (_f(r) * _f(r)).view(U32)
        return np.where(p1, r, sq).astype(U32)
    if instr.startswith(("sin.", "cos.")):
        ftz = ".ftz." in instr
        t = mul_rz_f32(x, C_2PI_INV, ftz)
        return sincos(t, instr.startswith("cos"))
    if instr == "mul.rz.f32":
        return mul_rz_f32(x, C_2PI_INV, False)
    if instr == "mul.rz.ftz.f32":
        return mul_rz_f32(x, C_2PI_INV, True)
    if instr == "rcp.approx.ftz.f64":
        return _f64h(x, False)
    if instr == "rsqrt.approx.ftz.f64":
        return _f64h(x, True)
    raise ValueError(instr)
