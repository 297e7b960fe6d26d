#!/usr/bin/python3
"""gen_wgfp8.py DIR: the fp8 and .b1 wgmma recording of ptxvm issue 24
(the fourth wgmma recording): writes into DIR

  wgx_fp8.cu, wgx_b1.cu   the kernels (the shape of gen_wgmma.py's: one
                          warpgroup per block on its own 16 KiB shared image,
                          A in the first 8 KiB, B in the last, accumulators
                          from cin) and a host that reads a case's inputs
                          from INDIR: wgx_<g> OUTDIR CASE INDIR | list
  bench_fp8.cu, bench_b1.cu  clock64 latency of the fp8 and .b1 forms
  inputs/<case>.{img,afrag,cin}.bin   the inputs, aimed at the arithmetic
  cases.txt               "<program> <case>" per line

Inputs are made here (numpy, a fixed seed), not on the GPU, so the analysis
has them without a copy back. Each block is a warpgroup with its own data
kind (KINDS below): narrow and wide random values, a few large products among
small ones, one large product at each k position, pairwise cancellation
(k and k+s for s = 1, 2, 4, 8, 16), fp8 subnormals, NaN/inf/max/zero
multiplicands and accumulators, sums that carry far above the largest
product, accumulators far above and below the products, and f16
accumulator overflow and ties."""
import os
import shutil
import sys

import numpy as np

FMT = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}


def regs(n, dtype):
    return n // 2 if dtype in ("f32", "s32") else n // 4


def kernel(name, n, k, dtype, atype, btype, rs, imms):
    """One wgmma kernel (as gen_wgmma.py's kernel()); .b1 gets .and.popc."""
    nreg = regs(n, dtype)
    cons = "f" if dtype == "f32" else "r"
    ctype = "float" if dtype == "f32" else "uint32_t"
    d = ", ".join(f"%{i}" for i in range(nreg))
    i = nreg
    if rs:
        a = "{" + ", ".join(f"%{i + j}" for j in range(4)) + "}"
        i += 4
    else:
        a = f"%{i}"
        i += 1
    b = f"%{i}"
    sd = f"%{i + 1}"
    types = f"{dtype}.{atype}.{btype}" + (".and.popc" if atype == "b1" else "")
    op = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{types}"
    ops = ", ".join([f"{{{d}}}", a, b, "p"] + [str(x) for x in imms])
    outs = ", ".join(f'"+{cons}"(d[{j}])' for j in range(nreg))
    ins = [f'"r"(af[{j}])' for j in range(4)] if rs else ['"l"(da)']
    ins += ['"l"(db)', '"r"(sd)']
    return f'''
extern "C" __global__ void __launch_bounds__(128) {name}(const uint4* img, const uint32_t* afrag, const uint32_t* cin, uint32_t* dout,
    unsigned long long descA, unsigned long long descB, unsigned long long deltaA, unsigned long long deltaB, unsigned steps, unsigned scaleMask)
{{
    __shared__ alignas(1024) uint4 sm[1024];
    unsigned t = threadIdx.x, blk = blockIdx.x;
    for (unsigned i = t; i < 1024; i += 128)
        sm[i] = img[blk * 1024 + i];
    fenceProxyAsyncShared();
    __syncthreads();
    {ctype} d[{nreg}];
    for (int j = 0; j < {nreg}; j++) {{
        uint32_t w = cin[(blk * 128 + t) * {nreg} + j];
        memcpy(&d[j], &w, 4);
    }}
    unsigned long long base = (unsigned long long)((smem(sm) & 0x3FFFF) >> 4);
    unsigned long long da = descA + base, db = descB + base;
    unsigned sd = (scaleMask >> (blk & 31)) & 1;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (unsigned s = 0; s < steps; s++) {{
        const uint32_t* af = afrag + ((blk * steps + s) * 128 + t) * 4;
        asm volatile("{{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, {sd}, 0;\\n\\t{op} {ops};\\n\\t}}"
                     : {outs}
                     : {", ".join(ins)}
                     : "memory");
        (void)af;
        da += deltaA;
        db += deltaB;
        sd = 1;
    }}
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < {nreg}; j++) {{
        uint32_t w;
        memcpy(&w, &d[j], 4);
        dout[(blk * 128 + t) * {nreg} + j] = w;
    }}
}}
'''


def desc(start, lbo, sbo, sw):
    return (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (sw << 62)


def addr(d, mn, k):
    """Byte offset of 8-bit element (mn, k), K-major (exec_wgmma.go's rule)."""
    start, lbo, sbo = (d & 0x3FFF) << 4, ((d >> 16) & 0x3FFF) << 4, ((d >> 32) & 0x3FFF) << 4
    swz = {0: 0, 1: 3, 2: 2, 3: 1}[d >> 62]
    if swz == 0:
        return start + mn // 8 * sbo + k // 16 * lbo + mn % 8 * 16 + k % 16
    a = start + mn // 8 * sbo + mn % 8 * (16 << swz) + k
    return a ^ (((a >> 7) & ((1 << swz) - 1)) << 4)


B0 = 8192
KK = desc(0, 128, 256, 0), desc(B0, 128, 256, 0)  # K-major, no swizzle
# (case, kernel, n, k, dtype, atype, btype, rs, imms, nblocks, descA, descB,
#  deltaA, deltaB, steps, kinds)
CASES = []
ALL = "narrow wide fewbig onehot cancel sub special carry cbig csmall negtrunc narrow2 wide2 zero zerobig".split()
F16K = ALL + ["f16ovf", "f16tie", "f16sub"]


def case(cname, n, dtype, at, bt, nblocks, kinds, rs=False, imms=(1, 1), dd=KK, dl=(0, 0), steps=1, kname=None, k=32):
    kname = kname or f"wgx_{dtype}_{at}{bt}_n{n}_{'rs' if rs else 'ss'}" + ("" if imms in ((1, 1), ()) else "_neg")
    CASES.append((cname, kname, n, k, dtype, at, bt, rs, imms, nblocks, dd[0], dd[1], dl[0], dl[1], steps, kinds))


case("x_e4m3_f32", 16, "f32", "e4m3", "e4m3", 3 * len(ALL), ALL)
case("x_e5m2_f32", 16, "f32", "e5m2", "e5m2", 3 * len(ALL), ALL)
case("x_e4m3e5m2_f32", 16, "f32", "e4m3", "e5m2", len(ALL), ALL)
case("x_e5m2e4m3_f32_nb", 16, "f32", "e5m2", "e4m3", len(ALL), ALL, imms=(1, -1))
case("x_e4m3_f16", 16, "f16", "e4m3", "e4m3", 2 * len(F16K), F16K)
case("x_e5m2_f16", 16, "f16", "e5m2", "e5m2", 2 * len(F16K), F16K)
case("x_e4m3e5m2_f16", 16, "f16", "e4m3", "e5m2", len(F16K), F16K)
case("x_e4m3_f32_rs_na", 16, "f32", "e4m3", "e4m3", 12, ["wide", "fewbig", "special", "narrow"], rs=True, imms=(-1, 1))
case("x_e5m2_f16_rs", 16, "f16", "e5m2", "e5m2", 8, ["wide", "special", "f16ovf", "narrow"], rs=True)
case("x_e4m3_f32_n256", 256, "f32", "e4m3", "e4m3", 4, ["wide", "narrow", "fewbig", "cancel"])
case("x_e5m2_f16_n8", 8, "f16", "e5m2", "e5m2", 4, ["wide", "narrow", "f16tie", "cancel"])
case("x_e5m2e4m3_f32_n24", 24, "f32", "e5m2", "e4m3", 4, ["wide", "narrow", "fewbig", "cancel"])
# four chained k-steps (K = 128): no swizzle, A advancing 2 KiB, B 512 B a step
case("x_e4m3_f32_k4", 16, "f32", "e4m3", "e4m3", 12, ["narrow", "wide", "fewbig", "cancel", "carry", "onehot"],
     dl=(128, 32), steps=4)
case("x_e5m2_f16_k4", 16, "f16", "e5m2", "e5m2", 8, ["narrow", "wide", "f16tie", "cancel"], dl=(128, 32), steps=4)
# 128B swizzle, four k-steps advancing 32 bytes (as the third recording's)
case("x_e4m3_f32_sw128", 16, "f32", "e4m3", "e4m3", 6, ["narrow", "wide", "fewbig"],
     dd=(desc(0, 16, 1024, 1), desc(B0, 16, 1024, 1)), dl=(2, 2), steps=4)
# .b1 (and.popc), k256: 32 bytes of bits per row, laid out as 8-bit k32
B1 = []
B1.append(("x_b1_n16", "wgx_s32_b1b1_n16_ss", 16, 256, "s32", "b1", "b1", False, (), 6, KK[0], KK[1], 0, 0, 1, ["bits"]))
B1.append(("x_b1_n16_rs", "wgx_s32_b1b1_n16_rs", 16, 256, "s32", "b1", "b1", True, (), 4, KK[0], KK[1], 0, 0, 1, ["bits"]))
B1.append(("x_b1_n256", "wgx_s32_b1b1_n256_ss", 256, 256, "s32", "b1", "b1", False, (), 2, KK[0], KK[1], 0, 0, 1, ["bits"]))
B1.append(("x_b1_k4", "wgx_s32_b1b1_n16_ss", 16, 256, "s32", "b1", "b1", False, (), 4, KK[0], KK[1], 128, 32, 4, ["bits"]))

SCALE_MASK = 0xFFFF7FFF  # block 15 (and 47, ...) with scale-d false

rng = np.random.default_rng(20261128)


def code(t, s, e, m):
    eb, mb, _ = FMT[t]
    return ((s & 1) << 7) | ((e & ((1 << eb) - 1)) << mb) | (m & ((1 << mb) - 1))


def finite(t, size, elo, ehi):
    """Random finite fp8 codes with exponent fields in [elo, ehi]."""
    eb, mb, _ = FMT[t]
    s = rng.integers(0, 2, size)
    e = rng.integers(elo, ehi + 1, size)
    m = rng.integers(0, 1 << mb, size)
    c = code(t, s, e, m)
    if t == "e4m3":
        c = np.where((c & 0x7F) == 0x7F, c ^ 1, c)  # not NaN
    return c.astype(np.uint8)


def emax(t):
    return 15 if t == "e4m3" else 30


def f32(s, e, m):
    return ((s.astype(np.uint64) << 31) | (e.astype(np.uint64) << 23) | m.astype(np.uint64)).astype(np.uint32)


def rand_f32(size, elo, ehi):
    return f32(rng.integers(0, 2, size), rng.integers(elo, ehi + 1, size), rng.integers(0, 1 << 23, size))


def rand_f16(size, elo, ehi):
    s, e, m = rng.integers(0, 2, size), rng.integers(elo, ehi + 1, size), rng.integers(0, 1 << 10, size)
    return ((s << 15) | (e << 10) | m).astype(np.uint32)


def accum(dtype, shape, lo, hi):
    """Accumulators with exponents lo..hi (unbiased)."""
    if dtype == "f32":
        return rand_f32(shape, 127 + lo, 127 + hi)
    return rand_f16(shape, max(1, 15 + lo), min(30, 15 + hi))


def gen_block(kind, at, bt, n, dtype, steps):
    """A [steps, 64, 32], B [steps, n, 32] codes and C [64, n] accumulator bits."""
    K = 32
    A = np.zeros((steps, 64, K), np.uint8)
    B = np.zeros((steps, n, K), np.uint8)
    # exponent fields of 1.0: e4m3 7, e5m2 15
    one_a, one_b = FMT.get(at, (0, 0, 0))[2], FMT.get(bt, (0, 0, 0))[2]
    C = accum(dtype, (64, n), -2, 3) if dtype != "s32" else None
    for s in range(steps):
        if kind in ("narrow", "narrow2"):
            A[s] = finite(at, (64, K), one_a - 2, one_a + 1)
            B[s] = finite(bt, (n, K), one_b - 2, one_b + 1)
            if kind == "narrow2":
                C = accum(dtype, (64, n), -12, 6)
        elif kind in ("wide", "wide2"):
            A[s] = finite(at, (64, K), 0, emax(at))
            B[s] = finite(bt, (n, K), 0, emax(bt))
            if dtype == "f32":
                C = accum(dtype, (64, n), -40, 40) if kind == "wide" else accum(dtype, (64, n), -126, 127)
            else:
                C = accum(dtype, (64, n), -14, 15)
        elif kind == "fewbig":
            A[s] = finite(at, (64, K), one_a - 12 if at == "e5m2" else 1, one_a - 3)
            big = rng.random((64, K)) < 0.1
            A[s] = np.where(big, finite(at, (64, K), one_a, one_a + 2), A[s])
            B[s] = finite(bt, (n, K), one_b - 1, one_b + 1)
        elif kind == "onehot":
            # row r: a large value at k = r % 32, small ones (2^-9..2^-17
            # relative) elsewhere; columns: near 1 (c: 0 or small)
            sm = finite(at, (64, K), max(1, one_a - (14 if at == "e5m2" else 6)), one_a - 2)
            A[s] = sm
            for r in range(64):
                A[s, r, r % K] = finite(at, 1, one_a + 1, one_a + 1)[0]
            B[s] = finite(bt, (n, K), one_b - 1, one_b)
            C = np.where(rng.random((64, n)) < 0.5, 0, accum(dtype, (64, n), -14, -8)).astype(np.uint32)
        elif kind == "cancel":
            # products at k and k+sh cancel (a[k+sh] = -a[k], b[k+sh] = b[k]),
            # sh from the row; a few small residuals
            A[s] = finite(at, (64, K), one_a - 3, one_a + 2)
            B[s] = finite(bt, (n, K), one_b - 3, one_b + 2)
            for r in range(64):
                sh = [1, 2, 4, 8, 16][r % 5]
                for k in range(K):
                    if (k // sh) % 2 == 1 and rng.random() < 0.85:
                        A[s, r, k] = A[s, r, k - sh] ^ 0x80
            # B symmetric under every shift: make B constant across k in a column
            # for half the columns, pairwise equal for the rest
            for c in range(n):
                if c % 2 == 0:
                    B[s, c, :] = B[s, c, 0]
                else:
                    for k in range(1, K, 2):
                        B[s, c, k] = B[s, c, k - 1]
            res = rng.random((64, K)) < 0.05
            A[s] = np.where(res, finite(at, (64, K), 1, one_a - 6 if at == "e4m3" else one_a - 10), A[s])
            C = np.where(rng.random((64, n)) < 0.6, 0, accum(dtype, (64, n), -10, 0)).astype(np.uint32)
        elif kind == "sub":
            A[s] = finite(at, (64, K), 0, 1)
            B[s] = finite(bt, (n, K), 0, 2)
            if dtype == "f32":
                # zero, f32 subnormals, and tiny normals
                C = np.where(rng.random((64, n)) < 0.3, 0,
                             np.where(rng.random((64, n)) < 0.5,
                                      f32(rng.integers(0, 2, (64, n)), np.zeros((64, n), np.int64), rng.integers(0, 1 << 23, (64, n))),
                                      rand_f32((64, n), 1, 127 - 20))).astype(np.uint32)
            else:
                C = np.where(rng.random((64, n)) < 0.5, 0, rand_f16((64, n), 0, 3)).astype(np.uint32)
        elif kind == "special":
            A[s] = finite(at, (64, K), one_a - 2, one_a + 1)
            B[s] = finite(bt, (n, K), one_b - 2, one_b + 1)
            spa = {"e4m3": [0x7F, 0xFF, 0x7E, 0xFE, 0x00, 0x80, 0x01, 0x81],
                   "e5m2": [0x7C, 0xFC, 0x7D, 0x7E, 0xFF, 0x7B, 0xFB, 0x00, 0x80, 0x01]}
            for X, t, rows in ((A[s], at, 64), (B[s], bt, n)):
                p = 1.5 / (32 * 2) if t == "e5m2" else 1.0 / 64
                m = rng.random((rows, K)) < p
                X[m] = rng.choice(spa[t], m.sum())
            if dtype == "f32":
                sp = np.array([0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x7F7FFFFF, 0xFF7FFFFF,
                               0x80000000, 0x00000000, 0x00000001, 0x807FFFFF], np.uint32)
            else:
                sp = np.array([0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x7BFF, 0xFBFF, 0x8000, 0x0000, 0x0001, 0x83FF], np.uint32)
            m = rng.random((64, n)) < 0.15
            C = np.where(m, rng.choice(sp, (64, n)), C).astype(np.uint32)
        elif kind == "carry":
            # every product positive with large mantissas: the sum carries up to
            # 2^7 above the largest product
            eb, mb, _ = FMT[at]
            A[s] = code(at, np.zeros((64, K), np.int64), rng.integers(one_a - 1, one_a + 2, (64, K)),
                        rng.integers((1 << mb) - 3, (1 << mb) - 1 if at == "e4m3" else 1 << mb, (64, K)))
            ebb, mbb, _ = FMT[bt]
            B[s] = code(bt, np.zeros((n, K), np.int64), rng.integers(one_b - 1, one_b + 2, (n, K)),
                        rng.integers((1 << mbb) - 2, (1 << mbb) - 1 if bt == "e4m3" else 1 << mbb, (n, K)))
            # a few negative and small ones
            m = rng.random((64, K)) < 0.1
            A[s] = np.where(m, finite(at, (64, K), 1, one_a), A[s])
            C = np.where(rng.random((64, n)) < 0.5, 0, accum(dtype, (64, n), -6, 8)).astype(np.uint32)
        elif kind == "cbig":
            A[s] = finite(at, (64, K), one_a - 3, one_a + 2)
            B[s] = finite(bt, (n, K), one_b - 3, one_b + 2)
            C = accum(dtype, (64, n), 8, 18 if dtype == "f32" else 15)
        elif kind == "csmall":
            A[s] = finite(at, (64, K), one_a - 3, one_a + 2)
            B[s] = finite(bt, (n, K), one_b - 3, one_b + 2)
            C = accum(dtype, (64, n), -24, -6)
        elif kind == "negtrunc":
            # mostly negative small products below the alignment grid, one
            # positive large
            A[s] = finite(at, (64, K), 1, one_a - 4)
            A[s] |= np.uint8(0x80)
            for r in range(64):
                A[s, r, rng.integers(0, K)] = finite(at, 1, one_a + 1, one_a + 2)[0] & 0x7F
            B[s] = finite(bt, (n, K), one_b - 1, one_b + 1) & 0x7F
            C = np.where(rng.random((64, n)) < 0.5, 0, accum(dtype, (64, n), -4, 2)).astype(np.uint32)
        elif kind == "zero":
            # zero products of both signs; cancellations to an exact zero
            A[s] = rng.choice([0x00, 0x80], (64, K)).astype(np.uint8)
            B[s] = finite(bt, (n, K), 0, emax(bt))
            for r in range(32, 64):
                A[s, r] = finite(at, K, one_a - 1, one_a + 1)
                A[s, r, 16:] = A[s, r, :16] ^ 0x80
            for c in range(n):
                B[s, c, 16:] = B[s, c, :16]
            z = 0x80000000 if dtype == "f32" else 0x8000
            C = rng.choice([0, z], (64, n)).astype(np.uint32)
        elif kind == "zerobig":
            # zeros in A where B is large (does a zero product's exponent
            # count in the alignment?), subnormals in A against large B
            A[s] = finite(at, (64, K), one_a - 2, one_a + 1)
            B[s] = finite(bt, (n, K), one_b - 2, one_b + 1)
            for r in range(64):
                for k in range(K):
                    if (r + k) % 4 == 0:
                        A[s, r, k] = (0x80 if (r + k) % 8 else 0x00) | (rng.integers(0, 3) if r >= 32 else 0)
            for c in range(n):
                for k in range(K):
                    if (c + k) % 4 == 0:
                        B[s, c, k] = finite(bt, 1, emax(bt) - 2, emax(bt))[0]
            C = accum(dtype, (64, n), -3, 2)
        elif kind == "f16ovf":
            # sums near and above 65504
            A[s] = finite(at, (64, K), one_a + (5 if at == "e4m3" else 8), one_a + (8 if at == "e4m3" else 11))
            B[s] = finite(bt, (n, K), one_b, one_b + 3)
            A[s] &= np.uint8(0x7F)
            m = rng.random((64, K)) < 0.3
            A[s] = np.where(m, A[s] | 0x80, A[s])
            C = np.where(rng.random((64, n)) < 0.3, rand_f16((64, n), 28, 30), 0).astype(np.uint32)
        elif kind == "f16tie":
            # few terms, so the exact sum often ends exactly half an f16 ulp
            A[s] = finite(at, (64, K), one_a - 1, one_a + 3)
            zero = rng.random((64, K)) < 0.75
            A[s] = np.where(zero, 0, A[s])
            B[s] = finite(bt, (n, K), one_b - 1, one_b + 3)
            C = accum(dtype, (64, n), 0, 4)
        elif kind == "f16sub":
            A[s] = finite(at, (64, K), 0, 3 if at == "e4m3" else 4)
            B[s] = finite(bt, (n, K), 0, 3 if bt == "e4m3" else 4)
            C = np.where(rng.random((64, n)) < 0.5, 0, rand_f16((64, n), 0, 2)).astype(np.uint32)
        elif kind == "bits":
            A[s] = rng.integers(0, 256, (64, K)).astype(np.uint8)
            B[s] = rng.integers(0, 256, (n, K)).astype(np.uint8)
            m = rng.random((64, K)) < 0.1
            A[s] = np.where(m, 0xFF, A[s])
            C = rng.integers(0, 1 << 32, (64, n), dtype=np.uint64).astype(np.uint32)
            C[:4] = np.uint32(0x7FFFFFF0)  # wrap-around
        else:
            raise ValueError(kind)
    return A, B, C


def pack(cs, outdir):
    (cname, kname, n, k, dtype, at, bt, rs, imms, nb, dA, dB, delA, delB, steps, kinds) = cs
    nreg = regs(n, dtype)
    img = np.zeros((nb, 16384), np.uint8)
    af = np.zeros((nb, steps, 128, 4), np.uint32)
    cin = np.zeros((nb, 128, nreg), np.uint32)
    t = np.arange(128)
    w, g, q = t // 32, (t % 32) >> 2, t & 3
    for b in range(nb):
        A, B, C = gen_block(kinds[b % len(kinds)], at, bt, n, dtype, steps)
        for s in range(steps):
            for mn in range(64):
                for kk in range(32):
                    if not rs:
                        img[b, addr(dA + delA * s, mn, kk)] = A[s, mn, kk]
            for mn in range(n):
                for kk in range(32):
                    img[b, addr(dB + delB * s, mn, kk)] = B[s, mn, kk]
            if rs:
                for i in range(4):
                    row = 16 * w + g + 8 * (i & 1)
                    for e in range(4):
                        col = 4 * q + e + 16 * (i >> 1)
                        af[b, s, :, i] |= A[s, row, col].astype(np.uint32) << (8 * e)
        for i in range(nreg):
            if dtype == "f16":
                row, col = 16 * w + g + 8 * (i & 1), 8 * (i >> 1) + 2 * q
                cin[b, :, i] = C[row, col] | (C[row, col + 1] << 16)
            else:
                row, col = 16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)
                cin[b, :, i] = C[row, col]
    img.tofile(f"{outdir}/{cname}.img.bin")
    af.tofile(f"{outdir}/{cname}.afrag.bin")
    cin.tofile(f"{outdir}/{cname}.cin.bin")


HOST = r'''
struct Case {
    const char* name;
    const char* kernel;
    void (*fn)(const uint4*, const uint32_t*, const uint32_t*, uint32_t*, unsigned long long, unsigned long long,
               unsigned long long, unsigned long long, unsigned, unsigned);
    unsigned nreg, nblocks;
    unsigned long long descA, descB, deltaA, deltaB;
    unsigned steps;
};

static std::vector<uint32_t> readWords(const std::string& path, size_t n)
{
    std::vector<uint32_t> v(n, 0);
    FILE* f = fopen(path.c_str(), "rb");
    if (!f || fread(v.data(), 4, n, f) != n) {
        fprintf(stderr, "cannot read %s\n", path.c_str());
        if (g_meta)
            fprintf(g_meta, "error reading %s\n", path.c_str());
        g_fail = 1;
    }
    if (f)
        fclose(f);
    return v;
}

static void run(const Case& c, const char* out, const char* in)
{
    openCase(out, c.name);
    unsigned nb = c.nblocks;
    std::string p = std::string(in) + "/" + c.name;
    std::vector<uint32_t> img = readWords(p + ".img.bin", nb * 4096);
    std::vector<uint32_t> af = readWords(p + ".afrag.bin", nb * c.steps * 512);
    std::vector<uint32_t> cin = readWords(p + ".cin.bin", nb * 128 * c.nreg);
    if (g_fail) {
        fprintf(g_meta, "status failed\n");
        fclose(g_meta);
        return;
    }
    const uint4* dimg = (const uint4*)dev(img);
    uint32_t* daf = dev(af);
    uint32_t* dcin = dev(cin);
    std::vector<uint32_t> z(cin.size(), 0xdeadbeefu);
    uint32_t* dd = dev(z);
    c.fn<<<nb, 128>>>(dimg, daf, dcin, dd, c.descA, c.descB, c.deltaA, c.deltaB, c.steps, SCALE_MASK);
    launched(c.kernel);
    save("dout", back(dd, z.size()).data(), z.size() * 4);
    fprintf(g_meta, "launch %s grid %u block 128 args img afrag cin dout descA=%#llx descB=%#llx deltaA=%llu deltaB=%llu steps=%u scaleMask=%#x\n",
            c.kernel, nb, c.descA, c.descB, c.deltaA, c.deltaB, c.steps, SCALE_MASK);
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
}

int main(int argc, char** argv)
{
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (auto& c : kCases)
            printf("%s\n", c.name);
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: %s OUTDIR CASE INDIR | list\n", argv[0]);
        return 2;
    }
    for (auto& c : kCases)
        if (!strcmp(c.name, argv[2])) {
            run(c, argv[1], argv[3]);
            return g_fail;
        }
    fprintf(stderr, "unknown case %s\n", argv[2]);
    return 2;
}
'''


def program(group, cases):
    seen = {}
    for cs in cases:
        seen[cs[1]] = cs
    src = [f"// wgx_{group}.cu (generated by gen_wgfp8.py): wgmma.mma_async {group} forms on sm_90a.\n",
           '#include "rec.h"\n#include "dev.h"\n', f"#define SCALE_MASK {SCALE_MASK:#x}u\n"]
    for cs in seen.values():
        (_, kname, n, k, dtype, at, bt, rs, imms, *_r) = cs
        src.append(kernel(kname, n, k, dtype, at, bt, rs, imms))
    head, tail = HOST.split("static void run")
    src.append(head)
    src.append("static const Case kCases[] = {\n")
    for (cname, kname, n, k, dtype, at, bt, rs, imms, nb, dA, dB, delA, delB, steps, kinds) in cases:
        src.append(f'    {{"{cname}", "{kname}", {kname}, {regs(n, dtype)}, {nb}, {dA:#x}ull, {dB:#x}ull, {delA}, {delB}, {steps}}},\n')
    src.append("};\n")
    return "".join(src) + "static void run" + tail


def bench(group):
    """clock64 latency (issue, commit, wait 0) and chained throughput, as bench_wg.cu."""
    if group == "fp8":
        forms = [(n, f"m64n{n}k32.f32.e4m3.e4m3", n // 2, "f", ", 1, 1", "0x38383838u") for n in (16, 64, 128, 256)]
        forms += [(64, "m64n64k32.f16.e5m2.e5m2", 16, "r", ", 1, 1", "0x3c3c3c3cu")]
    else:
        forms = [(n, f"m64n{n}k256.s32.b1.b1.and.popc", n // 2, "r", "", "0x5a5a5a5au") for n in (16, 64, 128, 256)]
    parts = [f"// bench_{group}.cu (generated by gen_wgfp8.py): wgmma {group} timing on sm_90a.\n",
             '#include "rec.h"\n#include "dev.h"\n']
    names = []
    for j, (n, form, nreg, cons, imm, fill) in enumerate(forms):
        name = f"bench_{j}"
        names.append((name, form))
        ctype = "float" if cons == "f" else "uint32_t"
        d = ", ".join(f"%{i}" for i in range(nreg))
        outs = ", ".join(f'"+{cons}"(d[{i}])' for i in range(nreg))
        op = (f'"{{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %{nreg + 2}, 0;\\n\\t'
              f'wgmma.mma_async.sync.aligned.{form} {{{d}}}, %{nreg}, %{nreg + 1}, p{imm};\\n\\t}}"'
              f' : {outs} : "l"(da), "l"(db), "r"(1) : "memory"')
        parts.append(f"""
extern "C" __global__ void __launch_bounds__(128) {name}(unsigned long long* cyc, uint32_t* sink, unsigned reps)
{{
    __shared__ alignas(1024) uint4 sm[2048];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < 2048; i += 128)
        sm[i] = make_uint4({fill}, {fill}, {fill}, {fill});
    fenceProxyAsyncShared();
    __syncthreads();
    {ctype} d[{nreg}];
    for (int j = 0; j < {nreg}; j++)
        d[j] = 0;
    unsigned long long base = (unsigned long long)((smem(sm) & 0x3FFFF) >> 4);
    unsigned long long da = base | (8ull << 16) | (16ull << 32), db = (base + 512) | (8ull << 16) | (16ull << 32);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    long long t0 = clock64();
    for (unsigned r = 0; r < reps; r++) {{
        asm volatile({op});
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }}
    long long t1 = clock64();
    for (unsigned r = 0; r < reps; r++)
        asm volatile({op});
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    long long t2 = clock64();
    uint32_t s = 0;
    for (int j = 0; j < {nreg}; j++) {{
        uint32_t w;
        memcpy(&w, &d[j], 4);
        s += w;
    }}
    sink[blockIdx.x * 128 + t] = s;
    if (t == 0) {{
        cyc[blockIdx.x * 2 + 0] = t1 - t0;
        cyc[blockIdx.x * 2 + 1] = t2 - t1;
    }}
}}
""")
    calls = "\n".join(f'        if (f == {j}) {name}<<<blocks, 128>>>(dc, ds, reps);' for j, (name, _) in enumerate(names))
    forms_s = ", ".join(f'"{form}"' for _, form in names)
    parts.append(f"""
int main(int argc, char** argv)
{{
    if (argc < 2)
        return 2;
    openCase(argv[1], "bench_{group}");
    unsigned long long* dc = nullptr;
    uint32_t* ds = nullptr;
    check(cudaMalloc(&dc, 132 * 16), "malloc");
    check(cudaMalloc(&ds, 132 * 128 * 4), "malloc");
    const unsigned reps = 64;
    const char* forms[] = {{{forms_s}}};
    for (int f = 0; f < {len(names)}; f++)
        for (int blocks : {{1, 132}}) {{
            for (int rep = 0; rep < 3; rep++) {{
{calls}
                launched(forms[f]);
            }}
            std::vector<unsigned long long> c = back(dc, 2);
            fprintf(g_meta, "wgmma %s ss blocks %d reps %u: latency (issue+commit+wait) %.1f cycles each; chained throughput %.1f cycles each\\n",
                    forms[f], blocks, reps, (double)c[0] / reps, (double)c[1] / reps);
        }}
    fprintf(g_meta, "status %s\\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}}
""")
    return "".join(parts)


def main():
    out = sys.argv[1]
    os.makedirs(f"{out}/inputs", exist_ok=True)
    lines = []
    # the forms least sure to assemble in their own programs: a refused
    # instruction fails its whole module
    risky = ("_rs", "_n256", "_n8", "_n24")
    fp8a = [c for c in CASES if not any(r in c[0] for r in risky)]
    fp8b = [c for c in CASES if any(r in c[0] for r in risky)]
    for group, cases in (("fp8", fp8a), ("fp8b", fp8b), ("b1", B1)):
        with open(f"{out}/wgx_{group}.cu", "w") as f:
            f.write(program(group, cases))
        if group != "fp8b":
            with open(f"{out}/bench_{group}.cu", "w") as f:
                f.write(bench(group))
        for cs in cases:
            pack(cs, f"{out}/inputs")
            lines.append(f"wgx_{group} {cs[0]}")
    for extra in ("rec.h", "dev.h", "run_wgfp8.sh", "probe_b1xor.cu"):
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), extra), out)
    with open(f"{out}/cases.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
