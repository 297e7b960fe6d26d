"""Deterministic pieces of the SFU data format, shared by the generator and
mirrored bit for bit by the Go reader (vm/internal/sfu: recipe.go, ref.go,
codec.go).  Everything here uses only operations whose results IEEE 754
defines exactly (+ - * / sqrt on float64, conversions, integer arithmetic),
so numpy and Go compute the same bits.  Do not use numpy's transcendental
functions (np.sin, np.exp2, ...) here: their last bit differs between
libraries.

Contents
  splitmix64            counter-based PRNG (random input segments)
  segment_values        input recipes: range, grid, sincos, random, list, hirange
  ref_*                 "reference" predictions: a float64 evaluation of the
                        function, rounded to f32 (or to the 1.11.20 format of
                        the 64H instructions); not necessarily correctly
                        rounded, only deterministic and close
  encode_codes / ...    residual coding (int8 codes + varint escapes), RLE
"""

import hashlib
import numpy as np

U32 = np.uint32
U64 = np.uint64

# ---------------------------------------------------------------------------
# splitmix64: element k of stream `seed` is mix(seed + (k+1)*GAMMA).

GAMMA = 0x9E3779B97F4A7C15


def splitmix64(seed, k):
    """k: uint64 array of counters -> uint64 array."""
    with np.errstate(over="ignore"):
        z = (U64(seed) + (k.astype(U64) + U64(1)) * U64(GAMMA)).astype(U64)
        z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
        z = z ^ (z >> U64(31))
    return z


# ---------------------------------------------------------------------------
# float helpers

def f32bits(v):
    return np.asarray(v, dtype=np.float32).view(U32)


def bits2f64(b):
    with np.errstate(invalid="ignore"):
        return np.asarray(b, dtype=U32).view(np.float32).astype(np.float64)


def f64bits(v):
    return np.asarray(v, dtype=np.float64).view(U64)


# 1/(2 pi) rounded to f32: the constant ptxas multiplies sin/cos operands by
# (FMUL.RZ) before MUFU.SIN / MUFU.COS, which work in revolutions.
C_2PI_INV = 0x3E22F983


def mul_rz_f32(a_bits, c_bits, ftz):
    """f32 multiply rounded toward zero (FMUL.RZ), exact via float64.
    a_bits: uint32 array, c_bits: a positive normal f32 constant."""
    a_bits = np.asarray(a_bits, dtype=U32)
    if ftz:
        a_bits = flush32(a_bits)
    p = bits2f64(a_bits) * float(bits2f64(np.array([c_bits], dtype=U32))[0])  # exact (48 bits)
    with np.errstate(over="ignore", invalid="ignore"):
        y = p.astype(np.float32)
    yb = y.view(U32).copy()
    fin = np.isfinite(p)
    # RN may have rounded away from zero: step back one ulp toward zero
    away = fin & (np.abs(y.astype(np.float64)) > np.abs(p))
    yb[away] -= U32(1)
    # overflow: RZ gives the largest finite value, not inf
    ovf = fin & np.isinf(y)
    yb[ovf] = (yb[ovf] & U32(0x80000000)) | U32(0x7F7FFFFF)
    yb[np.isnan(p)] = U32(0x7FFFFFFF)     # canonical NaN, as the GPU's FMUL
    if ftz:
        yb = flush32(yb)
    return yb


def flush32(b):
    """ftz: subnormal f32 -> signed zero."""
    b = np.asarray(b, dtype=U32)
    sub = ((b & U32(0x7F800000)) == 0)
    return np.where(sub, b & U32(0x80000000), b).astype(U32)


def sincos_x(j, shift):
    """Smallest f32 x >= 0 with x * C_2PI_INV >= j * 2^shift (exact product):
    the input for which the hardware's reduction mul.rz(x, 1/2pi) yields the
    smallest reachable t' >= j * 2^shift.  j: uint64 array (j < 2^53)."""
    c = float(bits2f64(np.array([C_2PI_INV], dtype=U32))[0])
    t = j.astype(np.float64) * 2.0 ** shift            # exact
    x = (t / c).astype(np.float32).view(U32).copy()
    for _ in range(3):                                  # x*c < t: step up
        low = (bits2f64(x) * c < t)
        x[low] += U32(1)
    for _ in range(3):                                  # x-1ulp still reaches t: step down
        prev = x - U32(1)
        down = (x != 0) & (bits2f64(prev) * c >= t)
        x[down] = prev[down]
    x[j == 0] = 0
    return x


# ---------------------------------------------------------------------------
# input recipes

def _count(seg):
    if seg["kind"] == "list":
        assert int(seg.get("count", len(seg["values"]))) == len(seg["values"])
        return len(seg["values"])
    return int(seg["count"])


def segment_values(seg, width):
    """The input bit patterns of one segment (uint32 or uint64 array)."""
    kind = seg["kind"]
    n = _count(seg)
    i = np.arange(n, dtype=U64)
    dt = U32 if width == 32 else U64
    mask = (1 << width) - 1
    if kind == "range":
        with np.errstate(over="ignore"):
            v = U64(int(seg["start"]) & mask) + i * U64(int(seg.get("step", 1)) & mask)
        return (v & U64(mask)).astype(dt)
    if kind == "grid":
        # x = sign * (j0 + i*step) * 2^shift, exact
        j = U64(int(seg.get("j0", 0))) + i * U64(int(seg.get("step", 1)))
        v = j.astype(np.float64) * 2.0 ** int(seg["shift"])
        if width == 32:
            b = v.astype(np.float32).view(U32)
            assert np.all(bits2f64(b) == v), "grid value not exact in f32"
            if seg.get("sign", 0):
                b = b | U32(0x80000000)
            return b.astype(U32)
        b = v.view(U64)
        if seg.get("sign", 0):
            b = b | U64(1 << 63)
        return b.astype(U64)
    if kind == "sincos":
        assert width == 32
        j = U64(int(seg.get("j0", 0))) + i * U64(int(seg.get("step", 1)))
        b = sincos_x(j, int(seg["shift"]))
        if seg.get("sign", 0):
            b = b | U32(0x80000000)
        return b.astype(U32)
    if kind == "list":
        return np.array([int(str(s), 0) for s in seg["values"]], dtype=dt)
    if kind == "hirange":
        assert width == 64
        with np.errstate(over="ignore"):
            hi = (U64(int(seg["start"]) & 0xFFFFFFFF) + i * U64(int(seg.get("step", 1)))) & U64(0xFFFFFFFF)
        if "lo_seed" in seg:
            lo = splitmix64(int(seg["lo_seed"]), i) & U64(0xFFFFFFFF)
        else:
            lo = U64(int(seg.get("lo", 0)) & 0xFFFFFFFF) + i * U64(0)
        return ((hi << U64(32)) | lo).astype(U64)
    if kind == "random":
        seed = int(seg["seed"])
        a = splitmix64(seed, U64(2) * i)
        b = splitmix64(seed, U64(2) * i + U64(1))
        mode = seg["mode"]
        if mode == "bits":
            return (a & U64(mask)).astype(dt)
        if mode == "exp":
            elo, ehi = int(seg["elo"]), int(seg["ehi"])
            e = U64(elo) + b % U64(ehi - elo + 1)
            sign = seg.get("signs", "both")
            s = (b >> U64(32)) & U64(1) if sign == "both" else U64(1 if sign == "neg" else 0) + i * U64(0)
            if width == 32:
                v = (s << U64(31)) | (e << U64(23)) | (a & U64(0x7FFFFF))
                return v.astype(U32)
            v = (s << U64(63)) | (e << U64(52)) | (a & U64((1 << 52) - 1))
            return v.astype(U64)
        if mode == "uniform":
            # x = f32(A + (B - A) * w), w = (a >> 40) * 2^-24, evaluated in float64
            assert width == 32
            A = float(bits2f64(np.array([int(seg["a"], 0)], dtype=U32))[0])
            B = float(bits2f64(np.array([int(seg["b"], 0)], dtype=U32))[0])
            w = (a >> U64(40)).astype(np.float64) * 2.0 ** -24
            v = A + (B - A) * w
            return v.astype(np.float32).view(U32).astype(U32)
        raise ValueError(f"unknown random mode {mode}")
    raise ValueError(f"unknown segment kind {kind}")


def dataset_inputs(ds):
    width = 64 if ds["type"] == "u64" else 32
    parts = [segment_values(s, width) for s in ds["segments"]]
    v = np.concatenate(parts) if len(parts) > 1 else parts[0]
    stride = int(ds.get("stride", 1))
    if stride > 1:
        v = v[::stride].copy()
    return v


def sha256(arr):
    return hashlib.sha256(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()).hexdigest()


# ---------------------------------------------------------------------------
# reference functions (float64, deterministic)

def _hx(s):
    return float.fromhex(s)


# 2^f = sum ln2^n/n! f^n, |f| <= 1/2
EXP2_C = [_hx(s) for s in (
    "0x1.0000000000000p+0", "0x1.62e42fefa39efp-1", "0x1.ebfbdff82c58fp-3", "0x1.c6b08d704a0c0p-5",
    "0x1.3b2ab6fba4e77p-7", "0x1.5d87fe78a6731p-10", "0x1.430912f86c787p-13", "0x1.ffcbfc588b0c7p-17",
    "0x1.62c0223a5c824p-20", "0x1.b5253d395e7c4p-24", "0x1.e4cf5158b8ecap-28", "0x1.e8cac7351bb25p-32",
    "0x1.c3bd650fc2986p-36", "0x1.816193166d0f9p-40")]
# log2(m) = s * sum c_k s^2k, s = (m-1)/(m+1), c_k = 2/(ln2 (2k+1))
LOG2_C = [_hx(s) for s in (
    "0x1.71547652b82fep+1", "0x1.ec709dc3a03fdp-1", "0x1.2776c50ef9bfep-1", "0x1.a61762a7aded9p-2",
    "0x1.484b13d7c02a9p-2", "0x1.0c9a84994022dp-2", "0x1.c68f568d31760p-3", "0x1.89f3b1694cffep-3",
    "0x1.5b9ac9b743f0dp-3", "0x1.3703c1f4d0ffep-3", "0x1.1964ec6fc9491p-3", "0x1.00ecd7e080215p-3",
    "0x1.d8be0817f5ffep-4")]
# sin(2 pi a) = a * sum c_k a^2k, |a| <= 1/4
SIN_C = [_hx(s) for s in (
    "0x1.921fb54442d18p+2", "-0x1.4abbce625be53p+5", "0x1.466bc6775aae2p+6", "-0x1.32d2cce62bd86p+6",
    "0x1.50783487ee782p+5", "-0x1.e3074fde8871fp+3", "0x1.e8f434d018d63p+1", "-0x1.6fadb9f155744p-1",
    "0x1.aaec32af93359p-4", "-0x1.8a404211f9547p-7", "0x1.2877020d52cf0p-10")]
# expm1(y) = y * sum y^(n-1)/n!, n = 1..21, 0 <= y <= 1.1
EXPM1_C = [_hx(s) for s in (
    "0x1.0000000000000p+0", "0x1.0000000000000p-1", "0x1.5555555555555p-3", "0x1.5555555555555p-5",
    "0x1.1111111111111p-7", "0x1.6c16c16c16c17p-10", "0x1.a01a01a01a01ap-13", "0x1.a01a01a01a01ap-16",
    "0x1.71de3a556c734p-19", "0x1.27e4fb7789f5cp-22", "0x1.ae64567f544e4p-26", "0x1.1eed8eff8d898p-29",
    "0x1.6124613a86d09p-33", "0x1.93974a8c07c9dp-37", "0x1.ae7f3e733b81fp-41", "0x1.ae7f3e733b81fp-45",
    "0x1.952c77030ad4ap-49", "0x1.6827863b97d97p-53", "0x1.2f49b46814157p-57", "0x1.e542ba4020225p-62",
    "0x1.71b8ef6dcf572p-66")]
LOG2E = _hx("0x1.71547652b82fep+0")
SQRT_HALF = _hx("0x1.6a09e667f3bcdp-1")


def _horner(coefs, z):
    p = np.full_like(z, coefs[-1])
    for c in reversed(coefs[:-1]):
        p = p * z + c
    return p


def exp2_f64(x):
    """2^x for finite float64 x (clamped to [-200, 200])."""
    x = np.clip(x, -200.0, 200.0)
    k = np.rint(x)
    f = x - k
    p = _horner(EXP2_C, f)
    return np.ldexp(p, k.astype(np.int32))


def log2_f64(x):
    """log2(x) for finite x > 0."""
    m, e = np.frexp(x)              # x = m 2^e, m in [0.5, 1)
    m = m * 2.0
    e = e.astype(np.int64) - 1      # m in [1, 2)
    big = m > 2.0 * SQRT_HALF
    m = np.where(big, m * 0.5, m)
    e = np.where(big, e + 1, e)
    s = (m - 1.0) / (m + 1.0)
    p = _horner(LOG2_C, s * s)
    return e.astype(np.float64) + s * p


def _sin2pi_core(a):
    """sin(2 pi a) for |a| <= 1/4."""
    return a * _horner(SIN_C, a * a)


def sin2pi_f64(t):
    r = t - np.rint(t)
    a = np.abs(r)
    a = np.where(a > 0.25, 0.5 - a, a)
    y = _sin2pi_core(a)
    return np.where(r < 0, -y, y)


def cos2pi_f64(t):
    r = t - np.rint(t)
    b = 0.25 - np.abs(r)
    return _sin2pi_core(b)


def expm1_small(y):
    return y * _horner(EXPM1_C, y)


def tanh_f64(x):
    a = np.abs(x)
    small = a < 0.55
    e = expm1_small(np.where(small, 2.0 * a, 0.0))
    ys = e / (e + 2.0)
    E = exp2_f64(np.where(small, 0.0, np.minimum(a, 20.0) * 2.0 * LOG2E))
    yl = 1.0 - 2.0 / (E + 1.0)
    y = np.where(small, ys, yl)
    y = np.where(a > 20.0, 1.0, y)
    return np.where(x < 0, -y, y)


def _f32_result(y64, ftz, nan_mask):
    with np.errstate(over="ignore", invalid="ignore"):
        b = y64.astype(np.float32).view(U32).copy()
    if ftz:
        b = flush32(b)
    b[nan_mask] = U32(0x7FFFFFFF)
    return b


REF_FUNCS = ("rcp", "rsqrt", "sqrt", "ex2", "lg2", "sin", "cos", "tanh", "rcp64h", "rsqrt64h", "mulrz", "ident", "zero")


VALUE_FUNCS = ("rcp", "rsqrt", "sqrt", "ex2", "lg2", "sin", "cos", "tanh")


def ref_predict(fn, x, ftz):
    """Reference prediction (output bits) for inputs x (uint32, or uint64 for
    the 64H functions, whose prediction is the upper word, uint32)."""
    if fn == "zero":
        return np.zeros(len(x), dtype=U32)
    if fn == "ident":
        return np.asarray(x, dtype=U32).copy()
    if fn == "mulrz":
        return mul_rz_f32(x, C_2PI_INV, ftz)
    if fn in ("rcp64h", "rsqrt64h"):
        return _ref64h(fn, np.asarray(x, dtype=U64))
    y = ref_value(fn, x, ftz)
    return _f32_result(y, ftz, np.isnan(y))


def ref_value(fn, x, ftz):
    """The float64 value a VALUE_FUNCS prediction rounds (NaN for NaN)."""
    xb = np.asarray(x, dtype=U32)
    if ftz:
        xb = flush32(xb)
    v = bits2f64(xb)
    nan_in = np.isnan(v)
    with np.errstate(all="ignore"):
        if fn == "rcp":
            y = 1.0 / v
        elif fn == "rsqrt":
            y = 1.0 / np.sqrt(v)
        elif fn == "sqrt":
            y = np.sqrt(v)
        elif fn == "ex2":
            fin = np.isfinite(v)
            y = exp2_f64(np.where(fin, v, 0.0))
            y = np.where(v == np.inf, np.inf, np.where(v == -np.inf, 0.0, y))
        elif fn == "lg2":
            pos = np.isfinite(v) & (v > 0)
            y = log2_f64(np.where(pos, v, 1.0))
            y = np.where(v == 0, -np.inf, y)
            y = np.where(v == np.inf, np.inf, y)
            y = np.where(v < 0, np.nan, y)
        elif fn in ("sin", "cos"):
            t = bits2f64(mul_rz_f32(xb, C_2PI_INV, ftz))
            fin = np.isfinite(t)
            tt = np.where(fin, t, 0.0)
            y = sin2pi_f64(tt) if fn == "sin" else cos2pi_f64(tt)
            y = np.where(fin, y, np.nan)
        elif fn == "tanh":
            fin = np.isfinite(v)
            y = tanh_f64(np.where(fin, v, 0.0))
            y = np.where(v == np.inf, 1.0, np.where(v == -np.inf, -1.0, y))
        else:
            raise ValueError(fn)
    return np.where(nan_in, np.nan, y)


NCLASSES = 16


def ref_classes(fn, x, ftz):
    """Class 0..15 of each entry: where the float64 reference value lies
    between its f32 neighbours, k = floor((phi + 1/2) 16) clipped, phi =
    (|y| - |p|) / ulp(|p|), p = y rounded to f32.  Residuals depend on phi
    (the hardware's result differs from p mostly when y is near a rounding
    boundary), so coding them grouped by class compresses better."""
    y = ref_value(fn, x, ftz)
    with np.errstate(all="ignore"):
        p = y.astype(np.float32)
        a = np.abs(y)
        b = np.abs(p).astype(np.float64)
        nxt = (np.abs(p).view(U32) + U32(1)).view(np.float32).astype(np.float64)
        ulp = nxt - b
        phi = (a - b) / ulp
        k = np.floor((phi + 0.5) * 16.0)
    bad = ~np.isfinite(y) | ~np.isfinite(b) | (b == 0) | ~np.isfinite(k)
    k = np.where(bad, 0.0, np.clip(k, 0.0, 15.0))
    return k.astype(np.int64)


def _ref64h(fn, x):
    hi = (x >> U64(32)).astype(U64)
    sub = (hi & U64(0x7FF00000)) == 0
    hi = np.where(sub, hi & U64(0x80000000), hi)
    v = (hi << U64(32)).view(np.float64)
    with np.errstate(all="ignore"):
        y = 1.0 / v if fn == "rcp64h" else 1.0 / np.sqrt(v)
    nan = np.isnan(y)
    b = np.where(nan, U64(0), y.view(U64))
    fin = np.isfinite(y) & (y != 0)
    # round to nearest even at 20 fraction bits (may carry into the exponent)
    with np.errstate(over="ignore"):
        r = (b + U64(0x7FFFFFFF) + ((b >> U64(32)) & U64(1))) & U64(0xFFFFFFFF00000000)
    b = np.where(fin, r, b)
    h = (b >> U64(32)).astype(U32)
    # subnormal results flush to signed zero
    h = np.where((h & U32(0x7FF00000)) == 0, h & U32(0x80000000), h).astype(U32)
    h[nan] = U32(0x7FFFFFFF)
    return h


# ---------------------------------------------------------------------------
# residual coding
#
# ord maps f32 bit patterns monotonically onto integers (-0 -> -1, +0 -> 0);
# a residual is ord(gpu) - ord(prediction), "units in the last place".

def ord32(b):
    b = np.asarray(b, dtype=U32).astype(np.int64)
    return np.where(b >= 0x80000000, -(b & 0x7FFFFFFF) - 1, b)


def unord32(o):
    o = np.asarray(o, dtype=np.int64)
    return np.where(o >= 0, o, (-(o + 1)) | 0x80000000).astype(U32)


def _varints(z):
    """LEB128 of a uint64 array, concatenated (vectorised)."""
    z = np.asarray(z, dtype=U64)
    if len(z) == 0:
        return b""
    nbits = np.zeros(len(z), dtype=np.int64)
    t = z.copy()
    for _ in range(64):
        nz = t != 0
        if not nz.any():
            break
        nbits += nz
        t = t >> U64(1)
    nbytes = np.maximum(1, (nbits + 6) // 7)
    off = np.concatenate(([0], np.cumsum(nbytes)[:-1]))
    out = np.zeros(int(nbytes.sum()), dtype=np.uint8)
    for j in range(10):
        m = nbytes > j
        if not m.any():
            break
        byte = ((z[m] >> U64(7 * j)) & U64(0x7F)).astype(np.uint8)
        more = (nbytes[m] > j + 1).astype(np.uint8) << 7
        out[off[m] + j] = byte | more
    return out.tobytes()


def parse_varints(buf, count, pos=0):
    """Parse `count` LEB128 values starting at pos; returns (uint64 array, end)."""
    if count == 0:
        return np.zeros(0, dtype=U64), pos
    b = np.frombuffer(buf, dtype=np.uint8, offset=pos)
    ends = np.flatnonzero((b & 0x80) == 0)[:count]
    assert len(ends) == count, "truncated varints"
    starts = np.concatenate(([0], ends[:-1] + 1))
    lens = ends - starts + 1
    vals = np.zeros(count, dtype=U64)
    for j in range(int(lens.max())):
        m = lens > j
        vals[m] |= (b[starts[m] + j] & 0x7F).astype(U64) << U64(7 * j)
    return vals, pos + int(ends[-1]) + 1


def zigzag(d):
    d = np.asarray(d, dtype=np.int64)
    return ((d.astype(U64) << U64(1)) ^ (d >> 63).astype(U64)).astype(U64)


def unzigzag(z):
    z = np.asarray(z, dtype=U64)
    return ((z >> U64(1)).astype(np.int64) ^ -(z & U64(1)).astype(np.int64))


def class_order(k):
    """Stream order of a class-grouped plane: by class, then by index."""
    return np.argsort(k, kind="stable")


def encode_codes(d, order=None):
    """int8 code per residual (-128 = escape) followed by the escapes' zigzag
    LEB128 varints, in stream order (index order, or `order`)."""
    d = np.asarray(d, dtype=np.int64)
    if order is not None:
        d = d[order]
    esc = (d < -127) | (d > 127)
    codes = np.where(esc, -128, d).astype(np.int8)
    return codes.tobytes() + _varints(zigzag(d[esc]))


def decode_codes(buf, n, pos=0, order=None):
    codes = np.frombuffer(buf, dtype=np.int8, count=n, offset=pos).astype(np.int64)
    esc = np.flatnonzero(codes == -128)
    vals, end = parse_varints(buf, len(esc), pos + n)
    codes[esc] = unzigzag(vals)
    if order is not None:
        out = np.empty_like(codes)
        out[order] = codes
        codes = out
    return codes, end


def encode_rle(y, pred_at_starts_fn):
    """Run-length form of an output array: run starts where y changes.
    Layout: u32 nruns | codes+escapes of the run values (residual vs the
    prediction at each run's first index) | nruns LEB128 run lengths."""
    y = np.asarray(y, dtype=U32)
    starts = np.concatenate(([0], np.flatnonzero(y[1:] != y[:-1]) + 1))
    lengths = np.diff(np.concatenate((starts, [len(y)])))
    p = pred_at_starts_fn(starts)
    d = ord32(y[starts]) - ord32(p)
    return (np.array([len(starts)], dtype="<u4").tobytes() + encode_codes(d)
            + _varints(lengths.astype(U64))), len(starts)


def decode_rle(buf, n, pred_at_starts_fn):
    nruns = int(np.frombuffer(buf, dtype="<u4", count=1)[0])
    d, pos = decode_codes(buf, nruns, 4)
    lengths, pos = parse_varints(buf, nruns, pos)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    assert int(lengths.sum()) == n
    vals = unord32(ord32(pred_at_starts_fn(starts)) + d)
    return np.repeat(vals, lengths.astype(np.int64))
