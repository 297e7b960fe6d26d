"""The public-code corpus case list: one entry per kernel launch.

Every kernel here was written by someone else, in a public CUDA project
(recipe.json pins each project's commit); kernels/*.cu only #include the
fetched files (testdata/public/src/, never committed) and add what nvcc needs
to emit PTX (template instantiations, a macro the code expects). Launch
shapes and sizes follow each project's own driver (its main(), runner or
Makefile `run` line) and are shrunk only where ptxvm's timing mode would take
too long on a small machine; each case says what its project uses.

Inputs are "fill" rules (splitmix64 or iota: runspec.fill_array) or small
files; outputs over 256 KiB are recorded as SHA-256 digests. Every output is
deterministic (integer atomics only where their order cannot show, float
reductions in a fixed order) except hec_stddev_sop's column sums, which
float atomicAdd builds in whatever order the blocks run: that case carries a
relative tolerance (see its note), the only one in the corpus.

CASES is in priority order: Nsight Compute profiles them in this order, so a
cut time budget loses the cases at the end of the list. PAIRS names kernel
choices a user would compare (numerator case, denominator case).

Reserved for independent checking and never used here: PolyBench /
PolyBench-ACC, Rodinia (any fork, including HeCBench's ports of them) and
llm.c (HeCBench's layernorm, groupnorm, permute, qkv, softmax-online and
rmsnorm derive from it).
"""

from __future__ import annotations

import math

import numpy as np

from cases import B, Buf, Case, F32, S32, U32, S64, U64, cdiv  # noqa: F401
import runspec

HELD_OUT_NOTE = ("Reserved for independent checking and left out: PolyBench/PolyBench-ACC, Rodinia (any "
                 "fork, HeCBench's ports included) and llm.c (and HeCBench benchmarks derived from it).")

CASES: list = []
TARGET_MODULES: list = []      # no parse-only PTX for other targets
TARGET_ARCHS: list = []
PAIRS: dict = {}
SM_COUNT = 132                 # H100 SXM: some drivers size their grids from it

_order = 0


def F(v):
    """An f32 argument: v rounded to f32 (what the host's float holds)."""
    return F32(float(np.float32(v)))


def rand(name, type, count, seed, lo=None, hi=None):
    f = {"kind": "rand", "seed": seed}
    if lo is not None:
        f["lo"] = lo
    if hi is not None:
        f["hi"] = hi
    return Buf(name, type, count, fill=f)


def iota(name, type, count, start=0, step=1):
    return Buf(name, type, count, fill={"kind": "iota", "start": start, "step": step})


def const(name, type, count, value):
    return Buf(name, type, count, fill={"kind": "const", "value": value})


def zeros(name, type, count):
    return Buf(name, type, count)


def P(name, module, kernel, grid, block, buffers, args, outputs, desc, *, family, source, size,
      prio, tags=(), dyn_smem=0, symbols=(), tolerance=None, note=None, size_class=None):
    """A public case. family: project/algorithm; source: the fetched file;
    size: what the launch computes, and what the project's driver uses;
    prio: 1 (profile first) .. 3."""
    global _order
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case {name}")
    c = Case(name, module, kernel, grid, block, buffers, args, outputs, desc, [family, *tags],
             issue=23, symbols=symbols, dyn_smem=dyn_smem, tolerance=tolerance)
    c.family = family
    c.project = family.split("/")[0]
    c.source = source
    c.size = size
    c.prio = prio
    c.note = note
    c.working_set = sum(b.count * runspec.SIZES[b.type] for b in c.buffers)
    c.size_class = size_class or _size_class(c.working_set)
    c.order = _order
    _order += 1
    CASES.append(c)
    return c


def _size_class(ws):
    if ws < 4 << 20:
        return "small (< 4 MiB)"
    if ws < 64 << 20:
        return "medium (4-64 MiB)"
    if ws < 1 << 30:
        return "large (64 MiB - 1 GiB)"
    return "huge (>= 1 GiB)"


CS = "cuda-samples/Samples/"
SG = "SGEMM_CUDA/src/kernels/"
HT = "How_to_optimize_in_GPU/"
BL = "code-samples/"
HB = "HeCBench/src/"

# ===========================================================================
# NVIDIA developer blog: transpose (series/cuda-cpp/transpose), 4096 x 4096
# TILE_DIM 32, BLOCK_ROWS 8; the kernels take the width from gridDim.x.

N = 4096
for kname, case in (("copy", "blog_copy_4096"),
                    ("transposeNaive", "blog_transpose_naive_4096"),
                    ("transposeCoalesced", "blog_transpose_coalesced_4096"),
                    ("transposeNoBankConflicts", "blog_transpose_nobank_4096")):
    P(case, "blog_transpose", kname, [N // 32, N // 32], [32, 8],
      [zeros("odata", "f32", N * N), rand("idata", "f32", N * N, 2301, -1, 1)],
      [B("odata"), B("idata")], ["odata"],
      f"blog transpose post: {kname}, 4096x4096 f32, 32x32 tiles of 32x8 threads",
      family="code-samples/transpose", source=BL + "series/cuda-cpp/transpose/transpose.cu",
      size="4096x4096 f32 (the post uses 1024x1024)", prio=1,
      tags=("transpose", "mem.shared" if "Shared" in kname or "Co" in kname or "No" in kname else "mem"))

PAIRS["transpose_naive_vs_padded_4096"] = ["blog_transpose_naive_4096", "blog_transpose_nobank_4096"]
PAIRS["transpose_shared_vs_padded_4096"] = ["blog_transpose_coalesced_4096", "blog_transpose_nobank_4096"]
PAIRS["transpose_naive_vs_copy_4096"] = ["blog_transpose_naive_4096", "blog_copy_4096"]

# cuda-samples 6_Performance/transpose: TILE_DIM 32, BLOCK_ROWS 16; its kernels
# take (odata, idata, width, height).
for kname, case in (("transposeNoBankConflicts", "cs_transpose_nobank_4096"),
                    ("transposeDiagonal", "cs_transpose_diagonal_4096")):
    P(case, "cs_transpose", kname, [N // 32, N // 32], [32, 16],
      [zeros("odata", "f32", N * N), rand("idata", "f32", N * N, 2302, -1, 1)],
      [B("odata"), B("idata"), S32(N), S32(N)], ["odata"],
      f"cuda-samples transpose: {kname}, 4096x4096 f32, 32x32 tiles of 32x16 threads",
      family="cuda-samples/transpose", source=CS + "6_Performance/transpose/transpose.cu",
      size="4096x4096 f32 (the sample: up to 1024x1024, --dimX/--dimY)", prio=2,
      tags=("transpose", "mem.shared"))
PAIRS["cs_transpose_diagonal_vs_padded_4096"] = ["cs_transpose_diagonal_4096", "cs_transpose_nobank_4096"]

# ===========================================================================
# SGEMM_CUDA (siboehm): C = alpha*A*B + beta*C, row-major, M = N = K.
# src/runner.cu's launch shapes; the benchmark sweeps 128..4096.

SGEMM_K = {
    # name: (kernel, grid(n), block, dims note)
    "naive": ("sgemm_naive", lambda n: [cdiv(n, 32), cdiv(n, 32)], [32, 32]),
    "coalesce": ("sgemm_global_mem_coalesce", lambda n: [cdiv(n, 32), cdiv(n, 32)], [32 * 32]),
    "smem": ("sgemm_shared_mem_block", lambda n: [cdiv(n, 32), cdiv(n, 32)], [32 * 32]),
    "blocktile1d": ("sgemm1DBlocktiling", lambda n: [cdiv(n, 64), cdiv(n, 64)], [64 * 64 // 8]),
    "blocktile2d": ("sgemm2DBlocktiling", lambda n: [cdiv(n, 128), cdiv(n, 128)], [128 * 128 // 64]),
    "vectorize": ("sgemmVectorize", lambda n: [cdiv(n, 128), cdiv(n, 128)], [128 * 128 // 64]),
    "warptiling": ("sgemmWarptiling", lambda n: [cdiv(n, 128), cdiv(n, 128)], [128]),
}


def sgemm(variant, n, prio, seed):
    kname, grid, block = SGEMM_K[variant]
    return P(f"sgemm_{variant}_{n}", "sgemm", kname, grid(n), block,
             [rand("A", "f32", n * n, seed, -1, 1), rand("B", "f32", n * n, seed + 1, -1, 1),
              rand("C", "f32", n * n, seed + 2, -1, 1)],
             [S32(n), S32(n), S32(n), F(0.5), B("A"), B("B"), F(3.0), B("C")], ["C"],
             f"SGEMM_CUDA {kname}: C = 0.5*A*B + 3*C, {n}x{n}x{n} f32",
             family="SGEMM_CUDA/sgemm", source=SG, size=f"M=N=K={n} (the runner sweeps 128..4096)",
             prio=prio, tags=("matmul",))


sgemm("naive", 512, 1, 2401)
sgemm("coalesce", 512, 1, 2404)
sgemm("smem", 512, 1, 2407)
sgemm("blocktile1d", 1024, 2, 2410)
sgemm("blocktile2d", 1024, 1, 2413)
sgemm("vectorize", 1024, 2, 2416)
sgemm("warptiling", 1024, 1, 2419)
sgemm("warptiling", 2048, 2, 2422)
PAIRS["sgemm_naive_vs_smem_512"] = ["sgemm_naive_512", "sgemm_smem_512"]
PAIRS["sgemm_naive_vs_coalesce_512"] = ["sgemm_naive_512", "sgemm_coalesce_512"]
PAIRS["sgemm_blocktile2d_vs_warptiling_1024"] = ["sgemm_blocktile2d_1024", "sgemm_warptiling_1024"]
PAIRS["sgemm_blocktile1d_vs_blocktile2d_1024"] = ["sgemm_blocktile1d_1024", "sgemm_blocktile2d_1024"]
PAIRS["sgemm_blocktile2d_vs_vectorize_1024"] = ["sgemm_blocktile2d_1024", "sgemm_vectorize_1024"]

# cuda-samples 0_Introduction/matrixMul: MatrixMulCUDA<32>, the sample's default
# sizes (A 320x320, B 640x320: C = A*B is 320x640).
P("cs_matrixmul_320x640", "cs_matrixmul", "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii", [640 // 32, 320 // 32],
  [32, 32],
  [zeros("C", "f32", 320 * 640), rand("A", "f32", 320 * 320, 2501, 0, 1),
   rand("B", "f32", 320 * 640, 2502, 0, 1)],
  [B("C"), B("A"), B("B"), S32(320), S32(640)], ["C"],
  "cuda-samples matrixMul: 32x32 shared tiles, A 320x320 times B 320x640 (the sample's default)",
  family="cuda-samples/matmul", source=CS + "0_Introduction/matrixMul/matrixMul.cu",
  size="wA=hA=320, wB=640, hB=320 (the sample's default)", prio=2, tags=("matmul",))

# How_to_optimize_in_GPU sgemm_v1: Sgemm<128,8,128,8,8,false> (256 threads,
# 8x8 register tiles, float4 loads through registers into shared memory).
n = 1024
P("hto_sgemm_v1_1024", "hto_sgemm_v1", "Sgemm", [n // 128, n // 128], [128 // 8, 128 // 8],
  [rand("A", "f32", n * n, 2601, -1, 1), rand("B", "f32", n * n, 2602, -1, 1), zeros("C", "f32", n * n)],
  [B("A"), B("B"), B("C"), S32(n), S32(n), S32(n)], ["C"],
  "How_to_optimize_in_GPU sgemm_v1: 128x128x8 block tile, 8x8 per thread, 1024^3",
  family="How_to_optimize_in_GPU/sgemm", source=HT + "sgemm/sgemm_v1.cu",
  size="M=N=K=1024 (its main takes M K N)", prio=2, tags=("matmul",))

# ===========================================================================
# Reductions

# How_to_optimize_in_GPU reduce v0..v7 (their main(): N = 32M floats, 256
# threads); here N = 8M. v3, v5 and v6 are left out (v3 ~ v4 without the
# unrolled warp, v5/v6 ~ v7 without shuffles).
RN = 8 * 1024 * 1024
for v, kname, nblk, extra, pr in ((0, "reduce0", RN // 256, [], 1), (1, "reduce1", RN // 256, [], 2),
                                  (2, "reduce2", RN // 256, [], 1), (4, "reduce4", RN // 512, [], 2),
                                  (7, "_Z7reduce7ILj256ELi128EEvPfS0_j", RN // (256 * 128), [U32(RN)], 1)):
    P(f"hto_reduce_v{v}_8M", f"hto_reduce_v{v}", kname, [nblk], [256],
      [rand("d_in", "f32", RN, 2700 + v, -1, 1), zeros("d_out", "f32", nblk)],
      [B("d_in"), B("d_out")] + extra, ["d_out"],
      f"How_to_optimize_in_GPU reduce{v}: block partial sums of 8M floats, {nblk} blocks of 256",
      family="How_to_optimize_in_GPU/reduce", source=HT + f"reduce/reduce_v{v}_*.cu",
      size="N = 8M floats (its main: 32M" + ("; v7: NUM_PER_THREAD 128, 1024 blocks)" if v == 7 else ")"),
      prio=pr, tags=("reduction", "mem.shared"))
PAIRS["hto_reduce_v0_vs_v1"] = ["hto_reduce_v0_8M", "hto_reduce_v1_8M"]
PAIRS["hto_reduce_v1_vs_v2"] = ["hto_reduce_v1_8M", "hto_reduce_v2_8M"]
PAIRS["hto_reduce_v2_vs_v4"] = ["hto_reduce_v2_8M", "hto_reduce_v4_8M"]
PAIRS["hto_reduce_v0_vs_v7"] = ["hto_reduce_v0_8M", "hto_reduce_v7_8M"]

# NVIDIA developer blog "Faster parallel reductions on Kepler"
# (posts/parallel_reduction_with_shfl): int sums with atomics; grid-stride
# loops of min(N/256, 2048) blocks of 256 threads (its device_reduce_* hosts).
RS = 16 * 1024 * 1024
for kname, case, pr in (("device_reduce_atomic_kernel", "blog_reduce_atomic_16M", 1),
                        ("device_reduce_warp_atomic_kernel", "blog_reduce_warp_atomic_16M", 1),
                        ("device_reduce_block_atomic_kernel", "blog_reduce_block_atomic_16M", 2)):
    P(case, "blog_reduce_shfl", kname, [2048], [256],
      [rand("in", "s32", RS, 2801, 0, 3), zeros("out", "s32", 1)],
      [B("in"), B("out"), S32(RS)], ["out"],
      f"blog shuffle reduction: {kname}, 16M ints into one counter",
      family="code-samples/reduce_shfl", source=BL + "posts/parallel_reduction_with_shfl/",
      size="N = 16M ints (the post's command line: num_elems)", prio=pr,
      tags=("reduction", "atomics", "warp.shfl"))
PAIRS["blog_reduce_atomic_vs_warp_atomic"] = ["blog_reduce_atomic_16M", "blog_reduce_warp_atomic_16M"]
PAIRS["blog_reduce_warp_vs_block_atomic"] = ["blog_reduce_warp_atomic_16M", "blog_reduce_block_atomic_16M"]

# cuda-samples threadFenceReduction: reduceSinglePass<128, true>, its defaults
# (1M floats, 128 threads, 64 blocks); the last block to finish sums the partials.
P("cs_threadfence_reduce_1M", "cs_threadfence", "_Z16reduceSinglePassILj128ELb1EEvPKfPfj", [64], [128],
  [rand("g_idata", "f32", 1 << 20, 2901, 0, 1), zeros("g_odata", "f32", 64)],
  [B("g_idata"), B("g_odata"), U32(1 << 20)], ["g_odata"],
  "cuda-samples threadFenceReduction: single-pass sum of 1M floats, __threadfence + atomicInc ticket",
  family="cuda-samples/threadfence_reduction",
  source=CS + "2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction_kernel.cuh",
  size="1M floats, 64 blocks of 128 (the sample's defaults)", prio=2, dyn_smem=128 * 4,
  tags=("reduction", "atomics", "membar"))

# ===========================================================================
# Histograms (cuda-samples 2_Concepts_and_Techniques/histogram), 64 MiB of bytes.
HB_BYTES = 64 * 1048576
h64_count = cdiv(HB_BYTES, 64 * (255 - 255 % 16))
P("cs_histogram64_64M", "cs_histogram64", "histogram64Kernel", [h64_count], [64],
  [zeros("d_PartialHistograms", "u32", h64_count * 64), rand("d_Data", "u32", HB_BYTES // 4, 3001)],
  [B("d_PartialHistograms"), B("d_Data"), U32(HB_BYTES // 16)], ["d_PartialHistograms"],
  "cuda-samples histogram64Kernel: 64-bin per-thread byte counters in shared memory, 64 MiB",
  family="cuda-samples/histogram", source=CS + "2_Concepts_and_Techniques/histogram/histogram64.cu",
  size="64 MiB of random bytes (the sample's byteCount)", prio=1, tags=("histogram", "mem.shared"))
P("cs_merge_histogram64", "cs_histogram64", "mergeHistogram64Kernel", [64], [256],
  [zeros("d_Histogram", "u32", 64), rand("d_PartialHistograms", "u32", h64_count * 64, 3002, 0, 255)],
  [B("d_Histogram"), B("d_PartialHistograms"), U32(h64_count)], ["d_Histogram"],
  f"cuda-samples mergeHistogram64Kernel: sum {h64_count} partial 64-bin histograms",
  family="cuda-samples/histogram", source=CS + "2_Concepts_and_Techniques/histogram/histogram64.cu",
  size=f"{h64_count} partial histograms (from 64 MiB)", prio=3, tags=("histogram", "reduction"))
P("cs_histogram256_64M", "cs_histogram256", "histogram256Kernel", [240], [192],
  [zeros("d_PartialHistograms", "u32", 240 * 256), rand("d_Data", "u32", HB_BYTES // 4, 3003)],
  [B("d_PartialHistograms"), B("d_Data"), U32(HB_BYTES // 4)], ["d_PartialHistograms"],
  "cuda-samples histogram256Kernel: per-warp 256-bin shared histograms, shared atomicAdd, 64 MiB",
  family="cuda-samples/histogram", source=CS + "2_Concepts_and_Techniques/histogram/histogram256.cu",
  size="64 MiB of random bytes, 240 blocks of 192 (the sample's)", prio=1,
  tags=("histogram", "atomics.shared"))
PAIRS["cs_histogram64_vs_histogram256"] = ["cs_histogram64_64M", "cs_histogram256_64M"]

# ===========================================================================
# Scans
SN = 13 * 1048576 // 2                 # the sample's N
P("cs_scan_exclusive_shared", "cs_scan", "scanExclusiveShared", [SN // 1024], [256],
  [zeros("d_Dst", "u32", SN), rand("d_Src", "u32", SN, 3101, 0, 1 << 20)],
  [B("d_Dst"), B("d_Src"), U32(1024)], ["d_Dst"],
  "cuda-samples scanExclusiveShared: exclusive scans of 1024-element arrays (uint4 per thread, "
  "warp scans in shared memory), 6.5M uints",
  family="cuda-samples/scan", source=CS + "2_Concepts_and_Techniques/scan/scan.cu",
  size="N = 13*1M/2 uints (the sample's), arrays of 1024", prio=1, tags=("scan", "mem.shared"))
SL = 262144                            # MAX_LARGE_ARRAY_SIZE

# HeCBench scan-cuda: scan_bcao<int, 1024> (Blelloch scan, bank-conflict
# avoidance), 16*SMs blocks of 512 in a block-stride loop.
HS = 1 << 23
P("hec_scan_bcao_8M", "hec_scan", "_Z9scan_bcaoIiLi1024EEvlPT_PKS0_", [16 * SM_COUNT], [512],
  [zeros("g_odata", "s32", HS), rand("g_idata", "s32", HS, 3201, 1, 5)],
  [S64(HS // 1024), B("g_odata"), B("g_idata")], ["g_odata"],
  "HeCBench scan_bcao<int,1024>: work-efficient block scans with padding against bank conflicts, 8M ints",
  family="HeCBench/scan", source=HB + "scan-cuda/main.cu",
  size="8M ints (its Makefile runs 256M; 16 x SMs blocks as its main)", prio=2,
  tags=("scan", "mem.shared"))

# ===========================================================================
# Image / signal processing

W = 3072
P("cs_convsep_rows_3072", "cs_convsep", "convolutionRowsKernel", [W // (8 * 16), W // 4], [16, 4],
  [zeros("d_Dst", "f32", W * W), rand("d_Src", "f32", W * W, 3301, 0, 1)],
  [B("d_Dst"), B("d_Src"), S32(W), S32(W), S32(W)], ["d_Dst"],
  "cuda-samples convolutionRowsKernel: 17-tap row filter, 3072x3072, taps in __constant__",
  family="cuda-samples/convolution_separable",
  source=CS + "2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu",
  size="3072x3072 f32 (the sample's)", prio=1, tags=("conv", "mem.shared", "mem.const"),
  symbols=[Buf("c_Kernel", "f32", data=(lambda k: (k / k.sum()).astype("<f4"))(
      np.random.RandomState(3302).uniform(0, 1, 17)))])
P("cs_convsep_cols_3072", "cs_convsep", "convolutionColumnsKernel", [W // 16, W // (8 * 8)], [16, 8],
  [zeros("d_Dst", "f32", W * W), rand("d_Src", "f32", W * W, 3303, 0, 1)],
  [B("d_Dst"), B("d_Src"), S32(W), S32(W), S32(W)], ["d_Dst"],
  "cuda-samples convolutionColumnsKernel: 17-tap column filter, 3072x3072, taps in __constant__",
  family="cuda-samples/convolution_separable",
  source=CS + "2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu",
  size="3072x3072 f32 (the sample's)", prio=2, tags=("conv", "mem.shared", "mem.const"),
  symbols=[Buf("c_Kernel", "f32", data=(lambda k: (k / k.sum()).astype("<f4"))(
      np.random.RandomState(3302).uniform(0, 1, 17)))])
PAIRS["cs_convsep_cols_vs_rows"] = ["cs_convsep_cols_3072", "cs_convsep_rows_3072"]


def _gauss_coeffs(sigma=10.0):
    """recursiveGaussian_cuda.cu's order-0 coefficients, in f32 as its host computes them."""
    f = np.float32
    nsigma = f(sigma)
    alpha = f(f(1.695) / nsigma)
    ema = f(math.exp(-float(alpha)))
    ema2 = f(math.exp(-2 * float(alpha)))
    b1, b2 = f(-2 * ema), ema2
    k = f((f(1) - ema) * (f(1) - ema) / (f(1) + f(2) * alpha * ema - ema2))
    a0, a1 = k, f(k * (alpha - f(1)) * ema)
    a2, a3 = f(k * (alpha + f(1)) * ema), f(-k * ema2)
    coefp = f((a0 + a1) / (f(1) + b1 + b2))
    coefn = f((a2 + a3) / (f(1) + b1 + b2))
    return [float(x) for x in (a0, a1, a2, a3, b1, b2, coefp, coefn)]


GW = 2048
P("cs_recursive_gaussian_2048", "cs_recgauss", "d_recursiveGaussian_rgba", [GW // 64], [64],
  [rand("id", "u32", GW * GW, 3401), zeros("od", "u32", GW * GW)],
  [B("id"), B("od"), S32(GW), S32(GW)] + [F(x) for x in _gauss_coeffs()], ["od"],
  "cuda-samples d_recursiveGaussian_rgba: IIR Gaussian (sigma 10), one thread per column walking "
  "down and back up a 2048x2048 RGBA8 image",
  family="cuda-samples/recursive_gaussian",
  source=CS + "5_Domain_Specific/recursiveGaussian/recursiveGaussian_kernel.cuh",
  size="2048x2048 RGBA8, 64 threads per block (the sample: its image, nthreads 64)", prio=1,
  tags=("column_walk", "fp32"))

FN = 1 << 23
P("cs_fwt_batch2_8M", "cs_fwt", "fwtBatch2Kernel", [FN // 1024, 1], [256],
  [rand("d_Data", "f32", FN, 3501, -1, 1)],
  [B("d_Data"), B("d_Data"), S32(FN // 4)], ["d_Data"],
  "cuda-samples fwtBatch2Kernel: radix-4 Walsh butterfly pass over global memory, stride 2M, 8M floats",
  family="cuda-samples/fast_walsh_transform",
  source=CS + "5_Domain_Specific/fastWalshTransform/fastWalshTransform_kernel.cuh",
  size="log2N = 23 (the sample's), the first global pass", prio=2, tags=("fft", "mem"))
P("cs_fwt_batch1_8M", "cs_fwt", "fwtBatch1Kernel", [4096], [512],
  [rand("d_Data", "f32", FN, 3502, -1, 1)],
  [B("d_Data"), B("d_Data"), S32(11)], ["d_Data"],
  "cuda-samples fwtBatch1Kernel: 2048-point Walsh transforms in shared memory, 4096 of them",
  family="cuda-samples/fast_walsh_transform",
  source=CS + "5_Domain_Specific/fastWalshTransform/fastWalshTransform_kernel.cuh",
  size="log2N = 23 after six global passes: M = 4096 blocks of N = 2048", prio=1, dyn_smem=2048 * 4,
  tags=("fft", "mem.shared.dynamic"))
P("cs_fwt_modulate_8M", "cs_fwt", "modulateKernel", [128], [256],
  [rand("d_A", "f32", FN, 3503, -1, 1), rand("d_B", "f32", FN, 3504, -1, 1)],
  [B("d_A"), B("d_B"), S32(FN)], ["d_A"],
  "cuda-samples modulateKernel: 128 blocks of 256 in a grid-stride loop over 8M floats",
  family="cuda-samples/fast_walsh_transform",
  source=CS + "5_Domain_Specific/fastWalshTransform/fastWalshTransform_kernel.cuh",
  size="8M floats, <<<128, 256>>> (the sample's)", prio=3, tags=("elementwise",))

# NVIDIA blog finite-difference: 64^3 grid, 8th-order derivatives.
MX = 64
_fd_syms = []
for ax in "xyz":
    ds = np.float32(MX - 1)
    for nm, c in (("a", 4. / 5.), ("b", -1. / 5.), ("c", 4. / 105.), ("d", -1. / 280.)):
        _fd_syms.append(Buf(f"c_{nm}{ax}", "f32", data=np.array([np.float32(np.float32(c) * ds)], "<f4")))
for kname, case, grid, block, pr in (
        ("derivative_z", "blog_fd_z_spencils", [64 // 4, 64], [4, 64], 1),
        ("derivative_z_lPencils", "blog_fd_z_lpencils", [64 // 32, 64], [32, 64 * 4 // 32], 1)):
    P(case, "blog_fd", kname, grid, block,
      [rand("f", "f32", MX ** 3, 3601, -1, 1), zeros("df", "f32", MX ** 3)],
      [B("f"), B("df")], ["df"],
      f"blog finite-difference {kname}: 8th-order derivative on a 64^3 grid through shared memory",
      family="code-samples/finite_difference", source=BL + "series/cuda-cpp/finite-difference/finite-difference.cu",
      size="64^3 f32 (the post's)", prio=pr, symbols=list(_fd_syms), tags=("stencil", "mem.shared"))
PAIRS["blog_fd_z_spencils_vs_lpencils"] = ["blog_fd_z_spencils", "blog_fd_z_lpencils"]

# NVIDIA blog coalescing-global: offset/stride kernels, 4 MiB of floats.
CN = 4 * 1024 * 1024 // 4
for kname, case, s, pr in (("_Z6strideIfEvPT_i", "blog_stride_f32_s1", 1, 2),
                           ("_Z6strideIfEvPT_i", "blog_stride_f32_s8", 8, 1)):
    P(case, "blog_coalescing", kname, [CN // 256], [256],
      [rand("a", "f32", CN * 33, 3701, -1, 1)], [B("a"), S32(s)], ["a"],
      f"blog coalescing post: a[i] += 1 with {'offset' if 'offset' in kname else 'stride'} {s}, 1M threads",
      family="code-samples/coalescing", source=BL + "series/cuda-cpp/coalescing-global/coalescing.cu",
      size="nMB = 4 (the post's), buffer of 33*n floats", prio=pr, tags=("mem",))
PAIRS["blog_stride8_vs_stride1"] = ["blog_stride_f32_s8", "blog_stride_f32_s1"]

# ===========================================================================
# Sorting networks and merge sort (cuda-samples), 1M / 4M keys
SK = 1048576
P("cs_bitonic_sort_shared1", "cs_bitonic", "bitonicSortShared1", [SK // 1024], [512],
  [zeros("d_DstKey", "u32", SK), zeros("d_DstVal", "u32", SK), rand("d_SrcKey", "u32", SK, 3801),
   iota("d_SrcVal", "u32", SK)],
  [B("d_DstKey"), B("d_DstVal"), B("d_SrcKey"), B("d_SrcVal")], ["d_DstKey", "d_DstVal"],
  "cuda-samples bitonicSortShared1: bitonic sort of 1024-key chunks in shared memory, 1M keys",
  family="cuda-samples/sorting_networks", source=CS + "2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu",
  size="N = 1M key/value pairs (the sample's)", prio=1, tags=("sort", "mem.shared"))
P("cs_bitonic_merge_global", "cs_bitonic", "bitonicMergeGlobal", [SK // 512], [256],
  [rand("d_Key", "u32", SK, 3802), iota("d_Val", "u32", SK)],
  [B("d_Key"), B("d_Val"), B("d_Key"), B("d_Val"), U32(SK), U32(SK), U32(SK // 2), U32(0)],
  ["d_Key", "d_Val"],
  "cuda-samples bitonicMergeGlobal: one global merge step (size 1M, stride 512K), in place",
  family="cuda-samples/sorting_networks", source=CS + "2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu",
  size="N = 1M, the first global step", prio=2, tags=("sort", "mem"))
MS = 4 * 1048576
P("cs_mergesort_shared_4M", "cs_mergesort", "_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j", [MS // 1024], [512],
  [zeros("d_DstKey", "u32", MS), zeros("d_DstVal", "u32", MS), rand("d_SrcKey", "u32", MS, 3804, 0, 65535),
   iota("d_SrcVal", "u32", MS)],
  [B("d_DstKey"), B("d_DstVal"), B("d_SrcKey"), B("d_SrcVal"), U32(1024)], ["d_DstKey", "d_DstVal"],
  "cuda-samples mergeSortSharedKernel<1>: merge sort of 1024-key chunks by binary-search ranks, 4M keys",
  family="cuda-samples/merge_sort", source=CS + "0_Introduction/mergeSort/mergeSort.cu",
  size="N = 4M keys below 65536 (the sample's)", prio=1, tags=("sort", "mem.shared"))
PAIRS["cs_bitonic_vs_mergesort_shared"] = ["cs_bitonic_sort_shared1", "cs_mergesort_shared_4M"]

# ===========================================================================
# Finance / Monte Carlo-style

OPT = 4000000
P("cs_blackscholes_4M", "cs_blackscholes", "BlackScholesGPU", [cdiv(OPT // 2, 128)], [128],
  [zeros("d_CallResult", "f32", OPT), zeros("d_PutResult", "f32", OPT),
   rand("d_StockPrice", "f32", OPT, 3901, 5, 30), rand("d_OptionStrike", "f32", OPT, 3902, 1, 100),
   rand("d_OptionYears", "f32", OPT, 3903, 0.25, 10)],
  [B("d_CallResult"), B("d_PutResult"), B("d_StockPrice"), B("d_OptionStrike"), B("d_OptionYears"),
   F(0.02), F(0.30), S32(OPT)], ["d_CallResult", "d_PutResult"],
  "cuda-samples BlackScholesGPU: 4M European options, two per thread (float2), __expf/__logf/rsqrtf",
  family="cuda-samples/black_scholes", source=CS + "5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh",
  size="OPT_N = 4M (the sample's)", prio=1, tags=("fp32.sfu", "elementwise"))

P("cs_sobol_100x100k", "cs_sobol", "sobolGPU_kernel", [1024, 100], [64],
  [rand("d_directions", "u32", 100 * 32, 3904), zeros("d_output", "f32", 100 * 100000)],
  [U32(100000), U32(100), B("d_directions"), B("d_output")], ["d_output"],
  "cuda-samples sobolGPU_kernel: Sobol sequences, 100 dimensions x 100000 vectors, Gray-code updates",
  family="cuda-samples/sobol_qrng", source=CS + "5_Domain_Specific/SobolQRNG/sobol_gpu.cu",
  size="100000 vectors x 100 dimensions (the sample's); grid.x = 4 x SMs rounded up to 1024",
  prio=2, tags=("integer", "mem.shared"),
  note="direction numbers are random words, not Sobol's primitive-polynomial table (same work)")

# ===========================================================================
# Elementwise / streaming, linear algebra
SP = 256 * 4096
P("cs_scalarprod_256x4096", "cs_scalarprod", "scalarProdGPU", [128], [256],
  [zeros("d_C", "f32", 256), rand("d_A", "f32", SP, 4001, -1, 1), rand("d_B", "f32", SP, 4002, -1, 1)],
  [B("d_C"), B("d_A"), B("d_B"), S32(256), S32(4096)], ["d_C"],
  "cuda-samples scalarProdGPU: 256 dot products of 4096 floats, 128 blocks (the sample's)",
  family="cuda-samples/scalar_prod", source=CS + "2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh",
  size="VECTOR_N 256, ELEMENT_N 4096 (the sample's)", prio=2, tags=("reduction", "mem.shared"))

P("cs_vectoradd_50000", "cs_vectoradd", "vectorAdd", [cdiv(50000, 256)], [256],
  [rand("A", "f32", 50000, 4003, 0, 1), rand("B", "f32", 50000, 4004, 0, 1), zeros("C", "f32", 50000)],
  [B("A"), B("B"), B("C"), S32(50000)], ["C"],
  "cuda-samples vectorAdd: the introductory sample at its own size (50000 floats, 196 blocks)",
  family="cuda-samples/vector_add", source=CS + "0_Introduction/vectorAdd/vectorAdd.cu",
  size="numElements = 50000 (the sample's)", prio=2, tags=("elementwise",), size_class="tiny (< 1 MiB)")

EN = 32 * 1024 * 1024
for kname, case, grid, pr in (("add", "hto_elementwise_add_32M", EN // 256, 2),
                              ("vec4_add", "hto_elementwise_vec4_32M", EN // 1024, 1)):
    P(case, "hto_elementwise", kname, [grid], [256],
      [rand("a", "f32", EN, 4005, -1, 1), rand("b", "f32", EN, 4006, -1, 1), zeros("c", "f32", EN)],
      [B("a"), B("b"), B("c")], ["c"],
      f"How_to_optimize_in_GPU {kname}: c = a + b over 32M floats",
      family="How_to_optimize_in_GPU/elementwise", source=HT + "elementwise/elementwise_add.cu",
      size="N = 32M floats (its main)", prio=pr, tags=("elementwise",))
PAIRS["hto_elementwise_scalar_vs_vec4"] = ["hto_elementwise_add_32M", "hto_elementwise_vec4_32M"]

# BabelStream (HeCBench babelstream-cuda), doubles, TBSIZE 256; arrays start
# as BabelStream initialises them (a = 0.1, b = 0.2, c = 0.0: const fills).
BS = 1 << 26
P("hec_babelstream_copy_64M", "hec_babelstream", "_Z11copy_kernelIdEvPKT_PS0_", [BS // 256], [256],
  [const("a", "f64", BS, 0.1), zeros("c", "f64", BS)], [B("a"), B("c")], ["c"],
  "BabelStream copy: c[i] = a[i], 64M doubles (1 GiB moved)",
  family="HeCBench/babelstream", source=HB + "babelstream-cuda/main.cu",
  size="2^26 doubles per array (BabelStream's default is 2^25; -s)", prio=1, tags=("stream", "mem.dram"))
P("hec_babelstream_triad_64M", "hec_babelstream", "_Z12triad_kernelIdEvPT_PKS0_S3_", [BS // 256], [256],
  [const("a", "f64", BS, 0.1), const("b", "f64", BS, 0.2), const("c", "f64", BS, 0.0)],
  [B("a"), B("b"), B("c")], ["a"],
  "BabelStream triad: a[i] = b[i] + 0.4*c[i], 64M doubles (1.5 GiB moved)",
  family="HeCBench/babelstream", source=HB + "babelstream-cuda/main.cu",
  size="2^26 doubles per array (BabelStream's default is 2^25)", prio=1, tags=("stream", "mem.dram"))
P("hec_babelstream_dot_32M", "hec_babelstream", "_Z10dot_kernelIdEvPKT_S2_PS0_i", [256], [256],
  [const("a", "f64", BS // 2, 0.1), const("b", "f64", BS // 2, 0.2), zeros("sum", "f64", 256)],
  [B("a"), B("b"), B("sum"), S32(BS // 2)], ["sum"],
  "BabelStream dot: 256 blocks of 256 in a grid-stride loop, block partial sums, 32M doubles",
  family="HeCBench/babelstream", source=HB + "babelstream-cuda/main.cu",
  size="2^25 doubles per array (BabelStream's default), DOT_NUM_BLOCKS 256", prio=2,
  tags=("stream", "reduction"))
PAIRS["babelstream_triad_vs_copy"] = ["hec_babelstream_triad_64M", "hec_babelstream_copy_64M"]

# How_to_optimize_in_GPU sgemv: y = A x, a warp per row.
GM, GN = 16384, 1024
for v, kname, grid, block, pr in ((0, "Sgemv_v0", [GM // 4], [32, 4], 1), (1, "Sgemv_v1", [GM // 4], [32, 4], 2)):
    P(f"hto_sgemv_v{v}_16384x1024", f"hto_sgemv_v{v}", kname, grid, block,
      [rand("A", "f32", GM * GN, 4201 + v, -1, 1), rand("x", "f32", GN, 4203, -1, 1), zeros("y", "f32", GM)],
      [B("A"), B("x"), B("y"), S32(GM), S32(GN)], ["y"],
      f"How_to_optimize_in_GPU {kname}: y = A x, 16384x1024, a warp per row, shuffle reduction"
      + (" (float4 loads)" if v == 1 else ""),
      family="How_to_optimize_in_GPU/sgemv", source=HT + f"sgemv/Sgemv_v{v}.cu",
      size="M = 16384, N = 1024 (its main takes M N)", prio=pr, tags=("gemv", "warp.shfl"))
PAIRS["hto_sgemv_v0_vs_v1"] = ["hto_sgemv_v0_16384x1024", "hto_sgemv_v1_16384x1024"]

# How_to_optimize_in_GPU spmv: CSR with 32 nonzeros per row (a warp per row).
SR, SNZ = 262144, 32
P("hto_spmv_csr_256k_x32", "hto_spmv", "_Z18My_spmv_csr_kernelIifLj8ELj32EEvT_PKS0_S2_PKT0_S5_PS3_",
  [cdiv(SR, 8)], [256],
  [iota("A_row_offset", "s32", SR + 1, 0, SNZ), rand("A_col_index", "s32", SR * SNZ, 4301, 0, SR - 1),
   rand("A_value", "f32", SR * SNZ, 4302, -1, 1), rand("x", "f32", SR, 4303, -1, 1), zeros("y", "f32", SR)],
  [S32(SR), B("A_row_offset"), B("A_col_index"), B("A_value"), B("x"), B("y")], ["y"],
  "How_to_optimize_in_GPU My_spmv_csr_kernel<int,float,8,32>: CSR SpMV, 262144 rows of 32 random columns",
  family="How_to_optimize_in_GPU/spmv", source=HT + "spmv/spmv.cu",
  size="262144x262144, 8M nonzeros (its main reads a .mtx; mean 32 per row picks 32 lanes per row)",
  prio=1, tags=("spmv", "mem.gather", "warp.shfl"),
  note="a random matrix with 32 nonzeros in every row stands in for the SuiteSparse file it reads")

# ===========================================================================
# Row-wise ML kernels (HeCBench)

SMR, SMC = 10000, 784
P("hec_softmax_naive_10000x784", "hec_softmax", "softMax", [cdiv(SMR, 256)], [256],
  [rand("src", "f32", SMR * SMC, 4401, 0, 12), zeros("dest", "f32", SMR * SMC)],
  [S32(SMR), S32(SMC), B("src"), B("dest")], ["dest"],
  "HeCBench softMax: a thread per row (three passes of expf), 10000 rows of 784",
  family="HeCBench/softmax", source=HB + "softmax-cuda/main.cu",
  size="10000 x 784 (its test runs 100000 x 784)", prio=1, tags=("softmax", "fp32.sfu"))
P("hec_softmax_warp_10000x784", "hec_softmax", "softMax2", [cdiv(SMR, 8)], [256],
  [rand("src", "f32", SMR * SMC, 4401, 0, 12), zeros("dest", "f32", SMR * SMC)],
  [S32(SMR), S32(SMC), B("src"), B("dest")], ["dest"],
  "HeCBench softMax2: a warp per row, cooperative-groups reduce for max and sum, 10000 rows of 784",
  family="HeCBench/softmax", source=HB + "softmax-cuda/main.cu",
  size="10000 x 784 (its test runs 100000 x 784)", prio=1, tags=("softmax", "fp32.sfu", "warp.shfl"))
PAIRS["hec_softmax_thread_vs_warp_per_row"] = ["hec_softmax_naive_10000x784", "hec_softmax_warp_10000x784"]

# rowwiseMoments (PyTorch's group-norm statistics): its Makefile runs N=C=W=H=128,
# G=4 (512 rows of 524288 floats, 1 GiB); here N = 32 (256 MiB).
RN_, RC, RW, RH, RG = 32, 128, 128, 128, 4
RD = RC // RG * RW * RH
P("hec_rowwise_moments_128x524288", "hec_rowwise_moments", "RowwiseMomentsKernel", [RN_ * RG], [256],
  [rand("X", "f32", RN_ * RC * RW * RH, 4501, 0, 1), zeros("mean", "f32", RN_ * RG), zeros("rstd", "f32", RN_ * RG)],
  [S64(RD), F(1e-6), B("X"), B("mean"), B("rstd")], ["mean", "rstd"],
  "HeCBench RowwiseMomentsKernel<float> (PyTorch): Welford mean and rstd of 128 rows of 524288",
  family="HeCBench/rowwise_moments", source=HB + "rowwiseMoments-cuda/main.cu",
  size="N=32, C=W=H=128, G=4 (its Makefile: N=128, 1 GiB)", prio=1, tags=("rownorm", "warp.shfl"))

# FasterTransformer's add-bias-residual post-LayerNorm (HeCBench addBiasResidualLayerNorm),
# m = 4096 rows; n = 1024 -> 256 threads, num_trips 4: the general kernel.
LM, LN = 4096, 1024
P("hec_layernorm_4096x1024", "hec_layernorm", "_Z35generalAddBiasResidualPostLayerNormIfEvPT_PKS0_S3_S3_S3_fi",
  [LM], [256],
  [rand("out", "f32", LM * LN, 4601, 0, 1), rand("input", "f32", LM * LN, 4602, 0, 1),
   rand("bias", "f32", LN, 4603, 0, 1), rand("gamma", "f32", LN, 4604, 0, 1), rand("beta", "f32", LN, 4605, 0, 1)],
  [B("out"), B("input"), B("bias"), B("gamma"), B("beta"), F(1e-6), S32(LN)], ["out"],
  "HeCBench generalAddBiasResidualPostLayerNorm<float> (FasterTransformer): out = LN(out + input + bias), "
  "4096 rows of 1024",
  family="HeCBench/layernorm", source=HB + "addBiasResidualLayerNorm-cuda/main.cu",
  size="m = 4096, n = 1024 (its main sweeps n = 256..8192)", prio=1, tags=("rownorm", "fp32.sfu"))

# RAFT's column standard deviation (HeCBench stddev): sopKernel sums squares per
# column with shared and global float atomics. Its test: D = 65536 cols, N = 16384 rows (4 GiB).
SD, SNR = 8192, 4096
P("hec_stddev_sop_4096x8192", "hec_stddev", "sopKernel", [cdiv(SNR, 32), SD // 32], [256],
  [zeros("std", "f32", SD), rand("data", "f32", SD * SNR, 4701, 0, 1)],
  [B("std"), B("data"), S32(SD), S32(SNR)], ["std"],
  "HeCBench sopKernel<float,int,256,32> (RAFT): column sums of squares, 4096 rows x 8192 columns, "
  "shared then global float atomicAdd",
  family="HeCBench/stddev", source=HB + "stddev-cuda/main.cu",
  size="N = 4096 rows, D = 8192 columns (its test: 16384 x 65536)", prio=2,
  tags=("column_stats", "atomics.float"), tolerance={"rel": 1e-4},
  note="float atomicAdd from 128 blocks per column: the sums depend on block order; compared with a "
       "relative tolerance of 1e-4 (a sum of 4096 positive squares in any order differs by far less)")

# ===========================================================================
# N-body (HeCBench nbody-cuda, Intel's oneAPI sample): struct Particle
# {pos[3], vel[3], acc[3], mass} = 10 floats; its test runs 20000 particles.
NB = 8192
P("hec_nbody_accel_8192", "hec_nbody", "accelerate_particles", [cdiv(NB, 256)], [256],
  [rand("p", "f32", NB * 10, 4750, 0, 1)], [B("p"), S32(NB), F(1e-3), F(6.67259e-11)], ["p"],
  "HeCBench accelerate_particles: all-pairs gravity, a thread per particle looping over all 8192 "
  "(every lane loads the same particle), rsqrtf",
  family="HeCBench/nbody", source=HB + "nbody-cuda/GSimulationKernels.hpp",
  size="8192 particles (its test: 20000)", prio=1, tags=("nbody", "fp32.sfu", "mem.broadcast"),
  note="particles are 10 uniform [0,1) floats each (the sample draws positions, velocities and masses "
       "from its own ranges)")

# ===========================================================================
# Stencils (HeCBench)
S1 = 1 << 24
P("hec_stencil1d_16M", "hec_stencil1d", "stencil_1d", [S1 // 256], [256],
  [iota("in", "s32", S1 + 7), zeros("out", "s32", S1)], [B("in"), B("out")], ["out"],
  "HeCBench stencil_1d: radius-7 sum through a shared tile with halo, 16M ints",
  family="HeCBench/stencil1d", source=HB + "stencil1d-cuda/stencil_1d.cu",
  size="length 16M (its Makefile: 128M)", prio=2, tags=("stencil", "mem.shared"))
S3 = 128
_s3b = cdiv(S3 - 2, 20), cdiv(S3 - 2, 14), cdiv(S3 - 2, 14)
P("hec_stencil3d_128", "hec_stencil3d", "stencil3d", list(_s3b), [16, 16],
  [rand("d_psi", "f64", S3 ** 3, 4801, 0, 19), zeros("d_npsi", "f64", S3 ** 3),
   rand("d_sigmaX", "f64", 3 * S3 ** 3, 4802, 0, 19), rand("d_sigmaY", "f64", 3 * S3 ** 3, 4803, 0, 19),
   rand("d_sigmaZ", "f64", 3 * S3 ** 3, 4804, 0, 19)],
  [B("d_psi"), B("d_npsi"), B("d_sigmaX"), B("d_sigmaY"), B("d_sigmaZ"), S32(S3), S32(S3), S32(S3)],
  ["d_npsi"],
  "HeCBench stencil3d (LLNL): variable-coefficient 3D stencil in doubles, planes in shared memory, 128^3",
  family="HeCBench/stencil3d", source=HB + "stencil3d-cuda/main.cu",
  size="128^3 doubles (its Makefile: 512^3)", prio=1, tags=("stencil", "fp64", "mem.shared"),
  note="its main passes one sigma allocation at offsets 0, 3*vol and 6*vol; here three buffers of 3*vol")

# ===========================================================================
# ML elementwise (HeCBench)
P("hec_adam_10000x200", "hec_adam", "adam", [cdiv(10000, 256)], [256],
  [rand("p", "f32", 10000, 4901, 0, 1), rand("m", "f32", 10000, 4902, 0, 1),
   rand("v", "f32", 10000, 4903, 0, 1), rand("g", "f32", 10000, 4904, 0, 1)],
  [B("p"), B("m"), B("v"), B("g"), F(0.9), F(0.999), F(1e-8), F(256.0), F(1e-3), S32(200), U64(10000),
   S32(0), F(0.5)], ["p", "m", "v"],
  "HeCBench adam<float,float> (ColossalAI): 200 Adam steps per element in a loop, 10000 parameters",
  family="HeCBench/adam", source=HB + "adam-cuda/main.cu",
  size="vector_size 10000, time_step 200 (its test)", prio=2, tags=("optimizer", "fp32.sfu"),
  size_class="tiny (< 1 MiB)")
GB_, GS, GH = 4, 8192, 512
P("hec_gelu_4x8192x512", "hec_gelu", "gelu_bias_loop", [GS, GB_], [128],
  [rand("src", "f16", GB_ * GS * GH, 5001, -4, 4), rand("bias", "f16", GH, 5002, -1, 1)],
  [B("src"), B("bias"), S32(GH), S32(GS)], ["src"],
  "HeCBench gelu_bias_loop (FasterTransformer): half2 bias add and tanh GELU in place, 4 x 8192 x 512",
  family="HeCBench/gelu", source=HB + "gelu-cuda/main.cu",
  size="batch 4, seq 8192, hidden 512 (its test: batch 512)", prio=2, tags=("elementwise", "fp16", "fp32.sfu"))

# ===========================================================================
# Priority order (stable within a priority): Nsight Compute profiles in this order.
CASES.sort(key=lambda c: (c.prio, c.order))
for _a, _b in PAIRS.values():
    assert any(c.name == _a for c in CASES) and any(c.name == _b for c in CASES), (_a, _b)
