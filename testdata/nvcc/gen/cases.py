"""The nvcc corpus case list: one entry per kernel launch.

A case names its module (kernels/<module>.cu), the kernel's source-level name
(the generator finds the mangled .entry name in the PTX), the launch shape,
its buffers (input data is computed here, deterministically, from fixed seeds
and named edge-value sets), symbols, textures, arguments, outputs, an
optional comparison tolerance, the instruction families it covers, and a
description. gen.py turns each case into inputs/*.bin and one launch spec per
compiled variant (-O3, -G).

issue 2 = core interpreter coverage; issue 3 = atomics / warp / texture.

Tolerance (absent = bit-exact): either one criterion for every output or
{"outputs": {name: criterion}, "default": criterion}. A criterion has any of
"ulp", "abs", "rel"; an element passes if it is bit-identical, or both are
NaN, or the ULP distance is <= ulp, or |got - want| <= max(abs, rel*|want|).
"""

from __future__ import annotations

import math
import struct

import numpy as np

# ---------------------------------------------------------------------------
# Building blocks


class Buf:
    """A buffer or symbol. data=None means zero-filled (count required), or
    generated on the runner from a "fill" rule (runspec.fill_array)."""

    def __init__(self, name, type, count=None, data=None, fill=None):
        self.name = name
        self.type = type
        self.fill = fill
        if fill is not None and (data is not None or count is None):
            raise ValueError(f"{name}: a fill buffer takes a count and no data")
        if data is not None:
            data = np.ascontiguousarray(data)
            if count is not None and data.size != count:
                raise ValueError(f"{name}: data has {data.size} elements, count says {count}")
            count = data.size
        if count is None:
            raise ValueError(f"{name}: need data or count")
        self.count = int(count)
        self.data = data


class Tex:
    def __init__(self, name, buffer, dims, format, address="clamp", filter="point",
                 normalized=False, linear=False, channels=1, read="element", gather=False):
        self.__dict__.update(name=name, buffer=buffer, dims=list(dims), format=format,
                             address=address, filter=filter, normalized=normalized,
                             linear=linear, channels=channels, read=read, gather=gather)

    def spec(self):
        d = {"name": self.name, "buffer": self.buffer, "dims": self.dims, "format": self.format}
        if self.linear:
            d["linear"] = True
        else:
            d.update(address=self.address, filter=self.filter, normalized=self.normalized)
        if self.channels != 1:
            d["channels"] = self.channels
        if self.read != "element":
            d["read"] = self.read
        if self.gather:
            d["gather"] = True
        return d


class Case:
    def __init__(self, name, module, kernel, grid, block, buffers, args, outputs, desc,
                 families, issue=2, symbols=(), textures=(), dyn_smem=0, tolerance=None,
                 stack_bytes=0):
        self.name = name
        self.module = module
        self.kernel = kernel
        self.grid = list(grid) + [1] * (3 - len(grid))
        self.block = list(block) + [1] * (3 - len(block))
        self.buffers = list(buffers)
        self.args = list(args)
        self.outputs = list(outputs)
        self.desc = desc
        self.families = list(families)
        self.issue = issue
        self.symbols = list(symbols)
        self.textures = list(textures)
        self.dyn_smem = dyn_smem
        self.tolerance = tolerance
        self.stack_bytes = stack_bytes


# Arguments: (kind, value) pairs, written to the spec as {kind: value}.
def B(name): return ("buffer", name)
def T(name): return ("texture", name)
def U8(v): return ("u8", int(v))
def S8(v): return ("s8", int(v))
def U16(v): return ("u16", int(v))
def S16(v): return ("s16", int(v))
def U32(v): return ("u32", int(v))
def S32(v): return ("s32", int(v))
def U64(v): return ("u64", int(v))
def S64(v): return ("s64", int(v))
def F64(v): return ("f64", float(v))


def F32(v):
    v = float(v)
    if float(np.float32(v)) != v:
        raise ValueError(f"f32 argument {v!r} is not exactly representable in f32")
    return ("f32", v)


def cdiv(a, b):
    return (a + b - 1) // b


# ---------------------------------------------------------------------------
# Deterministic data


def rs(seed):
    """numpy's legacy generator: its streams are frozen across numpy versions."""
    return np.random.RandomState(seed)


def f32(bits):
    return np.array(bits, dtype="<u4").view("<f4")


def f64(bits):
    return np.array(bits, dtype="<u8").view("<f8")


def fbits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def dbits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def uniform_f32(n, lo, hi, seed):
    return rs(seed).uniform(lo, hi, n).astype("<f4")


def uniform_f64(n, lo, hi, seed):
    return rs(seed).uniform(lo, hi, n).astype("<f8")


def loguniform_f32(n, lo, hi, seed):
    return np.exp(rs(seed).uniform(math.log(lo), math.log(hi), n)).astype("<f4")


def ints(n, lo, hi, dtype, seed):
    """Uniform integers in [lo, hi] (inclusive); [lo, hi] must span at most
    2^31 values, or be the full range of dtype."""
    dt = np.dtype(dtype)
    span = hi - lo + 1
    if span <= 2**31:
        v = rs(seed).randint(0, span, size=n).astype(np.int64) + lo
        return v.astype(dt)
    if span == 2 ** (8 * dt.itemsize):
        return bits(n, dt, seed)
    raise ValueError(f"ints: unsupported range [{lo}, {hi}] for {dtype}")


def bits(n, dtype, seed):
    """Uniformly random bit patterns."""
    dt = np.dtype(dtype)
    return np.frombuffer(rs(seed).bytes(dt.itemsize * n), dtype=dt).copy()


def finite_bits_f32(n, seed):
    """Random f32 bit patterns with every exponent equally likely, finite only."""
    b = bits(n, "<u4", seed)
    exp = (b >> np.uint32(23)) & np.uint32(0xFF)
    b = np.where(exp == 0xFF, b ^ np.uint32(0x40000000), b)
    return b.view("<f4")


def with_fill(values, n, filler):
    """values first, then filler(n - len(values)) to reach n."""
    v = np.asarray(values)
    if v.size >= n:
        return v[:n].copy()
    return np.concatenate([v, filler(n - v.size).astype(v.dtype)])


def cross(a, b):
    """All pairs (a[i], b[j]): returns (A, B) of length len(a)*len(b)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.repeat(a, b.size), np.tile(b, a.size)


# Edge-value sets --------------------------------------------------------------

F32_SPECIAL_BITS = [
    0x00000000, 0x80000000,                    # +0, -0
    0x7F800000, 0xFF800000,                    # +inf, -inf
    0x7FC00000, 0xFFC00000, 0x7FC12345,        # quiet NaNs (payloads, sign)
    0x7F800001, 0x7FA00000, 0xFF812345,        # signalling NaNs
    0x00000001, 0x80000001,                    # smallest denormals
    0x007FFFFF, 0x807FFFFF,                    # largest denormals
    0x00400000,                                # a mid denormal
    0x00800000, 0x80800000,                    # FLT_MIN
    0x7F7FFFFF, 0xFF7FFFFF,                    # FLT_MAX
    fbits(1.0), fbits(-1.0), fbits(0.5), fbits(-0.5), fbits(1.5), fbits(2.5),
    fbits(-2.5), fbits(3.5), fbits(-3.5), fbits(3.0), fbits(7.0), fbits(-7.5),
    0x3EFFFFFF, 0x3F000001,                    # just below / above 0.5
    0x3FBFFFFF, 0x3FC00001,                    # just below / above 1.5
    0x40200001, 0x401FFFFF,                    # just above / below 2.5
    0x3F7FFFFF,                                # 0.99999994
    0x4A800001,                                # 2^22 + 0.5
    fbits(16777215.0), fbits(16777216.0),      # 2^24 - 1, 2^24
    0x4EFFFFFF, 0x4F000000, 0xCF000000,        # 2^31 - 128, 2^31, -2^31
    0xCF000001,                                # just below -2^31
    0x4F7FFFFF, 0x4F800000,                    # 2^32 - 256, 2^32
    0x5EFFFFFF, 0x5F000000, 0xDF000000,        # around 2^63
    0x5F800000,                                # 2^64
    fbits(1e20), fbits(-1e20), fbits(0.1), fbits(math.pi), fbits(1.0 / 3.0),
    fbits(65504.0), fbits(65520.0),            # f16 max, f16 overflow boundary
    0x38800000, 0x33800000, 0x33000000,        # 2^-14 (f16 min normal), 2^-24, 2^-25
    fbits(100.0), fbits(-1e-10), fbits(1e-40),
]
F32_SPECIALS = f32(F32_SPECIAL_BITS)

# A smaller set for the cross products of binary operations.
F32_CORE_BITS = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC12345,
    0x7FA00000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
    0xFF7FFFFF, fbits(1.0), fbits(-1.0), fbits(0.5), fbits(1.5), fbits(-2.5), fbits(3.0),
    fbits(7.0), 0x3EFFFFFF, 0x3F000001, 0x3F7FFFFF, 0x4A800001, fbits(16777216.0),
    0x4F000000, 0xCF000000, 0x5F000000, fbits(1e20), fbits(0.1), fbits(math.pi),
    fbits(1.0 / 3.0), fbits(65504.0), 0x33800000, fbits(-1e-10), fbits(1e-40),
]
F32_CORE = f32(F32_CORE_BITS)

F64_SPECIAL_BITS = [
    0x0000000000000000, 0x8000000000000000,
    0x7FF0000000000000, 0xFFF0000000000000,
    0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000012345,
    0x7FF0000000000001, 0x7FF4000000000000,
    0x0000000000000001, 0x8000000000000001, 0x000FFFFFFFFFFFFF,
    0x0010000000000000, 0x8010000000000000,
    0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
    dbits(1.0), dbits(-1.0), dbits(0.5), dbits(-0.5), dbits(1.5), dbits(2.5), dbits(-2.5),
    dbits(3.0), dbits(7.0),
    0x3FDFFFFFFFFFFFFF, 0x3FE0000000000001,    # around 0.5
    0x3FEFFFFFFFFFFFFF,                        # 1 - 2^-53
    dbits(2.0**31), dbits(-2.0**31), dbits(2.0**31 - 0.5), dbits(-2.0**31 - 1.0),
    dbits(2.0**32), dbits(2.0**32 - 1.0), dbits(2.0**63), dbits(-2.0**63), dbits(2.0**64),
    dbits(2.0**53 + 2.0), dbits(9007199254740993.0),   # 2^53 + 2, 2^53 (+1 rounds)
    dbits(1e300), dbits(1e-300), dbits(0.1), dbits(math.pi), dbits(1.0 / 3.0),
    dbits(3.4028235677973366e38),              # f32 max as f64
    dbits(3.4028235677973370e38),              # just above: rounds to f32 inf or max
    dbits(1.1754943508222875e-38),             # f32 min normal
    dbits(1.401298464324817e-45),              # f32 min denormal
    dbits(7.006492321624085e-46),              # half of it (ties to 0 / up)
    dbits(1.0000000596046448),                 # 1 + 2^-24: f32 tie
    dbits(1.0000001192092896),                 # 1 + 2^-23
]
F64_SPECIALS = f64(F64_SPECIAL_BITS)

F64_CORE_BITS = [
    0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
    0x7FF8000000000000, 0xFFF8000000012345, 0x7FF4000000000000, 0x0000000000000001,
    0x800FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
    dbits(1.0), dbits(-1.0), dbits(0.5), dbits(1.5), dbits(-2.5), dbits(3.0), dbits(7.0),
    0x3FDFFFFFFFFFFFFF, 0x3FEFFFFFFFFFFFFF, dbits(2.0**53), dbits(2.0**63),
    dbits(1e300), dbits(0.1), dbits(math.pi), dbits(1.0 / 3.0), dbits(1e-300),
]
F64_CORE = f64(F64_CORE_BITS)

I32_SPECIALS = np.array([
    0, 1, 2, 3, 7, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
    0x7FFFFF, 0x800000, 0xFFFFFF, 0x1000000, 0x7FFFFFFF, 0x80000000, 0x80000001,
    0xFFFFFFFF, 0xFFFFFFFE, 0x55555555, 0xAAAAAAAA, 0x12345678, 0xDEADBEEF,
], dtype="<u4")

I64_SPECIALS = np.array([
    0, 1, 2, 7, 0xFF, 0xFFFFFFFF, 0x100000000, 0x7FFFFFFF, 0x80000000,
    0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0x8000000000000001, 0xFFFFFFFFFFFFFFFF,
    0xFFFFFFFFFFFFFFFE, 0xFFFFFFFF80000000, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA,
    0x123456789ABCDEF0, 0xDEADBEEFCAFEBABE, 0x0000000100000001,
], dtype="<u8")

SHIFT_COUNTS = np.array(list(range(0, 71)) + [100, 255, 256, 257, 0x7FFFFFFF, 0x80000000,
                                              0xFFFFFFFF], dtype="<u4")

# ---------------------------------------------------------------------------
# The cases

CASES: list = []


def add(case):
    if any(c.name == case.name for c in CASES):
        raise ValueError(f"duplicate case {case.name}")
    CASES.append(case)
    return case


def lin(n, block=128):
    """1-D launch covering n threads."""
    return [cdiv(n, block), 1, 1], [block, 1, 1]


def elementwise(name, module, kernel, inputs, outputs, n, desc, families, extra_args=(),
                block=128, tolerance=None, issue=2, **kw):
    """The common shape: kernel(outputs..., inputs..., extra..., n)."""
    grid, blk = lin(n, block)
    args = [B(b.name) for b in outputs] + [B(b.name) for b in inputs] + list(extra_args) + [U32(n)]
    return add(Case(name, module, kernel, grid, blk, list(outputs) + list(inputs), args,
                    [b.name for b in outputs], desc, families, issue=issue,
                    tolerance=tolerance, **kw))


# -- matmul / transpose (the mission's kernels) --------------------------------

def _matmul(name, kernel, n, dtype, seed, families, desc):
    a = uniform_f32(n * n, -1, 1, seed) if dtype == "f32" else uniform_f64(n * n, -1, 1, seed)
    b = uniform_f32(n * n, -1, 1, seed + 1) if dtype == "f32" else uniform_f64(n * n, -1, 1, seed + 1)
    add(Case(name, "matmul", kernel, [cdiv(n, 16), cdiv(n, 16)], [16, 16],
             [Buf("C", dtype, n * n), Buf("A", dtype, data=a), Buf("B", dtype, data=b)],
             [B("C"), B("A"), B("B"), U32(n)], ["C"], desc, families))


_matmul("matmul_naive", "matmul_naive", 128, "f32", 101,
        ["fp32.fma", "mem.global", "ctrl.loop", "grid.2d"],
        "naive 128x128 f32 matmul, one thread per C element")
_matmul("matmul_tiled", "matmul_tiled", 128, "f32", 103,
        ["fp32.fma", "mem.shared", "cta.bar", "grid.2d"],
        "tiled 128x128 f32 matmul with 16x16 shared tiles and __syncthreads")
_matmul("matmul_tiled_ragged", "matmul_tiled", 100, "f32", 105,
        ["fp32.fma", "mem.shared", "cta.bar", "ctrl.divergence"],
        "tiled matmul with n=100 (partial tiles, zero padding, divergent bounds checks)")
_matmul("matmul_naive_f64", "matmul_naive_f64", 64, "f64", 107,
        ["fp64.fma", "mem.global"], "naive 64x64 f64 matmul")


def _transpose(name, kernel, w, h, seed, families, desc):
    add(Case(name, "transpose", kernel, [cdiv(w, 32), cdiv(h, 32)], [32, 8],
             [Buf("out", "f32", w * h), Buf("in", "f32", data=uniform_f32(w * h, -100, 100, seed))],
             [B("out"), B("in"), U32(w), U32(h)], ["out"], desc, families))


_transpose("transpose_naive", "transpose_naive", 256, 256, 111,
           ["mem.global.uncoalesced", "grid.2d"], "naive 256x256 transpose: strided stores")
_transpose("transpose_shared", "transpose_shared", 256, 256, 112,
           ["mem.shared.bank_conflict", "cta.bar"],
           "256x256 transpose through a 32x32 shared tile (32-way bank conflicts)")
_transpose("transpose_padded", "transpose_padded", 256, 256, 113,
           ["mem.shared", "cta.bar"], "256x256 transpose through a padded 32x33 tile")
_transpose("transpose_padded_rect", "transpose_padded", 200, 120, 114,
           ["mem.shared", "cta.bar", "ctrl.divergence"],
           "200x120 padded transpose (partial tiles on both edges)")

# -- integer ALU ---------------------------------------------------------------

def _int_pairs(n, seed, specials=I32_SPECIALS, dtype="<u4"):
    a, b = cross(specials, specials)
    fill = (lambda m, s: bits(m, dtype, s))
    return with_fill(a, n, lambda m: fill(m, seed)), with_fill(b, n, lambda m: fill(m, seed + 1))


_a, _b = _int_pairs(1024, 201)
_c = with_fill(np.tile(I32_SPECIALS, 3)[::-1], 1024, lambda m: bits(m, "<u4", 203))
elementwise("int_basic32", "int_arith", "int_basic32",
            [Buf("a", "u32", data=_a), Buf("b", "u32", data=_b), Buf("c", "u32", data=_c)],
            [Buf("out", "u32", 1024 * 20)], 1024,
            "32-bit add/sub/mul.lo/mul.hi/mul.wide/mad/mul24/sad/abs/min/max over int edge-value pairs",
            ["int.add", "int.mul", "int.mulhi", "int.mulwide", "int.mad", "int.mul24",
             "int.sad", "int.abs", "int.minmax"])

_a, _b = _int_pairs(512, 205, I64_SPECIALS, "<u8")
elementwise("int_basic64", "int_arith", "int_basic64",
            [Buf("a", "u64", data=_a), Buf("b", "u64", data=_b)],
            [Buf("out", "u64", 512 * 16)], 512,
            "64-bit add/sub/mul/mul.hi/mad/min/max/abs/shifts/popc/clz/ffs/brev",
            ["int64.add", "int64.mul", "int64.mulhi", "int64.minmax", "int64.shift", "int64.bits"])

_a, _b = _int_pairs(1024, 207)
elementwise("int_divrem32", "int_arith", "int_divrem32",
            [Buf("a", "u32", data=_a), Buf("b", "u32", data=_b)],
            [Buf("out", "u32", 1024 * 4)], 1024,
            "32-bit signed/unsigned div and rem in C (UB cases skipped: sentinel)",
            ["int.div", "int.rem", "ctrl.divergence"])
elementwise("int_div_edge32_asm", "int_arith", "int_div_edge32_asm",
            [Buf("a", "u32", data=_a), Buf("b", "u32", data=_b)],
            [Buf("out", "u32", 1024 * 4)], 1024,
            "div/rem.u32/.s32 via PTX on all pairs incl. divisor 0 and INT_MIN/-1 "
            "(machine-specific results recorded)",
            ["int.div", "int.rem", "asm"])

_a, _b = _int_pairs(512, 209, I64_SPECIALS, "<u8")
elementwise("int_divrem64", "int_arith", "int_divrem64",
            [Buf("a", "u64", data=_a), Buf("b", "u64", data=_b)],
            [Buf("out", "u64", 512 * 4)], 512,
            "64-bit signed/unsigned div and rem in C (UB cases skipped: sentinel)",
            ["int64.div", "int64.rem"])
elementwise("int_div_edge64_asm", "int_arith", "int_div_edge64_asm",
            [Buf("a", "u64", data=_a), Buf("b", "u64", data=_b)],
            [Buf("out", "u64", 512 * 4)], 512,
            "div/rem.u64/.s64 via PTX incl. divisor 0 and INT64_MIN/-1",
            ["int64.div", "int64.rem", "asm"])

_a, _b = _int_pairs(1024, 211)
_c = with_fill(np.concatenate([np.arange(0, 72, dtype="<u4"),
                               np.array([0x3210, 0x7654, 0x0123, 0x4444, 0x1357, 0x89AB, 0xCDEF,
                                         0xFFFF, 0x8888], dtype="<u4")]),
               1024, lambda m: bits(m, "<u4", 213))
_c = np.resize(_c, 1024)
elementwise("int_bits", "int_arith", "int_bits",
            [Buf("a", "u32", data=_a), Buf("b", "u32", data=_b), Buf("c", "u32", data=rs(214).permutation(_c))],
            [Buf("out", "u32", 1024 * 16)], 1024,
            "popc/clz/ffs/brev (32, 64), prmt (__byte_perm), shf wrap/clamp (funnel shifts), fns",
            ["int.popc", "int.clz", "int.bfind", "int.brev", "int.prmt", "int.shf", "int.fns"])
elementwise("int_simd", "int_arith", "int_simd",
            [Buf("a", "u32", data=_a), Buf("b", "u32", data=_b),
             Buf("c", "u32", data=bits(1024, "<u4", 215))],
            [Buf("out", "u32", 1024 * 13)], 1024,
            "SIMD-in-word intrinsics (__vadd4, __vabsdiffu4, __vcmpgtu4, ...) and dp4a/dp2a",
            ["int.simd", "int.dp4a", "int.dp2a"])

_x, _s = cross(I32_SPECIALS, SHIFT_COUNTS)
_x64 = np.resize(I64_SPECIALS, _x.size)
_n = _x.size
elementwise("int_shift_asm", "int_arith", "int_shift_asm",
            [Buf("a", "u32", data=_x), Buf("a64", "u64", data=_x64), Buf("cnt", "u32", data=_s)],
            [Buf("out32", "u32", _n * 8), Buf("out64", "u64", _n * 3)], _n,
            "shl/shr.u32/.s32/.b64 via PTX with counts 0..70 and huge (clamped), shf via PTX, "
            "masked C shifts",
            ["int.shift", "int64.shift", "int.shf", "asm"])

_pos = np.resize(np.array(list(range(0, 41)) + [63, 64, 65, 255, 256, 300, 0x121], dtype="<u4"), 1024)
_len = np.resize(np.array(list(range(0, 35)) + [63, 64, 255, 256, 0x108], dtype="<u4"), 1024)
_len = rs(217).permutation(_len)
elementwise("int_bfe_bfi_asm", "int_arith", "int_bfe_bfi_asm",
            [Buf("a", "u32", data=bits(1024, "<u4", 218)), Buf("b", "u32", data=bits(1024, "<u4", 219)),
             Buf("a64", "u64", data=bits(1024, "<u8", 220)), Buf("pos", "u32", data=_pos),
             Buf("len", "u32", data=_len)],
            [Buf("out32", "u32", 1024 * 3), Buf("out64", "u64", 1024 * 3)], 1024,
            "bfe.u32/.s32/.u64/.s64 and bfi.b32/.b64 via PTX with positions/lengths 0..300",
            ["int.bfe", "int.bfi", "asm"])
elementwise("int_lop3", "int_arith", "int_lop3",
            [Buf("a", "u32", data=bits(1024, "<u4", 221)), Buf("b", "u32", data=bits(1024, "<u4", 222)),
             Buf("c", "u32", data=bits(1024, "<u4", 223))],
            [Buf("out", "u32", 1024 * 14)], 1024,
            "mixed boolean expressions (lop3 at -O3) and lop3.b32 with explicit truth tables",
            ["int.logic", "int.lop3", "asm"])

_limbs_a = bits(512 * 4, "<u4", 225)
_limbs_b = bits(512 * 4, "<u4", 226)
_limbs_a[:64] = 0xFFFFFFFF                    # force carry/borrow chains
_limbs_b[:32] = 1
_limbs_b[32:64] = 0
_limbs_a[64:96] = 0
_limbs_b[64:96] = 0xFFFFFFFF
elementwise("int_carry_asm", "int_arith", "int_carry_asm",
            [Buf("a", "u32", data=_limbs_a), Buf("b", "u32", data=_limbs_b)],
            [Buf("out", "u32", 512 * 24)], 512,
            "128-bit add/sub and 64x64->128 multiply with add.cc/addc/sub.cc/subc/mad.cc/madc "
            "chains, add.cc.u64, add.sat/sub.sat.s32, mul24.hi, mad.hi.sat",
            ["int.carry", "int.sat", "int.mul24", "asm"])

_s8 = with_fill(np.array([-128, -127, -1, 0, 1, 126, 127], dtype="<i1"), 1024,
                lambda m: bits(m, "<i1", 227))
_u8 = with_fill(np.array([0, 1, 127, 128, 254, 255], dtype="<u1"), 1024, lambda m: bits(m, "<u1", 228))
_s16 = with_fill(np.array([-32768, -32767, -1, 0, 1, 32766, 32767], dtype="<i2"), 1024,
                 lambda m: bits(m, "<i2", 229))
_u16 = with_fill(np.array([0, 1, 32767, 32768, 65534, 65535], dtype="<u2"), 1024,
                 lambda m: bits(m, "<u2", 230))
add(Case("int_small_types", "int_arith", "int_small_types", *lin(1024),
         [Buf("out", "s32", 1024 * 8), Buf("o8", "s8", 1024), Buf("o16", "s16", 1024),
          Buf("s8", "s8", data=_s8), Buf("u8", "u8", data=_u8), Buf("s16", "s16", data=_s16),
          Buf("u16", "u16", data=_u16)],
         [B("out"), B("o8"), B("o16"), B("s8"), B("u8"), B("s16"), B("u16"), U32(1024)],
         ["out", "o8", "o16"],
         "8/16-bit loads and stores, sign/zero extension, narrow wraparound arithmetic",
         ["int.small", "mem.global.u8", "mem.global.u16", "cvt.int"]))

# -- floating point -------------------------------------------------------------

def _fpairs(core, n, rand, seed):
    a, b = cross(core, core)
    ra, rb = rand(n - a.size, seed), rand(n - a.size, seed + 1)
    return np.concatenate([a, ra]), np.concatenate([b, rb])


def _rand_f32_mixed(m, seed):
    """Half wide-exponent random bit patterns, half values in [-4, 4]."""
    h = m // 2
    return np.concatenate([finite_bits_f32(h, seed), uniform_f32(m - h, -4, 4, seed + 7)])


def _rand_f64_mixed(m, seed):
    h = m // 2
    b = bits(h, "<u8", seed)
    exp = (b >> np.uint64(52)) & np.uint64(0x7FF)
    b = np.where(exp == 0x7FF, b ^ np.uint64(1 << 62), b)
    return np.concatenate([b.view("<f8"), uniform_f64(m - h, -4, 4, seed + 7)])


_a, _b = _fpairs(F32_CORE, 2048, _rand_f32_mixed, 301)
_c = np.concatenate([np.resize(F32_CORE[::-1], 1296), _rand_f32_mixed(2048 - 1296, 303)])
_fa, _fb, _fc = Buf("a", "f32", data=_a), Buf("b", "f32", data=_b), Buf("c", "f32", data=_c)
elementwise("f32_arith", "float_arith", "f32_arith", [_fa, _fb, _fc],
            [Buf("out", "f32", 2048 * 10)], 2048,
            "f32 + - * / sqrt fma, contracted and uncontracted a*b+c, neg, 1/x over edge pairs",
            ["fp32.add", "fp32.mul", "fp32.div", "fp32.sqrt", "fp32.fma", "fp32.rcp"])
elementwise("f32_ftz_asm", "float_arith", "f32_ftz_asm", [_fa, _fb, _fc],
            [Buf("out", "f32", 2048 * 14)], 2048,
            ".ftz and .sat forms via PTX: add/sub/mul/fma/div.rn/sqrt.rn/rcp.rn .ftz, add.sat, "
            "setp.ftz, min.ftz, cvt.rni.ftz, cvt.ftz.f64.f32",
            ["fp32.ftz", "fp32.sat", "asm"])

_a, _b = _fpairs(F32_CORE, 2064, _rand_f32_mixed, 305)
_c = np.concatenate([np.resize(F32_CORE[::-1], 1296), _rand_f32_mixed(2064 - 1296, 307)])
elementwise("f32_round", "float_arith", "f32_round",
            [Buf("a", "f32", data=_a), Buf("b", "f32", data=_b), Buf("c", "f32", data=_c)],
            [Buf("out", "f32", 2064 * 28)], 2064,
            "f32 add/sub/mul/div/fma/rcp/sqrt in each of rn rz ru rd (__fadd_rz, ...)",
            ["fp32.round", "fp32.add", "fp32.mul", "fp32.div", "fp32.fma", "fp32.rcp", "fp32.sqrt"])

_a, _b = cross(F32_CORE, F32_CORE)
elementwise("f32_minmax", "float_arith", "f32_minmax",
            [Buf("a", "f32", data=_a), Buf("b", "f32", data=_b)],
            [Buf("out", "f32", _a.size * 12)], _a.size,
            "fminf/fmaxf/fabsf/copysignf/__saturatef/fdimf, min/max.NaN, .ftz, .xorsign.abs via PTX",
            ["fp32.minmax", "fp32.abs", "fp32.sat", "asm"])

_a, _b = _fpairs(F64_CORE, 1024, _rand_f64_mixed, 309)
_c = np.concatenate([np.resize(F64_CORE[::-1], 784), _rand_f64_mixed(1024 - 784, 311)])
elementwise("f64_arith", "float_arith", "f64_arith",
            [Buf("a", "f64", data=_a), Buf("b", "f64", data=_b), Buf("c", "f64", data=_c)],
            [Buf("out", "f64", 1024 * 10)], 1024,
            "f64 + - * / sqrt fma, contracted and uncontracted, neg, 1/x over edge pairs",
            ["fp64.add", "fp64.mul", "fp64.div", "fp64.sqrt", "fp64.fma", "fp64.rcp"],
            # which NaN an fma returns when several operands are NaN follows
            # ptxas's register order (not fixed by the PTX): any NaN matches
            tolerance={"any_nan": True})

_a, _b = _fpairs(F64_CORE, 1040, _rand_f64_mixed, 313)
_c = np.concatenate([np.resize(F64_CORE[::-1], 784), _rand_f64_mixed(1040 - 784, 315)])
elementwise("f64_round", "float_arith", "f64_round",
            [Buf("a", "f64", data=_a), Buf("b", "f64", data=_b), Buf("c", "f64", data=_c)],
            [Buf("out", "f64", 1040 * 28)], 1040,
            "f64 add/sub/mul/div/fma/rcp/sqrt in each of rn rz ru rd (__dadd_rz, ...)",
            ["fp64.round", "fp64.add", "fp64.mul", "fp64.div", "fp64.fma", "fp64.rcp", "fp64.sqrt"],
            tolerance={"any_nan": True})

_a, _b = cross(F64_CORE, F64_CORE)
elementwise("f64_minmax", "float_arith", "f64_minmax",
            [Buf("a", "f64", data=_a), Buf("b", "f64", data=_b)],
            [Buf("out", "f64", _a.size * 6)], _a.size,
            "fmin/fmax/fabs/copysign/fdim and neg.f64", ["fp64.minmax", "fp64.abs"])

_halves = f32([fbits(k + 0.5) for k in range(-8, 8)] + [fbits(k + 0.49999997) for k in range(0, 4)])
_x = with_fill(np.concatenate([F32_SPECIALS, _halves]), 1024, lambda m: _rand_f32_mixed(m, 317))
_d = with_fill(np.concatenate([F64_SPECIALS, f64([dbits(k + 0.5) for k in range(-8, 8)])]), 1024,
               lambda m: _rand_f64_mixed(m, 319))
elementwise("fp_roundint", "float_arith", "fp_roundint",
            [Buf("a", "f32", data=_x), Buf("ad", "f64", data=_d)],
            [Buf("outf", "f32", 1024 * 6), Buf("outd", "f64", 1024 * 6), Buf("outl", "s64", 1024 * 2)],
            1024, "rintf/truncf/floorf/ceilf/roundf/modff, f64 likewise, llrintf/llround",
            ["fp32.cvt_rni", "fp64.cvt_rni", "cvt.f2i"])
elementwise("fp_classify", "float_arith", "fp_classify",
            [Buf("a", "f32", data=with_fill(F32_SPECIALS, 1024, lambda m: bits(m, "<u4", 321).view("<f4"))),
             Buf("ad", "f64", data=with_fill(F64_SPECIALS, 1024, lambda m: bits(m, "<u8", 322).view("<f8")))],
            [Buf("out", "u32", 1024)], 1024,
            "isnan/isinf/isfinite/signbit and testp.finite/infinite/number/notanumber/normal/"
            "subnormal on f32 and f64",
            ["fp32.testp", "fp64.testp", "asm"])

# libm
_big = np.array([1e4, -1e4, 123456.7, 1e6, -1e6, 1e10, 1e20, -1e30, 3.0e38, 1.5707964, 3.1415927,
                 -3.1415927, 4.712389, 6.2831855, 52.0, 1e-20, 105414.36], dtype="<f4")
_trig = np.concatenate([F32_SPECIALS, _big])
_x = with_fill(_trig, 2048, lambda m: np.concatenate([uniform_f32(m // 2, -10, 10, 331),
                                                       finite_bits_f32(m - m // 2, 332)]))
elementwise("libm_f32_trig", "float_libm", "libm_f32_trig", [Buf("a", "f32", data=_x)],
            [Buf("out", "f32", 2048 * 4)], 2048,
            "full-precision sinf/cosf/sincosf incl. huge arguments (Payne-Hanek: local array, "
            "__cudart_i2opi_f table)",
            ["libm.f32", "mem.local", "mem.global.const_table"])
_x = with_fill(F32_SPECIALS, 1024, lambda m: uniform_f32(m, -100, 100, 333))
_y = with_fill(F32_SPECIALS[::-1], 1024, lambda m: uniform_f32(m, -100, 100, 334))
elementwise("libm_f32_exact", "float_libm", "libm_f32_exact",
            [Buf("a", "f32", data=_x), Buf("b", "f32", data=_y)],
            [Buf("out", "f32", 1024 * 10), Buf("outi", "s32", 1024 * 2)], 1024,
            "logf/log2f/log1pf/hypotf/atan2f/asinf/atanf/sinpif/nextafterf/frexpf/ilogbf "
            "(no approximate instructions with nvcc 11.8)",
            ["libm.f32"])
_x = with_fill(np.concatenate([F32_SPECIALS, uniform_f32(64, -90, 90, 335)]), 1024,
               lambda m: uniform_f32(m, -20, 20, 336))
_y = uniform_f32(1024, -8, 8, 337)
elementwise("libm_f32_sfu", "float_libm", "libm_f32_sfu",
            [Buf("a", "f32", data=_x), Buf("b", "f32", data=_y)],
            [Buf("out", "f32", 1024 * 12)], 1024,
            "expf/exp2f/expm1f/powf/tanhf/tanf/fmodf/remainderf/ldexpf/__frsqrt_rn/cbrtf/erff: "
            "code that goes through ex2/lg2/rcp/rsqrt/div .approx",
            ["libm.f32", "sfu"])
_x = with_fill(np.concatenate([F64_SPECIALS, np.array([1e6, -1e6, 1e15, 1e22, 1e300, 3.14159265358979,
                                                        1.5707963267948966], dtype="<f8")]),
               1024, lambda m: uniform_f64(m, -50, 50, 338))
_y = with_fill(F64_SPECIALS[::-1], 1024, lambda m: uniform_f64(m, -700, 700, 339))
elementwise("libm_f64", "float_libm", "libm_f64",
            [Buf("a", "f64", data=_x), Buf("b", "f64", data=_y)],
            [Buf("out", "f64", 1024 * 4)], 1024,
            "f64 sin/cos/exp/atan2 (sin/cos: local array and __cudart_i2opi_d for huge args)",
            ["libm.f64", "mem.local"])
elementwise("libm_f64_sfu", "float_libm", "libm_f64_sfu",
            [Buf("a", "f64", data=_x), Buf("b", "f64", data=uniform_f64(1024, -40, 40, 340))],
            [Buf("out", "f64", 1024 * 2)], 1024,
            "f64 log and pow (their code starts from rcp.approx.ftz.f64)",
            ["libm.f64", "sfu"])

_xa = uniform_f32(1024, -math.pi, math.pi, 341)
_xa[:4] = [0.0, -0.0, 1e-30, math.pi / 2]
_pa = loguniform_f32(1024, 1e-3, 1e3, 342)
_pa[:3] = [1.0, 2.0, 0.5]
_ba = uniform_f32(1024, -4, 4, 343)
elementwise("fast_intrinsics", "float_libm", "fast_intrinsics",
            [Buf("a", "f32", data=_xa), Buf("p", "f32", data=_pa), Buf("b", "f32", data=_ba)],
            [Buf("out", "f32", 1024 * 12)], 1024,
            "__sinf/__cosf/__expf/__logf/__exp10f/__log2f/__log10f/__powf/rsqrtf/__fdividef/"
            "__tanf/__sincosf (SFU approximations)",
            ["sfu", "fp32.approx"])
add(Case("sfu_asm", "float_libm", "sfu_asm", *lin(1024),
         [Buf("out", "f32", 1024 * 10), Buf("outd", "f64", 1024 * 2),
          Buf("a", "f32", data=_xa), Buf("p", "f32", data=_pa)],
         [B("out"), B("outd"), B("a"), B("p"), U32(1024)], ["out", "outd"],
         "ex2/lg2/sin/cos/rcp/rsqrt/sqrt .approx.f32, div.approx/div.full, rcp.approx.ftz.f64, "
         "rsqrt.approx.f64 via PTX",
         ["sfu", "asm"]))
_x = with_fill(np.concatenate([F32_SPECIALS]), 1024, lambda m: uniform_f32(m, -6, 6, 344))
elementwise("tanh_approx_asm", "float_libm", "tanh_approx_asm", [Buf("a", "f32", data=_x)],
            [Buf("out", "f32", 1024)], 1024, "tanh.approx.f32 via PTX (relative error ~2^-11)",
            ["sfu", "asm"])

# -- conversions ----------------------------------------------------------------

_bound32 = f32([fbits(x) for x in (2147483520.0, -2147483648.0, 4294967040.0, -0.99999994,
                                    -0.5, 0.5, 1.5, 2.5, -1.5, 9.2233715e18, 1.8446743e19,
                                    -9.223372e18, 4294967296.0)])
_x = with_fill(np.concatenate([F32_SPECIALS, _bound32, _halves]), 1024,
               lambda m: _rand_f32_mixed(m, 351))
add(Case("cvt_f2i", "convert", "cvt_f2i", *lin(1024),
         [Buf("out32", "u32", 1024 * 8), Buf("out64", "u64", 1024 * 8), Buf("a", "f32", data=_x)],
         [B("out32"), B("out64"), B("a"), U32(1024)], ["out32", "out64"],
         "f32 -> s32/u32/s64/u64 in rn rz ru rd (cvt.rni/rzi/rpi/rmi), NaN/inf/out-of-range saturation",
         ["cvt.f2i", "cvt.sat"]))
_bound64 = f64([dbits(x) for x in (2147483647.0, 2147483647.5, 2147483648.0, -2147483648.5,
                                    -2147483649.0, 4294967295.0, 4294967295.5, 4294967296.0,
                                    9.223372036854775e18, 1.8446744073709552e19, -0.5, 0.5,
                                    1.5, 2.5, -1e-300)])
_d = with_fill(np.concatenate([F64_SPECIALS, _bound64]), 1024, lambda m: _rand_f64_mixed(m, 353))
add(Case("cvt_d2i", "convert", "cvt_d2i", *lin(1024),
         [Buf("out32", "u32", 1024 * 8), Buf("out64", "u64", 1024 * 8), Buf("a", "f64", data=_d)],
         [B("out32"), B("out64"), B("a"), U32(1024)], ["out32", "out64"],
         "f64 -> s32/u32/s64/u64 in rn rz ru rd, NaN/inf/out-of-range saturation",
         ["cvt.d2i", "cvt.sat"]))
_i32 = with_fill(np.concatenate([I32_SPECIALS, np.array([16777217, 16777219, 0xFFFFFF7F, 0x7FFFFFBF,
                                                          0x80000040], dtype="<u4")]),
                 1024, lambda m: bits(m, "<u4", 355))
_i64 = with_fill(np.concatenate([I64_SPECIALS, np.array([2**53 + 1, 2**53 + 3, 2**63 + 1025,
                                                          2**24 + 1, 0xFFFFFFFFFFFFF800], dtype="<u8")]),
                 1024, lambda m: bits(m, "<u8", 356))
add(Case("cvt_i2f", "convert", "cvt_i2f", *lin(1024),
         [Buf("outf", "f32", 1024 * 16), Buf("outd", "f64", 1024 * 10),
          Buf("a32", "u32", data=_i32), Buf("a64", "u64", data=_i64)],
         [B("outf"), B("outd"), B("a32"), B("a64"), U32(1024)], ["outf", "outd"],
         "s32/u32/s64/u64 -> f32 in rn rz ru rd and -> f64", ["cvt.i2f"]))
add(Case("cvt_fp_width", "convert", "cvt_fp_width", *lin(1024),
         [Buf("outf", "f32", 1024 * 4), Buf("outd", "f64", 1024 * 2), Buf("outi", "s32", 1024 * 2),
          Buf("a", "f64", data=_d), Buf("b", "f32", data=_x)],
         [B("outf"), B("outd"), B("outi"), B("a"), B("b"), U32(1024)], ["outf", "outd", "outi"],
         "f64 -> f32 in rn rz ru rd (overflow, denormal results), f32 -> f64, hi/lo words",
         ["cvt.f2f", "fp64.bits"]))
_f16b = f32([fbits(x) for x in (65504.0, 65519.996, 65520.0, 65536.0, 6.1035156e-05, 6.097555e-05,
                                 5.9604645e-08, 2.9802322e-08, 2.9802326e-08, 1.0009766, 1.0004883,
                                 1.0014648, -2049.0, 2049.0, 2051.0)])
_x = with_fill(np.concatenate([F32_SPECIALS, _f16b]), 2048, lambda m: np.concatenate(
    [uniform_f32(m // 2, -70000, 70000, 357), finite_bits_f32(m - m // 2, 358)]))
_h = np.concatenate([np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE12, 0x0001, 0x03FF,
                               0x0400, 0x7BFF, 0x3C00, 0xBC00, 0x3555], dtype="<u2"),
                     bits(2048 - 14, "<u2", 359)])
add(Case("cvt_f16", "convert", "cvt_f16", *lin(2048),
         [Buf("outh", "u16", 2048 * 14), Buf("outf", "f32", 2048 * 2), Buf("outi", "s32", 2048),
          Buf("a", "f32", data=_x), Buf("h", "u16", data=_h)],
         [B("outh"), B("outf"), B("outi"), B("a"), B("h"), U32(2048)], ["outh", "outf", "outi"],
         "f32->f16 rn/rz/ru/rd, f64->f16, half2 pack, f16->f32, f16 add/mul/fma/sub/neg, "
         "half2 add, f16<->int",
         ["cvt.f16", "fp16.arith"]))
_hb = np.concatenate([np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x0001, 0x007F,
                                0x0080, 0x7F7F, 0x3F80, 0xBF80], dtype="<u2"),
                      bits(2048 - 12, "<u2", 360)])
_x2 = with_fill(np.concatenate([F32_SPECIALS, f32([0x3F808000, 0x3F818000, 0x3F808001, 0x7F7F8000,
                                                   0x7F7FFFFF, 0x00008000])]), 2048,
                lambda m: finite_bits_f32(m, 361))
add(Case("cvt_bf16", "convert", "cvt_bf16", *lin(2048),
         [Buf("outb", "u16", 2048 * 10), Buf("outf", "f32", 2048),
          Buf("a", "f32", data=_x2), Buf("h", "u16", data=_hb)],
         [B("outb"), B("outf"), B("a"), B("h"), U32(2048)], ["outb", "outf"],
         "f32->bf16 rn/rz/ru/rd, f64->bf16, bf16x2 pack, bf16->f32, bf16 add/mul/fma/sub (sm_90)",
         ["cvt.bf16", "bf16.arith"]))
_u64 = with_fill(I64_SPECIALS, 1024, lambda m: bits(m, "<u8", 362))
_fs = with_fill(np.concatenate([F32_SPECIALS, f32([fbits(x) for x in (127.5, 128.0, -128.5, 255.5,
                                                                      256.0, 65535.5, -0.5)])]),
                1024, lambda m: uniform_f32(m, -70000, 70000, 363))
add(Case("cvt_int_width", "convert", "cvt_int_width", *lin(1024),
         [Buf("out", "u64", 1024 * 8), Buf("outs", "u32", 1024 * 8),
          Buf("a", "u64", data=_u64), Buf("f", "f32", data=_fs)],
         [B("out"), B("outs"), B("a"), B("f"), U32(1024)], ["out", "outs"],
         "narrowing/widening integer casts, cvt.sat to 8/16/32 bits and float->8/16-bit via PTX",
         ["cvt.int", "cvt.sat", "asm"]))

# -- comparisons ------------------------------------------------------------------

_a, _b = cross(F32_SPECIALS, F32_SPECIALS)
elementwise("fcmp_f32", "compare", "fcmp_f32", [Buf("a", "f32", data=_a), Buf("b", "f32", data=_b)],
            [Buf("out", "u32", _a.size * 2)], _a.size,
            "every ordered/unordered f32 comparison: C operators, negations, isnan-based "
            "unordered, setp eq..nan and .ftz via PTX",
            ["fp32.setp", "asm"])
_a, _b = cross(F64_SPECIALS, F64_SPECIALS)
elementwise("fcmp_f64", "compare", "fcmp_f64", [Buf("a", "f64", data=_a), Buf("b", "f64", data=_b)],
            [Buf("out", "u32", _a.size * 2)], _a.size,
            "every ordered/unordered f64 comparison, setp eq..nan via PTX", ["fp64.setp", "asm"])
_a, _b = _int_pairs(1024, 371)
_A, _B = _int_pairs(1024, 373, I64_SPECIALS, "<u8")
elementwise("icmp", "compare", "icmp",
            [Buf("a", "u32", data=_a), Buf("b", "u32", data=_b), Buf("a64", "u64", data=_A),
             Buf("b64", "u64", data=_B)],
            [Buf("out", "u32", 1024)], 1024,
            "signed/unsigned 32/64-bit comparisons, setp.lo/ls/hi/hs via PTX", ["int.setp"])
_sa = with_fill(I32_SPECIALS.view("<i4"), 1024, lambda m: ints(m, -1000, 1000, "<i4", 375))
_sb = with_fill(I32_SPECIALS.view("<i4")[::-1], 1024, lambda m: ints(m, -1000, 1000, "<i4", 376))
_fa = with_fill(F32_CORE, 1024, lambda m: uniform_f32(m, -10, 10, 377))
_fb = with_fill(F32_CORE[::-1], 1024, lambda m: uniform_f32(m, -10, 10, 378))
elementwise("select_logic", "compare", "select_logic",
            [Buf("a", "s32", data=_sa), Buf("b", "s32", data=_sb), Buf("f", "f32", data=_fa),
             Buf("g", "f32", data=_fb)],
            [Buf("out", "u32", 1024 * 12)], 1024,
            "?: (selp), set/slct via PTX, setp with .and/.or/.xor, and/or/xor/not.pred, "
            "predicated branch in PTX, && || in C",
            ["select", "pred", "asm"])

# -- control flow -------------------------------------------------------------------

_col = with_fill(np.array([0, 1, 2, 3, 6, 7, 9, 27, 97, 871, 6171, 77031, 837799, 0xFFFFFFFF,
                           0x80000000, 8400511], dtype="<u4"), 1024,
                 lambda m: ints(m, 1, 100000, "<u4", 401))
elementwise("collatz", "control", "collatz", [Buf("in", "u32", data=_col)],
            [Buf("steps", "u32", 1024), Buf("peak", "u32", 1024)], 1024,
            "Collatz step counts: divergent while loop with per-thread trip counts, break, continue",
            ["ctrl.loop", "ctrl.divergence", "ctrl.break"])
elementwise("nested_divergence", "control", "nested_divergence",
            [Buf("in", "s32", data=ints(1024, -100000, 100000, "<i4", 403))],
            [Buf("out", "s32", 1024)], 1024,
            "nested if/else by data bits, loops with continue/break, early return",
            ["ctrl.divergence", "ctrl.return", "ctrl.loop"])
_sw = with_fill(np.array([3, 17, 100, 200, 255, 256 + 3, 0], dtype="<u4"), 1024,
                lambda m: bits(m, "<u4", 405))
elementwise("switch_dense", "control", "switch_dense", [Buf("in", "u32", data=_sw)],
            [Buf("out", "u32", 1024)], 1024,
            "dense 12-way switch and a sparse switch with fallthrough", ["ctrl.switch"])
elementwise("brx_idx_asm", "control", "brx_idx_asm", [Buf("in", "u32", data=bits(1024, "<u4", 406))],
            [Buf("out", "u32", 1024)], 1024,
            "indirect branch through a jump table: brx.idx with .branchtargets via PTX",
            ["ctrl.brx", "asm"])
elementwise("noinline_call", "control", "noinline_call",
            [Buf("in", "f32", data=uniform_f32(1024, -8, 8, 407)),
             Buf("bi", "s32", data=ints(1024, -1000, 1000, "<i4", 408))],
            [Buf("out", "f32", 1024 * 2)], 1024,
            "a __noinline__ function with float/int/unsigned/double/pointer params and a "
            "return value (call, .param), called twice",
            ["ctrl.call"])
_tree = ints(127, -1000, 1000, "<i4", 409)
add(Case("recursion", "control", "recursion", *lin(256, 64),
         [Buf("out", "u32", 256 * 3), Buf("in", "u32", data=ints(256, 0, 1 << 20, "<u4", 410)),
          Buf("tree", "s32", data=_tree)],
         [B("out"), B("in"), B("tree"), U32(127), U32(256)], ["out"],
         "recursive __noinline__ fib, ackermann (m<=2) and a tree sum over a heap array",
         ["ctrl.call", "ctrl.recursion", "mem.local.stack"], stack_bytes=8192))
add(Case("struct_return", "control", "struct_return", *lin(512),
         [Buf("of", "f32", 512), Buf("oi", "s32", 1024), Buf("od", "f64", 512),
          Buf("a", "f32", data=uniform_f32(512, -100, 100, 411)),
          Buf("b", "s32", data=ints(512, -100000, 100000, "<i4", 412))],
         [B("of"), B("oi"), B("od"), B("a"), B("b"), U32(512)], ["of", "oi", "od"],
         "a __noinline__ function returning a struct {float,int,double,short} by value",
         ["ctrl.call", "ctrl.struct_return"]))
elementwise("data_loop", "control", "data_loop",
            [Buf("in", "f32", data=loguniform_f32(1024, 1e-6, 1e6, 413))],
            [Buf("out", "f32", 1024), Buf("iters", "u32", 1024)], 1024,
            "Newton sqrt iteration until it stops decreasing: data-dependent do-while exit",
            ["ctrl.loop", "ctrl.divergence", "fp32.div"])

# -- memory spaces --------------------------------------------------------------------

add(Case("const_mem", "memspace", "const_mem", *lin(1024),
         [Buf("out", "f32", 2048), Buf("in", "f32", data=uniform_f32(1024, -10, 10, 501)),
          Buf("idx", "u32", data=bits(1024, "<u4", 502))],
         [B("out"), B("in"), B("idx"), U32(1024)], ["out"],
         "__constant__ arrays written through spec symbols, an initialised __constant__ table; "
         "uniform and divergent constant reads",
         ["mem.const", "symbols"],
         symbols=[Buf("coef", "f32", data=uniform_f32(16, -2, 2, 503)),
                  Buf("lut", "s32", data=ints(256, -100000, 100000, "<i4", 504))]))
add(Case("device_globals", "memspace", "device_globals", [1], [64],
         [Buf("out", "f32", 64), Buf("out64", "u64", 64)],
         [B("out"), B("out64")], ["out", "out64"],
         "__device__ globals written through spec symbols, updated per thread, and an "
         "initialised __device__ u64",
         ["mem.global.symbol", "symbols", "membar"],
         symbols=[Buf("g_scale", "f32", data=np.array([0.75], dtype="<f4")),
                  Buf("g_table", "s32", data=ints(64, -5000, 5000, "<i4", 505))]))
add(Case("shared_static", "memspace", "shared_static", [16], [256],
         [Buf("out", "f32", 4096), Buf("outd", "f64", 4096), Buf("outb", "u8", 4096),
          Buf("in", "f32", data=uniform_f32(4096, -50, 50, 506))],
         [B("out"), B("outd"), B("outb"), B("in")], ["out", "outd", "outb"],
         "static __shared__ arrays of f32, f64 and u8; block-reversed reads",
         ["mem.shared", "cta.bar"]))
add(Case("dynamic_shared", "memspace", "dynamic_shared", [8], [256],
         [Buf("out", "f32", 2048), Buf("dsz", "u32", 8),
          Buf("in", "f32", data=uniform_f32(2048, -5, 5, 507))],
         [B("out"), B("dsz"), B("in"), U32(4)], ["out", "dsz"],
         "extern __shared__ dynamic shared memory (4 KiB) and %dynamic_smem_size",
         ["mem.shared.dynamic", "sreg"], dyn_smem=256 * 4 * 4))
add(Case("dynamic_shared_big", "memspace", "dynamic_shared", [4], [256],
         [Buf("out", "f32", 1024), Buf("dsz", "u32", 4),
          Buf("in", "f32", data=uniform_f32(1024, -5, 5, 508))],
         [B("out"), B("dsz"), B("in"), U32(80)], ["out", "dsz"],
         "80 KiB of dynamic shared memory (above the 48 KiB default: the function's limit is raised)",
         ["mem.shared.dynamic", "sreg"], dyn_smem=256 * 80 * 4))
add(Case("local_array", "memspace", "local_array", *lin(512),
         [Buf("out", "s32", 512), Buf("outf", "f32", 512 * 16),
          Buf("idx", "s32", data=ints(512, -1000, 1000, "<i4", 509)),
          Buf("vals", "f32", data=uniform_f32(512 * 16, -100, 100, 510))],
         [B("out"), B("outf"), B("idx"), B("vals"), U32(512)], ["out", "outf"],
         "local arrays with run-time indices (.local depot): read-modify-write and a per-thread "
         "insertion sort",
         ["mem.local"]))
add(Case("generic_ptr", "memspace", "generic_ptr", [4], [64],
         [Buf("out", "f32", 256 * 4), Buf("cls", "u32", 256 * 4),
          Buf("in", "f32", data=uniform_f32(256 + 8, -10, 10, 511))],
         [B("out"), B("cls"), B("in"), U32(256)], ["out", "cls"],
         "generic pointers into global/shared/local/const memory through one __noinline__ "
         "function (cvta, generic ld), __isShared/__isGlobal/__isLocal/__isConstant (isspacep)",
         ["mem.generic", "mem.cvta", "mem.isspacep", "ctrl.call"],
         symbols=[Buf("cvals", "f32", data=uniform_f32(8, -3, 3, 512))]))
add(Case("vector_ldst", "memspace", "vector_ldst", *lin(1024),
         [Buf("o4", "f32", 1024 * 8), Buf("oi2", "s32", 1024 * 2), Buf("od2", "f64", 1024 * 2),
          Buf("ob4", "u8", 1024 * 4),
          Buf("a4", "f32", data=uniform_f32(1024 * 4, -9, 9, 513)),
          Buf("ai2", "s32", data=bits(1024 * 2, "<i4", 514)),
          Buf("ad2", "f64", data=uniform_f64(1024 * 2, -9, 9, 515)),
          Buf("ab4", "u8", data=bits(1024 * 4, "<u1", 516))],
         [B("o4"), B("oi2"), B("od2"), B("ob4"), B("a4"), B("ai2"), B("ad2"), B("ab4"), U32(1024)],
         ["o4", "oi2", "od2", "ob4"],
         "float4/int2/double2/uchar4 vector loads and stores (ld/st.v2/.v4), __ldg of float4",
         ["mem.global.vector", "mem.global.nc"]))
add(Case("cache_hints", "memspace", "cache_hints", *lin(1024),
         [Buf("out", "f32", 1024 * 6), Buf("vol", "f32", 1024),
          Buf("in", "f32", data=uniform_f32(1024, -9, 9, 517))],
         [B("out"), B("vol"), B("in"), U32(1024)], ["out", "vol"],
         "ld.global.nc/.cg/.ca/.cs/.lu/.cv, st.global.wb/.cg/.cs/.wt, volatile load/store",
         ["mem.global.cacheop", "mem.volatile"]))
add(Case("grid3d", "memspace", "grid3d", [4, 3, 2], [8, 4, 2],
         [Buf("out", "u32", 24 * 64 * 8)], [B("out")], ["out"],
         "3D grid and block: %tid/%ntid/%ctaid/%nctaid .x/.y/.z, %laneid, %lanemask_*",
         ["sreg", "grid.3d"]))
add(Case("grid3d_partial", "memspace", "grid3d", [3, 2, 2], [5, 3, 3],
         [Buf("out", "u32", 12 * 45 * 8)], [B("out")], ["out"],
         "3D launch with 45-thread blocks (a partial second warp)",
         ["sreg", "grid.3d", "warp.partial"]))
add(Case("saxpy_grid_stride", "memspace", "saxpy_grid_stride", [8], [128],
         [Buf("y", "f32", data=uniform_f32(10000, -1, 1, 518)),
          Buf("x", "f32", data=uniform_f32(10000, -1, 1, 519))],
         [B("y"), B("x"), F32(2.5), U32(10000)], ["y"],
         "grid-stride loop (saxpy, y in place), fewer threads than elements",
         ["ctrl.loop", "fp32.fma"]))
add(Case("param_types", "memspace", "param_types", [1], [32],
         [Buf("out", "u64", 32 * 11)],
         [B("out"), U8(200), S8(-5), U16(60000), S16(-12345), U32(4000000000), S32(-2000000000),
          U64(0xFEDCBA9876543210), S64(-1234567890123), F32(-1.5), F64(3.141592653589793)],
         ["out"], "one parameter of every scalar type (.u8 .s8 .u16 .s16 .u32 .s32 .u64 .s64 .f32 .f64)",
         ["param"]))

# -- CTA-level ------------------------------------------------------------------------

add(Case("reduce_sum_f32", "cta", "reduce_sum_f32", [128], [256],
         [Buf("partial", "f32", 128), Buf("in", "f32", data=uniform_f32(65536, -1, 1, 601))],
         [B("partial"), B("in"), U32(65536)], ["partial"],
         "shared-memory tree reduction with a barrier per level", ["cta.reduce", "mem.shared", "cta.bar"]))
add(Case("scan_blelloch", "cta", "scan_blelloch", [16], [256],
         [Buf("out", "u32", 8192), Buf("block_sums", "u32", 16),
          Buf("in", "u32", data=ints(8192, 0, 1000, "<u4", 602))],
         [B("out"), B("block_sums"), B("in")], ["out", "block_sums"],
         "Blelloch work-efficient exclusive scan of 512 u32 per block", ["cta.scan", "mem.shared"]))
add(Case("bitonic_sort", "cta", "bitonic_sort", [8], [512],
         [Buf("data", "u32", data=bits(8192, "<u4", 603))],
         [B("data")], ["data"], "bitonic sort of 1024 keys per block in shared memory (in place)",
         ["cta.sort", "mem.shared", "cta.bar"]))
add(Case("stencil_1d", "cta", "stencil_1d", [cdiv(10000, 256)], [256],
         [Buf("out", "f32", 10000), Buf("in", "f32", data=uniform_f32(10000, -1, 1, 604))],
         [B("out"), B("in"), U32(10000)], ["out"],
         "7-point 1D stencil with halo loads into shared memory", ["cta.stencil", "mem.shared"]))
add(Case("named_barrier", "cta", "named_barrier", [8], [128],
         [Buf("out", "s32", 8 * 192), Buf("in", "s32", data=ints(1024, -10000, 10000, "<i4", 605))],
         [B("out"), B("in")], ["out"],
         "named barriers via PTX: producer bar.arrive 1,64 / consumer bar.sync 1,64, bar.sync 2,64",
         ["cta.bar.named", "asm"]))
_br = ints(4096, -100, 100, "<i4", 606)
_br[0:256] = np.abs(_br[0:256]) + 1          # block 0: all positive -> count 256, and true
_br[256:512] = -200                          # block 1: all -200 -> and false, count 0
_br[512 + 17] = 7                            # block 2: or true
add(Case("bar_red", "cta", "bar_red", [16], [256],
         [Buf("out", "s32", 48), Buf("all", "s32", 4096), Buf("in", "s32", data=_br)],
         [B("out"), B("all"), B("in")], ["out", "all"],
         "__syncthreads_count/_and/_or (bar.red.popc/and/or), __syncwarp, fences",
         ["cta.bar.red", "membar"]))

# -- misc -------------------------------------------------------------------------------

add(Case("mandelbrot", "misc", "mandelbrot", [8, 8], [16, 16],
         [Buf("iters", "u32", 128 * 128)],
         [B("iters"), U32(128), U32(128), F32(-2.0), F32(-1.25), F32(2.5 / 128), F32(2.5 / 128),
          U32(256)], ["iters"],
         "Mandelbrot escape counts on 128x128 (divergent float loop)",
         ["ctrl.loop", "ctrl.divergence", "fp32.fma"]))
_pos = np.concatenate([uniform_f32(512 * 4, -10, 10, 701).reshape(512, 4)[:, :3],
                       uniform_f32(512, 0.5, 2, 702).reshape(512, 1)], axis=1).astype("<f4").ravel()
add(Case("nbody_exact", "misc", "nbody_exact", [4], [128],
         [Buf("acc", "f32", 512 * 4), Buf("pos", "f32", data=_pos)],
         [B("acc"), B("pos"), U32(512), F32(0.0078125)], ["acc"],
         "n-body acceleration step, 512 bodies, IEEE sqrt and division",
         ["fp32.sqrt", "fp32.div", "fp32.fma", "mem.global.vector"]))
add(Case("nbody_rsqrt", "misc", "nbody_rsqrt", [4], [128],
         [Buf("acc", "f32", 512 * 4), Buf("pos", "f32", data=_pos)],
         [B("acc"), B("pos"), U32(512), F32(0.0078125)], ["acc"],
         "n-body acceleration step with rsqrtf (rsqrt.approx.f32)",
         ["sfu", "fp32.fma"]))
add(Case("sgemv", "misc", "sgemv", [2], [128],
         [Buf("y", "f32", 256), Buf("A", "f32", data=uniform_f32(65536, -1, 1, 703)),
          Buf("x", "f32", data=uniform_f32(256, -1, 1, 704))],
         [B("y"), B("A"), B("x"), U32(256), U32(256)], ["y"],
         "sgemv 256x256, one thread per row (uncoalesced row walks)", ["fp32.fma", "mem.global"]))
add(Case("dot_product", "misc", "dot_product", [32], [256],
         [Buf("partial", "f32", 32), Buf("a", "f32", data=uniform_f32(65536, -1, 1, 705)),
          Buf("b", "f32", data=uniform_f32(65536, -1, 1, 706))],
         [B("partial"), B("a"), B("b"), U32(65536)], ["partial"],
         "dot product: grid-stride accumulate then shared tree reduction per block",
         ["cta.reduce", "fp32.fma", "ctrl.loop"]))
add(Case("histogram_private", "misc", "histogram_private", [32], [256],
         [Buf("bins", "u32", 32 * 64), Buf("data", "u8", data=bits(8192, "<u1", 707))],
         [B("bins"), B("data")], ["bins"],
         "64-bin per-block histogram without atomics (shared staging, one thread per bin)",
         ["mem.shared", "ctrl.loop"]))

# ===========================================================================
# issue 3: atomics, warp-level, textures

_skew = (np.minimum(rs(801).exponential(12.0, 65536), 255)).astype("<u1")
_skew[:4096] = 7                                     # one very hot bin
add(Case("hist_global_atomic", "atomics", "hist_global_atomic", [64], [256],
         [Buf("bins", "u32", 256), Buf("data", "u8", data=_skew)],
         [B("bins"), B("data"), U32(65536)], ["bins"],
         "256-bin histogram of skewed bytes with contended global atomicAdd",
         ["atomic.global", "atomic.add"], issue=3))
add(Case("hist_shared_atomic", "atomics", "hist_shared_atomic", [32], [256],
         [Buf("bins", "u32", 256), Buf("data", "u8", data=_skew)],
         [B("bins"), B("data"), U32(65536)], ["bins"],
         "histogram with shared-memory atomics per block, merged with global atomicAdd",
         ["atomic.shared", "atomic.global", "atomic.add"], issue=3))
add(Case("atomic_contended", "atomics", "atomic_contended", [32], [256],
         [Buf("si", "s32", data=np.array([0, 0, 2**31 - 1, -2**31, -1, 0, 0x1234, 0], dtype="<i4")),
          Buf("ui", "u32", data=np.array([0, 0, 0xFFFFFFFF, 0, 5, 50, 0xFFFFFFFF, 0, 0, 1], dtype="<u4")),
          Buf("ul", "u64", data=np.array([0, 2**64 - 1, 0, 2**64 - 1, 0, 0, 1], dtype="<u8")),
          Buf("sl", "s64", data=np.array([2**63 - 1, -2**63], dtype="<i8")),
          Buf("in", "s32", data=ints(8192, -100000, 100000, "<i4", 802))],
         [B("si"), B("ui"), B("ul"), B("sl"), B("in"), U32(8192)], ["si", "ui", "ul", "sl"],
         "atomicAdd/Sub/Min/Max/And/Or/Xor/Inc/Dec/CAS-loop on contended int/unsigned/u64/s64 "
         "words: final states only",
         ["atomic.global", "atomic.add", "atomic.minmax", "atomic.logic", "atomic.incdec",
          "atomic.cas"], issue=3))
_in = bits(1024, "<u4", 803)
_slots = bits(8 * 1024, "<u4", 804)
_slots[6::16] = _in[0::2]                            # CAS succeeds for even threads
_slots[7::8][::3] = 0
_slots64 = bits(6 * 1024, "<u8", 805)
add(Case("atomic_ret_distinct", "atomics", "atomic_ret_distinct", [8], [128],
         [Buf("slots", "u32", data=_slots), Buf("rets", "u32", 12 * 1024),
          Buf("slots64", "u64", data=_slots64), Buf("rets64", "u64", 6 * 1024),
          Buf("fs", "f32", data=uniform_f32(2048, -100, 100, 806)), Buf("fr", "f32", 2048),
          Buf("ds", "f64", data=uniform_f64(2048, -100, 100, 807)), Buf("dr", "f64", 2048),
          Buf("in", "u32", data=_in)],
         [B("slots"), B("rets"), B("slots64"), B("rets64"), B("fs"), B("fr"), B("ds"), B("dr"),
          B("in"), U32(1024)],
         ["slots", "rets", "slots64", "rets64", "fs", "fr", "ds", "dr"],
         "returned old values of every atomic (incl. Exch, CAS, f32/f64 add) on per-thread slots",
         ["atomic.global", "atomic.exch", "atomic.cas", "atomic.float"], issue=3))
add(Case("atomic_float_exact", "atomics", "atomic_float_exact", [32], [256],
         [Buf("fsum", "f32", 4), Buf("dsum", "f64", 2),
          Buf("in", "s32", data=ints(8000, -128, 128, "<i4", 808))],
         [B("fsum"), B("dsum"), B("in"), U32(8000)], ["fsum", "dsum"],
         "contended f32/f64 atomicAdd with exactly representable partial sums (order-independent), "
         "atomicAdd_block on shared, atomicAdd_system",
         ["atomic.float", "atomic.shared", "atomic.scope"], issue=3))
add(Case("atomic_shared_ops", "atomics", "atomic_shared_ops", [16], [256],
         [Buf("out", "u32", 160), Buf("in", "u32", data=bits(4096, "<u4", 809))],
         [B("out"), B("in")], ["out"],
         "every integer atomic on shared memory, incl. a CAS loop; final states",
         ["atomic.shared", "atomic.cas", "atomic.incdec"], issue=3))

_wi = ints(1024, -1000000, 1000000, "<i4", 901)
add(Case("warp_reduce_shfl", "warp", "warp_reduce_shfl", [8], [128],
         [Buf("out", "s32", 1024), Buf("outf", "f32", 1024), Buf("in", "s32", data=_wi),
          Buf("inf", "f32", data=uniform_f32(1024, -1, 1, 902))],
         [B("out"), B("outf"), B("in"), B("inf")], ["out", "outf"],
         "__shfl_down_sync tree sum (all lanes' partials) and __shfl_xor_sync butterfly",
         ["warp.shfl.down", "warp.shfl.bfly"], issue=3))
add(Case("warp_scan_shfl", "warp", "warp_scan_shfl", [8], [128],
         [Buf("out", "s32", 1024), Buf("in", "s32", data=_wi)], [B("out"), B("in")], ["out"],
         "inclusive warp scan with __shfl_up_sync", ["warp.shfl.up"], issue=3))
add(Case("warp_shfl_width", "warp", "warp_shfl_width", [8], [128],
         [Buf("out", "s32", 6 * 1024), Buf("out64", "s64", 1024), Buf("in", "s32", data=_wi)],
         [B("out"), B("out64"), B("in")], ["out", "out64"],
         "__shfl_*_sync with width 4/8/16, source lanes out of range, 64-bit shuffle",
         ["warp.shfl.idx", "warp.shfl.width"], issue=3))
_wv = ints(1024, -50, 50, "<i4", 903)
_wv[0:32] = ints(32, 1, 50, "<i4", 904)              # warp 0: all positive
_wv[32:64] = 42                                      # warp 1: uniform, any(==42)
_wv[64:96] = -7                                      # warp 2: all negative, uniform
_wv[96 + 5] = 42
_wv[128:160] = np.arange(32) & 3                     # warp 4: 4 match groups
add(Case("warp_vote", "warp", "warp_vote", [8], [128],
         [Buf("out", "u32", 14 * 1024), Buf("in", "s32", data=_wv)], [B("out"), B("in")], ["out"],
         "ballot/all/any/uni, __activemask, match.any/all, and votes/shuffle/syncwarp under a "
         "partial mask in a divergent branch",
         ["warp.vote", "warp.activemask", "warp.match", "warp.partial"], issue=3))
_wr = bits(1024, "<u4", 905)
_wr[0:32] = 0xFFFFFFFF
add(Case("warp_redux", "warp", "warp_redux", [8], [128],
         [Buf("out", "u32", 9 * 1024), Buf("in", "u32", data=_wr)], [B("out"), B("in")], ["out"],
         "__reduce_add/min/max/and/or/xor_sync (redux.sync), signed and unsigned, half-warp masks",
         ["warp.redux"], issue=3))
add(Case("cg_tiled", "warp", "cg_tiled", [8], [128],
         [Buf("out", "s32", 8 * 1024), Buf("in", "s32", data=ints(1024, -1000, 1000, "<i4", 906))],
         [B("out"), B("in")], ["out"],
         "cooperative_groups tiled_partition<16>/<4> reduce/shfl/ballot/any, dynamic partition",
         ["warp.cg", "warp.redux", "warp.shfl.down"], issue=3))
_ev = ints(256, -5, 5, "<i4", 907)
_ev[0:32] = 1
_ev[32:64] = -1
_ev[64] = -3
add(Case("elect_sync", "elect", "elect_sync", [4], [64],
         [Buf("out", "u32", 5 * 256), Buf("in", "s32", data=_ev)], [B("out"), B("in")], ["out"],
         "elect.sync (sm_90) over the full warp and a divergent subset",
         ["warp.elect", "asm"], issue=3))
add(Case("cluster_sregs", "sm90", "cluster_sregs", [4], [32],
         [Buf("out", "u32", 4 * 128)], [B("out")], ["out"],
         "%cluster_ctarank/%cluster_nctarank/%clusterid/%nclusterid without a cluster launch",
         ["sreg", "asm"], issue=3))
_f8 = with_fill(np.concatenate([F32_SPECIALS, f32([fbits(x) for x in (448.0, 464.0, 480.0, 57344.0,
                                                                      61440.0, 0.001953125, 0.0009765625,
                                                                      1.0625, 1.125, -240.0)])]),
                1024, lambda m: uniform_f32(m, -500, 500, 908))
add(Case("cvt_fp8_tf32_asm", "sm90", "cvt_fp8_tf32_asm", *lin(1024),
         [Buf("out", "u32", 6 * 1024), Buf("a", "f32", data=_f8),
          Buf("b", "f32", data=rs(909).permutation(_f8))],
         [B("out"), B("a"), B("b"), U32(1024)], ["out"],
         "cvt to e4m3x2/e5m2x2 (satfinite, relu), back to f16x2, cvt.rna.tf32.f32 via PTX",
         ["cvt.fp8", "cvt.tf32", "asm"], issue=3))

# textures
_img = uniform_f32(64 * 48, -10, 10, 1001)
_img[:64] = np.arange(64, dtype="<f4")               # a ramp in row 0


def _coords_unnorm(n, w, h, seed):
    c = np.stack([uniform_f32(n, -8, w + 8, seed), uniform_f32(n, -8, h + 8, seed + 1)], axis=1)
    fixed = np.array([[0, 0], [0.5, 0.5], [1.0, 0.5], [1.25, 0.75], [63.5, 47.5], [64, 48],
                      [-0.5, -0.5], [31.999, 12.001], [2.5, 3.5], [100, -100]], dtype="<f4")
    c[:len(fixed)] = fixed
    return c.astype("<f4").ravel()


def _coords_norm(n, seed):
    c = np.stack([uniform_f32(n, -1.5, 2.5, seed), uniform_f32(n, -1.5, 2.5, seed + 1)], axis=1)
    fixed = np.array([[0, 0], [0.5, 0.5], [1.0, 1.0], [0.999, 0.001], [-0.25, 1.25],
                      [1 / 128, 1 / 96], [2.0, -1.0]], dtype="<f4")
    c[:len(fixed)] = fixed
    return c.astype("<f4").ravel()


_cu = _coords_unnorm(512, 64, 48, 1002)
_cn = _coords_norm(512, 1004)


def _tex2d(name, address, filter, normalized, desc, fam, buf_type="f32", data=_img, read="element",
           kernel="tex2d_sample", tol=None):
    coords = _cn if normalized else _cu
    out_type = "s32" if kernel == "tex2d_int" else "f32"
    add(Case(name, "texture", kernel, *lin(512),
             [Buf("out", out_type, 512), Buf("img", buf_type, data=data),
              Buf("coords", "f32", data=coords)],
             [B("out"), T("t"), B("coords"), U32(512)], ["out"], desc, fam, issue=3,
             textures=[Tex("t", "img", [64, 48], buf_type, address=address, filter=filter,
                           normalized=normalized, read=read)], tolerance=tol))


_tex2d("tex2d_clamp_point", "clamp", "point", False,
       "2D f32 texture 64x48, clamp, point, unnormalized coords incl. out of range",
       ["tex.2d", "tex.point", "tex.clamp"])
_tex2d("tex2d_clamp_linear", "clamp", "linear", False,
       "2D f32 texture, clamp, bilinear (9-bit fixed-point weights), unnormalized",
       ["tex.2d", "tex.linear", "tex.clamp"])
_tex2d("tex2d_wrap_linear_norm", "wrap", "linear", True,
       "2D f32 texture, wrap, bilinear, normalized coords", ["tex.2d", "tex.linear", "tex.wrap"])
_tex2d("tex2d_mirror_point_norm", "mirror", "point", True,
       "2D f32 texture, mirror, point, normalized coords", ["tex.2d", "tex.point", "tex.mirror"])
_tex2d("tex2d_border_linear", "border", "linear", False,
       "2D f32 texture, border (colour 0), bilinear, unnormalized", ["tex.2d", "tex.linear", "tex.border"])
_img8 = bits(64 * 48, "<u1", 1006)
_img8[:4] = [0, 1, 254, 255]
_tex2d("tex2d_u8_norm_point", "clamp", "point", False,
       "2D u8 texture read as normalized float, point", ["tex.2d", "tex.normalized_read"],
       buf_type="u8", data=_img8, read="normalized")
_tex2d("tex2d_u8_norm_linear_wrap", "wrap", "linear", True,
       "2D u8 texture read as normalized float, bilinear, wrap, normalized coords",
       ["tex.2d", "tex.normalized_read", "tex.linear", "tex.wrap"],
       buf_type="u8", data=_img8, read="normalized")
_tex2d("tex2d_int_point", "clamp", "point", False, "2D s32 texture, element reads, point, clamp",
       ["tex.2d", "tex.point", "tex.int"], buf_type="s32",
       data=ints(64 * 48, -2**31, 2**31 - 1, "<i4", 1007), kernel="tex2d_int")
_img4 = uniform_f32(64 * 48 * 4, -1, 1, 1008)
add(Case("tex2d_float4_linear", "texture", "tex2d_sample4", *lin(512),
         [Buf("out", "f32", 512 * 4), Buf("img", "f32", data=_img4), Buf("coords", "f32", data=_cu)],
         [B("out"), T("t"), B("coords"), U32(512)], ["out"],
         "2D 4-channel f32 texture, clamp, bilinear", ["tex.2d", "tex.linear", "tex.vector"], issue=3,
         textures=[Tex("t", "img", [64, 48], "f32", address="clamp", filter="linear", channels=4)]))
_idx = np.concatenate([np.array([0, 1, 1023, 1024, 1025, 2000, -1, -100, 255, 256], dtype="<i4"),
                       ints(502, 0, 1023, "<i4", 1009)])
add(Case("tex1dfetch_gather", "texture", "tex1dfetch_gather", *lin(512),
         [Buf("out", "f32", 512), Buf("outi", "s32", 512), Buf("out4", "f32", 512 * 4),
          Buf("lf", "f32", data=uniform_f32(1024, -5, 5, 1010)),
          Buf("li", "s32", data=ints(1024, -2**31, 2**31 - 1, "<i4", 1011)),
          Buf("l4", "f32", data=uniform_f32(1024 * 4, -5, 5, 1012)),
          Buf("idx", "s32", data=_idx)],
         [B("out"), B("outi"), B("out4"), T("tf"), T("ti"), T("t4"), B("idx"), U32(512)],
         ["out", "outi", "out4"],
         "tex1Dfetch gathers from linear memory (f32, s32, 4 x f32) incl. out-of-range indices",
         ["tex.1dfetch", "tex.linear_memory"], issue=3,
         textures=[Tex("tf", "lf", [1024], "f32", linear=True),
                   Tex("ti", "li", [1024], "s32", linear=True),
                   Tex("t4", "l4", [1024], "f32", linear=True, channels=4)]))
_x1 = np.concatenate([np.array([0, 0.5, 1, 1.5, 99.5, 100, -3, 150, 50.25, 50.75], dtype="<f4"),
                      uniform_f32(246, -10, 110, 1013)])
add(Case("tex1d_linear", "texture", "tex1d_sample", *lin(256),
         [Buf("out", "f32", 256), Buf("img", "f32", data=uniform_f32(100, -10, 10, 1014)),
          Buf("x", "f32", data=_x1)],
         [B("out"), T("t"), B("x"), U32(256)], ["out"],
         "1D CUDA array texture, clamp, linear filtering", ["tex.1d", "tex.linear"], issue=3,
         textures=[Tex("t", "img", [100], "f32", address="clamp", filter="linear")]))
_vol = uniform_f32(16 * 12 * 8, -10, 10, 1015)
_c3 = np.stack([uniform_f32(512, -2, 18, 1016), uniform_f32(512, -2, 14, 1017),
                uniform_f32(512, -2, 10, 1018)], axis=1).astype("<f4").ravel()
add(Case("tex3d_point", "texture", "tex3d_sample", *lin(512),
         [Buf("out", "f32", 512), Buf("vol", "f32", data=_vol), Buf("coords", "f32", data=_c3)],
         [B("out"), T("t"), B("coords"), U32(512)], ["out"],
         "3D CUDA array texture 16x12x8, clamp, point", ["tex.3d", "tex.point"], issue=3,
         textures=[Tex("t", "vol", [16, 12, 8], "f32", address="clamp", filter="point")]))
_c3n = np.stack([uniform_f32(512, -1, 2, 1019), uniform_f32(512, -1, 2, 1020),
                 uniform_f32(512, -1, 2, 1021)], axis=1).astype("<f4").ravel()
add(Case("tex3d_linear_wrap", "texture", "tex3d_sample", *lin(512),
         [Buf("out", "f32", 512), Buf("vol", "f32", data=_vol), Buf("coords", "f32", data=_c3n)],
         [B("out"), T("t"), B("coords"), U32(512)], ["out"],
         "3D texture, wrap, trilinear, normalized coords", ["tex.3d", "tex.linear", "tex.wrap"], issue=3,
         textures=[Tex("t", "vol", [16, 12, 8], "f32", address="wrap", filter="linear",
                       normalized=True)]))
_img4g = uniform_f32(32 * 32 * 4, -1, 1, 1022)
_cg = np.concatenate([np.array([0, 0, 0.5, 0.5, 1, 1, 31.5, 31.5, 32, 32, -1, 5, 16.3, 7.7],
                               dtype="<f4"), uniform_f32(512 - 14, -4, 36, 1023)])
add(Case("tex2d_gather", "texture", "tex2d_gather", *lin(256),
         [Buf("out", "f32", 256 * 16), Buf("img", "f32", data=_img4g), Buf("coords", "f32", data=_cg)],
         [B("out"), T("t"), B("coords"), U32(256)], ["out"],
         "tex2Dgather (tld4.r/g/b/a) on a 4-channel f32 texture, clamp",
         ["tex.gather", "tex.2d"], issue=3,
         textures=[Tex("t", "img", [32, 32], "f32", address="clamp", filter="point", channels=4,
                       gather=True)]))


# ---------------------------------------------------------------------------

def modules():
    """Module names used by the cases, in first-use order."""
    seen = []
    for c in CASES:
        if c.module not in seen:
            seen.append(c.module)
    return seen


# Modules also compiled for other targets (parse-only PTX): plain C++ only.
TARGET_MODULES = ["matmul", "transpose", "control", "memspace", "cta"]
TARGET_ARCHS = ["sm_50", "sm_75", "sm_80", "sm_90a"]
