"""The tensor corpus case list (testdata/tensor, issue 24 item 9): one entry
per kernel launch of kernels/tensor.cu.

Each kernel has a small launch (run by `go test`, bit-exact against the GPU
at -O3 and -G) and a large one (suffix _big: sized for the cycle model's
validation, 30,000+ GPU cycles at -O3; `go test` skips it unless asked, as
the application corpus does). Inputs are "fill" rules (splitmix64,
runspec.fill_array) so the repository holds no large files; outputs over
256 KiB are recorded as SHA-256 digests.
"""

from __future__ import annotations

from cases import B, Buf, Case, F32, U32  # noqa: F401
import numpy as np

CASES: list = []
TARGET_MODULES: list = []
TARGET_ARCHS: list = []
BIG = set()


def add(case, big=False):
    if any(c.name == case.name for c in CASES):
        raise ValueError(f"duplicate case {case.name}")
    case.issue = 24
    CASES.append(case)
    if big:
        BIG.add(case.name)
    return case


def fill_rand(name, type, count, seed, lo, hi):
    return Buf(name, type, count, fill={"kind": "rand", "seed": seed, "lo": lo, "hi": hi})


def C(name, kernel, grid, block, buffers, args, outputs, desc, families, big=False, **kw):
    return add(Case(name, "tensor", kernel, grid, block, buffers, args, outputs, desc, families, **kw), big=big)


def F(v):
    return F32(float(np.float32(v)))


def matmul(name, kernel, n, tile, in_type, seed, desc, fams, big=False):
    C(name, kernel, [n // tile, n // tile], [128],
      [Buf("C", "f32", n * n), fill_rand("A", in_type, n * n, seed, -1, 1),
       fill_rand("B", in_type, n * n, seed + 1, -1, 1)],
      [B("C"), B("A"), B("B"), U32(n)], ["C"], desc, fams, big=big)


for n, big in ((128, False), (1024, True)):
    sfx = "_big" if big else ""
    matmul(f"matmul_wmma{sfx}", "matmul_wmma", n, 64, "f16", 24001,
           f"wmma m16n16k16 f16->f32, {n}x{n}, fragments loaded from global memory, 2x2 per warp",
           ["tensor.wmma", "matmul"], big)
    matmul(f"matmul_wmma_shared{sfx}", "matmul_wmma_shared", n, 64, "f16", 24003,
           f"wmma m16n16k16 f16->f32, {n}x{n}, 64x32/32x64 tiles staged in padded shared memory",
           ["tensor.wmma", "mem.shared", "matmul"], big)
    matmul(f"matmul_wmma_tf32{sfx}", "matmul_wmma_tf32", n, 32, "f32", 24005,
           f"wmma m16n16k8 tf32->f32, {n}x{n}, __float_to_tf32 on each fragment element",
           ["tensor.wmma.tf32", "matmul"], big)
    matmul(f"matmul_mma_cpasync{sfx}", "matmul_mma_cpasync", n, 64, "f16", 24007,
           f"mma.sync m16n8k16 f16->f32 with ldmatrix(.trans) from a cp.async.cg double buffer, {n}x{n}",
           ["tensor.mma", "async.cp_async", "ldmatrix", "matmul"], big)

for n, grid, big in ((256 * 64, 16, False), (1 << 22, 264, True)):
    sfx = "_big" if big else ""
    C(f"pipeline_block{sfx}", "pipeline_block", [grid], [256],
      [Buf("y", "f32", n), fill_rand("x", "f32", n, 24011, -4, 4)],
      [B("y"), B("x"), U32(n), F(1.5)], ["y"],
      f"cuda::pipeline (block scope, 2 stages) staging 256-float tiles with cuda::memcpy_async, n={n}",
      ["async.pipeline", "mem.shared"], big)
    C(f"pipeline_prims{sfx}", "pipeline_prims", [grid], [256],
      [Buf("y", "f32", n // 4), fill_rand("x", "f32", n, 24013, -4, 4)],
      [B("y"), B("x"), U32(n // 4)], ["y"],
      f"__pipeline_memcpy_async/__pipeline_commit/__pipeline_wait_prior double buffer of float4, n={n}",
      ["async.cp_async"], big)
    C(f"barrier_copy{sfx}", "barrier_copy", [grid], [256],
      [Buf("y", "f32", n), fill_rand("x", "f32", n, 24015, -4, 4)],
      [B("y"), B("x"), U32(n)], ["y"],
      f"cuda::memcpy_async of 4 KiB tiles completing on a cuda::barrier, n={n}",
      ["async.barrier", "mbarrier"], big)
    C(f"cluster_reduce{sfx}", "cluster_reduce", [grid // 8 * 4 if big else 16], [256],
      [Buf("out", "f32", (grid // 8 if big else 4)), fill_rand("x", "f32", n, 24017, -1, 1)],
      [B("out"), B("x"), U32(n)], ["out"],
      f"sum over clusters of 4 blocks, block sums read through distributed shared memory, n={n}",
      ["cluster.dsmem", "cta.reduce"], big)

# A device-side assert (kernels/assert.cu): holds, then fails.
for name, lo in (("assert_holds", -1.0), ("assert_fails", -0.5)):
    add(Case(name, "assert", "assert_range", [4], [256],
             [Buf("y", "f32", 1000), fill_rand("x", "f32", 1000, 24019, -1, 1)],
             [B("y"), B("x"), U32(1000), F(lo)], ["y"],
             f"assert(x[i] >= {lo}) on x in [-1, 1): " + ("every thread passes" if lo == -1.0 else "some threads fail"),
             ["assert"]))
