"""The second tensor corpus's case list (testdata/tensor2, issue 24): one
entry per launch of kernels/tensor2.cu, kernels written after the cycle
model was tuned on testdata/tensor, to be held out of it.

Each kernel has a small launch (run by `go test`, bit-exact against the GPU
at -O3 and -G) and a large one (suffix _big, 30,000+ GPU cycles at -O3, for
the cycle model's validation; `go test` skips it unless asked). Inputs are
"fill" rules; outputs over 256 KiB are recorded as SHA-256 digests.
"""

from __future__ import annotations

from cases import B, Buf, Case, F32, U32  # noqa: F401

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


def rnd(name, type, count, seed, lo, hi):
    return Buf(name, type, count, fill={"kind": "rand", "seed": seed, "lo": lo, "hi": hi})


def C(name, kernel, grid, block, buffers, args, outputs, desc, families, big=False):
    return add(Case(name, "tensor2", kernel, grid, block, buffers, args, outputs, desc, families), big=big)


for sfx, big in (("", False), ("_big", True)):
    n = 1024 if big else 128
    C(f"matmul_wmma_bf16{sfx}", "matmul_wmma_bf16", [n // 64, n // 128], [256],
      [Buf("C", "f32", n * n), rnd("A", "f32", n * n, 25001, -1, 1), rnd("B", "f32", n * n, 25002, -1, 1)],
      [B("C"), B("A"), B("B"), U32(n)], ["C"],
      f"wmma bf16 {n}x{n} from f32 matrices rounded as they are staged, 128x64 tiles, a register prefetch", ["tensor.wmma.bf16", "matmul"], big)
    n = 1024 if big else 64
    C(f"matmul_wmma_s8{sfx}", "matmul_wmma_s8", [n // 32, n // 32], [128],
      [Buf("C", "s32", n * n), rnd("A", "s8", n * n, 25003, -128, 127), rnd("Bt", "s8", n * n, 25004, -128, 127)],
      [B("C"), B("A"), B("Bt"), U32(n)], ["C"],
      f"wmma s8 -> s32 {n}x{n}, B column-major, fragments from global", ["tensor.wmma.s8", "matmul"], big)
    nb = 32768 if big else 64
    C(f"batched_wmma16{sfx}", "batched_wmma16", [nb // 8], [256],
      [Buf("C", "f16", nb * 256), rnd("A", "f16", nb * 256, 25005, -1, 1), rnd("B", "f16", nb * 256, 25006, -1, 1)],
      [B("C"), B("A"), B("B"), U32(nb)], ["C"],
      f"{nb} independent 16x16x16 f16 products, one warp each, f16 accumulators", ["tensor.wmma", "batched"], big)
    m, k = (4096, 4096) if big else (128, 256)
    C(f"gemv_mma_tf32{sfx}", "gemv_mma_tf32", [m // 64], [128],
      [Buf("y", "f32", m), rnd("A", "f32", m * k, 25007, -1, 1), rnd("x", "f32", k, 25008, -1, 1)],
      [B("y"), B("A"), B("x"), U32(m), U32(k)], ["y"],
      f"y = A x, {m}x{k}, mma.sync m16n8k8 tf32, x staged by cp.async", ["tensor.mma.tf32", "async.cp_async", "gemv"], big)
    w, h, tiles = (2048, 2048, 8) if big else (64, 64, 2)
    C(f"stencil_cpasync{sfx}", "stencil_cpasync", [w // 32, h // (8 * tiles)], [32, 8],
      [Buf("out", "f32", w * h), rnd("in", "f32", w * h, 25009, -1, 1)],
      [B("out"), B("in"), U32(w), U32(h), U32(tiles)], ["out"],
      f"5-point stencil {w}x{h}, tiles and halos staged by 4-byte __pipeline_memcpy_async, two stages",
      ["async.cp_async", "stencil"], big)
    n = 1024 if big else 128
    C(f"matmul_pipeline3{sfx}", "matmul_pipeline3", [n // 64, n // 64], [128],
      [Buf("C", "f32", n * n), rnd("A", "f16", n * n, 25010, -1, 1), rnd("B", "f16", n * n, 25011, -1, 1)],
      [B("C"), B("A"), B("B"), U32(n)], ["C"],
      f"wmma f16 {n}x{n} with a three-stage cuda::pipeline of cuda::memcpy_async", ["tensor.wmma", "async.pipeline", "matmul"], big)
