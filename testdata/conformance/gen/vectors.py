"""Input-vector construction for the PTX conformance suite.

Every value here is a raw bit pattern held as a Python int (so NaN payloads,
signalling NaNs and -0 survive untouched, and results do not depend on the
numpy version).  Randomness comes from random.Random seeded from a hash of the
form id, so the suite is byte-for-byte reproducible.
"""

import hashlib
import math
import random

import numpy as np

# --------------------------------------------------------------------------
# type table

# name: (bits of one element in memory, spec buffer type, kind)
#   kind: 'u' unsigned int, 's' signed int, 'b' untyped bits, 'f' float,
#         'x' packed pair, 'p' predicate (stored as u32 0/1)
TYPES = {
    'u8': (8, 'u8', 'u'), 's8': (8, 's8', 's'),
    'u16': (16, 'u16', 'u'), 's16': (16, 's16', 's'), 'b16': (16, 'u16', 'b'),
    'f16': (16, 'f16', 'f'), 'bf16': (16, 'u16', 'f'),
    'u32': (32, 'u32', 'u'), 's32': (32, 's32', 's'), 'b32': (32, 'u32', 'b'),
    'f32': (32, 'f32', 'f'),
    'f16x2': (32, 'u32', 'x'), 'bf16x2': (32, 'u32', 'x'),
    'u16x2': (32, 'u32', 'x'), 's16x2': (32, 'u32', 'x'),
    'u64': (64, 'u64', 'u'), 's64': (64, 's64', 's'), 'b64': (64, 'u64', 'b'),
    'f64': (64, 'f64', 'f'),
    'pred': (32, 'u32', 'p'),
    'b128': (128, 'u64', 'b'),   # stored as two u64 per element (lo, hi)
}

PACK_ELEM = {'f16x2': 'f16', 'bf16x2': 'bf16', 'u16x2': 'u16', 's16x2': 's16'}

NP_RAW = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def tbits(t):
    return TYPES[t][0]


def mask(bits):
    return (1 << bits) - 1


def to_array(t, vals):
    """Raw-bit Python ints -> numpy array ready for tofile()."""
    bits = tbits(t)
    if t == 'pred':
        return np.array([1 if v else 0 for v in vals], dtype=np.uint32)
    if bits == 128:
        flat = []
        for v in vals:
            flat.append(v & mask(64))
            flat.append((v >> 64) & mask(64))
        return np.array(flat, dtype=np.uint64)
    m = mask(bits)
    return np.array([v & m for v in vals], dtype=NP_RAW[bits])


def spec_buffer(t, n, approx_out=False):
    """(spec buffer type, element count) for n values of type t.

    Packed pairs are described as 2n halves so that float comparison (ULP,
    tolerance) applies per half; .b128 as 2n u64.  bf16 buffers are plain u16
    (launch spec v1 has no bf16) except the outputs of approximate forms,
    which need float-aware comparison and use 'bf16' (the ptxvm spec loader
    accepts it)."""
    if tbits(t) == 128:
        return 'u64', 2 * n
    if t in PACK_ELEM:
        et = PACK_ELEM[t]
        return ('bf16' if approx_out else 'u16') if et == 'bf16' else TYPES[et][1], 2 * n
    if t == 'bf16' and approx_out:
        return 'bf16', n
    return TYPES[t][1], n


def buf_type(t):
    return TYPES[t][1]


def elem_bytes(t):
    return tbits(t) // 8


# --------------------------------------------------------------------------
# deterministic randomness

def rng_for(*keys):
    h = hashlib.sha256('/'.join(str(k) for k in keys).encode()).digest()
    return random.Random(int.from_bytes(h[:8], 'little'))


# --------------------------------------------------------------------------
# floating-point formats

FMT = {'f16': (5, 10), 'bf16': (8, 7), 'f32': (8, 23), 'f64': (11, 52)}


class FP:
    def __init__(self, name):
        self.name = name
        self.e, self.m = FMT[name]
        self.bits = 1 + self.e + self.m
        self.bias = (1 << (self.e - 1)) - 1
        self.emax_field = (1 << self.e) - 1

    def make(self, s, e, m):
        return (s << (self.e + self.m)) | (e << self.m) | m

    def fields(self, b):
        return (b >> (self.e + self.m)) & 1, (b >> self.m) & mask(self.e), b & mask(self.m)

    # named specials
    def zero(self, s=0): return self.make(s, 0, 0)
    def inf(self, s=0): return self.make(s, self.emax_field, 0)
    def qnan(self, s=0, payload=0): return self.make(s, self.emax_field, (1 << (self.m - 1)) | payload)
    def snan(self, s=0, payload=1): return self.make(s, self.emax_field, payload & mask(self.m - 1) or 1)
    def min_denorm(self, s=0): return self.make(s, 0, 1)
    def max_denorm(self, s=0): return self.make(s, 0, mask(self.m))
    def min_normal(self, s=0): return self.make(s, 1, 0)
    def max_finite(self, s=0): return self.make(s, self.emax_field - 1, mask(self.m))

    def is_nan(self, b):
        _, e, m = self.fields(b)
        return e == self.emax_field and m != 0

    def is_finite(self, b):
        return self.fields(b)[1] != self.emax_field

    def decode(self, b):
        s, e, m = self.fields(b)
        sign = -1.0 if s else 1.0
        if e == self.emax_field:
            return sign * math.inf if m == 0 else math.nan
        if e == 0:
            return sign * math.ldexp(m, 1 - self.bias - self.m)
        return sign * math.ldexp((1 << self.m) | m, e - self.bias - self.m)

    def encode(self, x):
        """Exact encoding of a Python float, or None if not representable."""
        if math.isnan(x):
            return self.qnan()
        s = 1 if math.copysign(1.0, x) < 0 else 0
        a = abs(x)
        if a == math.inf:
            return self.inf(s)
        if a == 0.0:
            return self.zero(s)
        mant, ex = math.frexp(a)          # a = mant * 2**ex, mant in [0.5, 1)
        E = ex - 1
        if E + self.bias >= 1:
            if E + self.bias >= self.emax_field:
                return None
            frac = math.ldexp(mant * 2 - 1, self.m)
            if frac != int(frac):
                return None
            return self.make(s, E + self.bias, int(frac))
        q = math.ldexp(a, self.bias - 1 + self.m)
        if q != int(q) or q >= (1 << self.m):
            return None
        return self.make(s, 0, int(q))

    def ulp_at(self, b):
        _, e, _ = self.fields(b)
        return math.ldexp(1.0, max(e, 1) - self.bias - self.m)

    def enc_list(self, xs):
        out = []
        for x in xs:
            b = self.encode(x)
            if b is not None:
                out.append(b)
        return out

    def edges(self):
        """Broad edge set: every special class plus rounding-sensitive values."""
        v = []
        for s in (0, 1):
            v += [self.zero(s), self.inf(s), self.qnan(s), self.min_denorm(s),
                  self.max_denorm(s), self.min_normal(s), self.max_finite(s)]
        v += [self.qnan(0, 0x15 & mask(self.m - 1)), self.qnan(1, 1),
              self.snan(0, 1), self.snan(1, 1), self.snan(0, mask(self.m - 1)),
              self.snan(1, 1 << (self.m - 2))]
        v += [self.make(0, 0, 2), self.make(0, 0, 3), self.make(1, 0, 1 << (self.m - 1)),
              self.make(0, 1, 1), self.make(0, self.emax_field - 1, 0),
              self.make(1, self.emax_field - 2, mask(self.m)),
              self.make(0, 2, 0)]
        one = self.encode(1.0)
        v += [one, one + 1, one - 1, self.encode(-1.0) + 1]
        xs = [-1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5, 2.5, -2.5, 3.0, -3.5, 0.75,
              0.25, 4.5, 5.5, -5.5, 0.125, 10.0, 100.0, -1000.0, 1e-3, 3.14159265358979,
              1.0 / 3.0, 0.1, 1e4, 65504.0, 65520.0, 127.5, 128.0, 255.5, 256.0,
              -128.5, -129.0, 32767.5, 32768.0, -32768.5, 65535.5, 65536.0]
        for k in (7, 8, 15, 16, 24, 31, 32, 53, 63, 64):
            xs += [2.0 ** k, -2.0 ** k, 2.0 ** k - 1, 2.0 ** k + 1, 2.0 ** k - 0.5]
        for k in (-24, -23, -11, -12, -53, -126, -127, -149, -14, -24):
            xs += [2.0 ** k, 1.5 * 2.0 ** k]
        for x in xs:
            b = self.encode(x)
            if b is None:
                b = self.round_nearest(x)
            if b is not None:
                v.append(b)
        return v

    def core(self):
        """Small edge set for cross products of binary/ternary forms."""
        one = self.encode(1.0)
        half_ulp1 = self.encode(math.ldexp(1.0, -self.m - 1))      # 1 + this is a tie
        above = self.encode(math.ldexp(3.0, -self.m - 2))          # > half ulp of 1
        return [self.zero(0), self.zero(1), self.inf(0), self.inf(1), self.qnan(0),
                self.snan(1, 3), self.min_denorm(0), self.max_denorm(1), self.min_normal(0),
                self.min_normal(1), self.max_finite(0), self.max_finite(1), one,
                self.encode(-1.0), one + 1, self.encode(1.5), self.encode(-2.5),
                half_ulp1, above, self.encode(3.0)]

    def round_nearest(self, x):
        """RNE of a finite Python float to this format (used only for edge values)."""
        if math.isnan(x) or math.isinf(x):
            return self.encode(x)
        s = 1 if x < 0 else 0
        a = abs(x)
        if a == 0:
            return self.zero(s)
        mant, ex = math.frexp(a)
        E = max(ex - 1, 1 - self.bias)
        q = a / math.ldexp(1.0, E - self.m)
        r = round(q)  # Python round is half-to-even
        val = r * math.ldexp(1.0, E - self.m)
        b = self.encode(val)
        if b is None:
            return self.inf(s) if val > 0 else None
        return b | (s << (self.bits - 1)) if val != 0 else self.zero(s)

    def rand(self, R, kind):
        if kind == 'bits':
            return R.getrandbits(self.bits)
        s = R.getrandbits(1)
        m = R.getrandbits(self.m)
        if kind == 'reasonable':
            lo = max(1, self.bias - min(12, self.bias - 1))
            hi = min(self.emax_field - 1, self.bias + min(12, self.bias))
            return self.make(s, R.randint(lo, hi), m)
        if kind == 'wide':
            e = R.randint(0, self.emax_field - 1)
            return self.make(s, e, m)
        if kind == 'unit':  # (−1, 1) range mostly normal
            return self.make(s, R.randint(max(1, self.bias - self.m - 2), self.bias - 1), m)
        if kind == 'nearint':
            k = R.randint(-40, 40)
            f = R.choice([0.0, 0.5, 0.25, 0.75, 0.5 - 2 ** -10, 0.5 + 2 ** -10])
            b = self.encode(k + f if k >= 0 else k - f)
            return b if b is not None else self.make(s, self.bias, m)
        raise ValueError(kind)


FPS = {k: FP(k) for k in FMT}


# --------------------------------------------------------------------------
# integer helpers

def int_edges(bits, signed):
    m = mask(bits)
    v = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64, 100, 127, 128, 255, 256,
         1000, 0x7fff, 0x8000, 0xffff, 0x10000, 12345]
    v += [(1 << (bits - 1)), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1, m, m - 1, m - 2,
          (1 << (bits // 2)), (1 << (bits // 2)) - 1, (1 << (bits // 2)) + 1]
    for k in range(0, bits, max(1, bits // 8)):
        v += [1 << k, (1 << k) - 1, -(1 << k)]
    pat = 0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 0x0f0f0f0f0f0f0f0f, 0xf0f0f0f0f0f0f0f0, \
        0x0123456789abcdef, 0xfedcba9876543210, 0x8000000000000001, 0x00ff00ff00ff00ff
    v += list(pat)
    v += [-2, -3, -100, -1000, -12345]
    out, seen = [], set()
    for x in v:
        x &= m
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def int_core(bits):
    m = mask(bits)
    v = [0, 1, m, 2, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1, m - 1,
         0x5555555555555555 & m, 0xaaaaaaaaaaaaaaaa & m, 3, 1 << (bits // 2), (1 << (bits // 2)) - 1,
         7, 0x0f0f0f0f0f0f0f0f & m]
    return [x & m for x in v]


def int_rand(R, bits, kind):
    if kind == 'bits':
        return R.getrandbits(bits)
    if kind == 'small':
        return R.randint(-300, 300) & mask(bits)
    if kind == 'pow2':
        k = R.randrange(bits)
        return ((1 << k) + R.choice([-1, 0, 1])) & mask(bits)
    if kind == 'half':  # values using about half the width (products fit)
        return R.getrandbits(bits // 2) * R.choice([1, -1]) & mask(bits)
    raise ValueError(kind)


# --------------------------------------------------------------------------
# per-type value sources

def scalar_of(t):
    return PACK_ELEM.get(t, t)


def edges(t):
    if t in PACK_ELEM:
        e = edges(PACK_ELEM[t])
        return [(a << 16) | b for a, b in zip(e, e[7:] + e[:7])]
    if t in FPS:
        return FPS[t].edges()
    if t == 'pred':
        return [0, 1]
    bits = tbits(t)
    return int_edges(bits, TYPES[t][2] == 's')


def core(t):
    if t in PACK_ELEM:
        c = core(PACK_ELEM[t])
        return [(a << 16) | b for a, b in zip(c, c[3:] + c[:3])]
    if t in FPS:
        return FPS[t].core()
    if t == 'pred':
        return [0, 1]
    return int_core(tbits(t))


def rand(t, R, kind=None):
    if t in PACK_ELEM:
        e = PACK_ELEM[t]
        return (rand(e, R, kind) << 16) | rand(e, R, kind)
    if t == 'pred':
        return R.getrandbits(1)
    if t in FPS:
        kinds = ['bits', 'reasonable', 'reasonable', 'wide', 'unit', 'nearint']
        return FPS[t].rand(R, kind or R.choice(kinds))
    bits = tbits(t)
    return int_rand(R, bits, kind or R.choice(['bits', 'bits', 'small', 'pow2', 'half']))


# --------------------------------------------------------------------------
# domains: special value sets for operands that are counts, positions, ...

def domain_values(dom):
    """Returns (edge list, random generator) for a named operand domain."""
    name, *arg = dom if isinstance(dom, tuple) else (dom,)
    if name == 'shift':
        w = arg[0]
        e = list(range(0, w + 9)) + [w * 2, 127, 128, 255, 256, 257, 0x7fffffff, 0x80000000,
                                     0xffffffff, 0xfffffff0, 1000]
        return e, lambda R: R.choice([R.randrange(w + 9), R.getrandbits(32), R.randrange(256)])
    if name == 'bitpos':   # bfe/bfi/bmsk/szext positions and lengths
        w = arg[0]
        e = list(range(0, w + 9)) + [w + 16, 127, 128, 200, 255, 256, 257, 0x1ff, 0xffffffff, 0x80000020]
        return e, lambda R: R.choice([R.randrange(w + 9), R.randrange(256), R.getrandbits(32)])
    if name == 'lane':     # 0..31 lane index / offset, plus out-of-range
        e = list(range(0, 33)) + [40, 63, 64, 0xffffffff]
        return e, lambda R: R.randrange(40)
    if name == 'base32':   # fns base: must be <= 31
        return list(range(32)), lambda R: R.randrange(32)
    if name == 'offset':   # fns offset, s32
        e = [x & 0xffffffff for x in list(range(-34, 35)) + [0x7fffffff, -0x80000000, 100, -100]]
        return e, lambda R: R.randint(-40, 40) & 0xffffffff
    if name == 'prmt':     # prmt selectors
        e = list(range(8)) + [0x3210, 0x7654, 0x0123, 0x4567, 0x8888, 0xba98, 0xfedc, 0x1111,
                              0x5140, 0x7531, 0xffff, 0x89ab, 0xcdef, 0xffffffff, 0x12345670]
        return e, lambda R: R.getrandbits(32)
    if name == 'carry':
        return [0, 1], lambda R: R.getrandbits(1)
    if name == 'small':    # small non-negative ints (dp/sad etc)
        return list(range(8)), lambda R: R.randrange(64)
    raise ValueError(dom)


# --------------------------------------------------------------------------
# assembling vectors

def _src(t, dom):
    if dom is not None:
        return domain_values(dom)
    return edges(t), (lambda R, t=t: rand(t, R))


def _core_src(t, dom):
    if dom is not None:
        e, _ = domain_values(dom)
        if len(e) > 24:
            e = e[:12] + e[-12:]
        return e
    return core(t)


def dedup(seq):
    out, seen = [], set()
    for x in seq:
        k = tuple(x) if isinstance(x, (list, tuple)) else x
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def default_vectors(form_id, ins, n, extra=None):
    """ins: list of (name, type, domain).  Returns dict name -> list of raw ints.

    Unary: full edge list + extras + random.
    Binary: cross product of the core edge sets (sampled if too big), edge
            values paired with randoms, equal pairs, extras, then random.
    Ternary: sampled 3-way cross product of the core sets, then random.
    """
    R = rng_for('vec', form_id)
    k = len(ins)
    rows = []
    if extra:
        rows += [tuple(r) for r in extra]
    if k == 0:
        return {}
    srcs = [_src(t, d) for (_, t, d) in ins]
    if k == 1:
        rows += [(x,) for x in srcs[0][0]]
    else:
        cores = [_core_src(t, d) for (_, t, d) in ins]
        prod = 1
        for c in cores:
            prod *= len(c)
        budget = int(n * (0.55 if k == 2 else 0.45))
        if prod <= budget:
            idxs = range(prod)
        else:
            idxs = sorted(R.sample(range(prod), budget))
        for i in idxs:
            row = []
            for c in cores:
                row.append(c[i % len(c)])
                i //= len(c)
            rows.append(tuple(row))
        # each broad edge value of each operand against random partners
        for j in range(k):
            lim = len(srcs[j][0]) if ins[j][2] is not None else max(8, n // (6 * k))
            for x in srcs[j][0][:lim]:
                row = [srcs[q][1](R) for q in range(k)]
                row[j] = x
                rows.append(tuple(row))
        # equal / negated operands for binary forms
        if k >= 2 and ins[0][1] == ins[1][1] and ins[0][2] is None and ins[1][2] is None:
            t = ins[0][1]
            for _ in range(n // 16):
                x = srcs[0][1](R)
                row = [x, x] + [srcs[q][1](R) for q in range(2, k)]
                rows.append(tuple(row))
                if t in FPS:
                    y = x ^ (1 << (tbits(t) - 1))
                    rows.append(tuple([x, y] + row[2:]))
    rows = dedup(rows)
    if len(rows) > n:
        keep = rows[: n // 2]
        rest = rows[n // 2:]
        rows = keep + R.sample(rest, n - len(keep))
    while len(rows) < n:
        rows.append(tuple(srcs[q][1](R) for q in range(k)))
    return {ins[j][0]: [r[j] for r in rows] for j in range(k)}
