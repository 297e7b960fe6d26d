"""The application corpus case list: one entry per kernel launch.

Kernels in the styles of Rodinia, Parboil, PolyBench and SHOC and of ML
training code (kernels/*.cu, written here). Each case is built at four
variants (see gen.py). Small inputs are files (numpy's legacy RandomState
with fixed seeds); inputs over a few KiB, and every input of the
calibration-sized launches, are "fill" rules (splitmix64, runspec.fill_array)
so the repository holds no large files; outputs over 256 KiB are recorded as
SHA-256 digests (expected/<name>.sha256).

issue = 7 for every case. `big` marks the launches sized to run 30,000+ GPU
cycles at -O3 (the hierarchy and timing models calibrate on them).
"""

from __future__ import annotations

import numpy as np

from cases import (B, Buf, Case, F32, S32, U32, cdiv, rs, uniform_f32, uniform_f64,  # noqa: F401
                   F64)
import runspec

CASES: list = []
TARGET_MODULES: list = []      # no parse-only PTX for other targets
TARGET_ARCHS: list = []
BIG = set()                    # names of the calibration-sized launches


def add(case, big=False):
    if any(c.name == case.name for c in CASES):
        raise ValueError(f"duplicate case {case.name}")
    case.issue = 7
    CASES.append(case)
    if big:
        BIG.add(case.name)
    return case


def F(v):
    """An f32 argument: v rounded to f32 (the kernel sees exactly this)."""
    return F32(float(np.float32(v)))


def fill_rand(name, type, count, seed, lo=None, hi=None):
    f = {"kind": "rand", "seed": seed}
    if lo is not None:
        f["lo"] = lo
    if hi is not None:
        f["hi"] = hi
    return Buf(name, type, count, fill=f)


def fill_iota(name, type, count, start=0, step=1):
    return Buf(name, type, count, fill={"kind": "iota", "start": start, "step": step})


def filled(type, count, seed, lo=None, hi=None):
    """The host view of a rand fill (what the runner will generate)."""
    f = {"kind": "rand", "seed": seed}
    if lo is not None:
        f["lo"] = lo
    if hi is not None:
        f["hi"] = hi
    return runspec.fill_array(f, type, count)


def C(name, module, kernel, grid, block, buffers, args, outputs, desc, families, **kw):
    big = kw.pop("big", False)
    return add(Case(name, module, kernel, grid, block, buffers, args, outputs, desc, families, **kw),
               big=big)


def diag_dominant(n, cols, seed, dtype="<f4"):
    a = rs(seed).uniform(-1, 1, (n, cols))
    for i in range(n):
        a[i, i] = n + abs(a[i, i])
    return a.astype(dtype).ravel()


# ---------------------------------------------------------------------------
# stencil.cu

C("jacobi2d_small", "stencil", "jacobi2d", [4, 3], [16, 16],
  [Buf("out", "f32", 64 * 48), Buf("in", "f32", data=uniform_f32(64 * 48, -1, 1, 7001))],
  [B("out"), B("in"), U32(64), U32(48), F(0.6), F(0.1)], ["out"],
  "2D 5-point Jacobi step, 64x48, c0*x + c1*(sum of neighbours)", ["stencil", "fp32.contract"])
C("jacobi2d_big", "stencil", "jacobi2d", [128, 128], [16, 16],
  [Buf("out", "f32", 2048 * 2048), fill_rand("in", "f32", 2048 * 2048, 7002, -1, 1)],
  [B("out"), B("in"), U32(2048), U32(2048), F(0.6), F(0.1)], ["out"],
  "2D 5-point Jacobi step, 2048x2048 (16 MiB in, 16 MiB out): DRAM-bound calibration launch",
  ["stencil", "fp32.contract", "mem.dram"], big=True)
C("jacobi3d", "stencil", "jacobi3d", [2, 1], [16, 16],
  [Buf("out", "f32", 32 * 16 * 8), Buf("in", "f32", data=uniform_f32(32 * 16 * 8, -1, 1, 7003))],
  [B("out"), B("in"), U32(32), U32(16), U32(8), F(0.4), F(0.1)], ["out"],
  "3D 7-point Jacobi, 32x16x8, planes in registers while walking z", ["stencil", "fp32.contract"])
C("hotspot", "stencil", "hotspot", [8, 8], [16, 16],
  [Buf("tout", "f32", 64 * 64), Buf("power", "f32", data=uniform_f32(64 * 64, 0, 2, 7004)),
   Buf("tin", "f32", data=uniform_f32(64 * 64, 60, 100, 7005))],
  [B("tout"), B("power"), B("tin"), S32(64), S32(64), S32(4), F(0.1), F(0.5), F(0.5), F(0.01),
   F(80.0)], ["tout"],
  "Rodinia-style hotspot, 64x64, 4 time steps per launch on shrinking 16x16 tiles (pyramid)",
  ["stencil", "mem.shared", "cta.bar", "fp32.contract"])
C("heat1d_block", "stencil", "heat1d_block", [1], [256],
  [Buf("out", "f32", 2048), Buf("in", "f32", data=uniform_f32(2048, 0, 100, 7006))],
  [B("out"), B("in"), U32(2048), U32(600), F(0.3)], ["out"],
  "1D heat equation, 600 explicit time steps in one block, rod in dynamic shared memory",
  ["stencil", "mem.shared.dynamic", "cta.bar", "fp32.contract"], dyn_smem=2 * 2048 * 4, big=True)
C("stencil2d_shared", "stencil", "stencil2d_shared", [4, 4], [16, 16],
  [Buf("out", "f32", 64 * 64), Buf("in", "f32", data=uniform_f32(64 * 64, -1, 1, 7007))],
  [B("out"), B("in"), S32(64), S32(64), F(0.5), F(0.1), F(0.025)], ["out"],
  "radius-2 cross stencil through a 20x20 shared tile with halo", ["stencil", "mem.shared", "cta.bar"])
C("conv2d_const", "stencil", "conv2d_const", [4, 4], [16, 16],
  [Buf("out", "f32", 64 * 64), Buf("in", "f32", data=uniform_f32(64 * 64, -1, 1, 7008))],
  [B("out"), B("in"), S32(64), S32(64)], ["out"],
  "5x5 convolution, filter in __constant__ memory, clamped borders",
  ["conv", "mem.const", "fp32.fma"],
  symbols=[Buf("c_filter", "f32", data=uniform_f32(25, -0.3, 0.3, 7009))])
C("conv1d_f16", "stencil", "conv1d_f16", [32], [128],
  [Buf("out", "f16", 4096), Buf("in", "f16", data=uniform_f32(4096, -2, 2, 7010).astype("<f2")),
   Buf("w", "f16", data=uniform_f32(7, -0.5, 0.5, 7011).astype("<f2"))],
  [B("out"), B("in"), B("w"), U32(4096)], ["out"],
  "7-tap 1D convolution in half precision (__half operators)", ["conv", "fp16", "fp16.contract"])

# ---------------------------------------------------------------------------
# dp.cu

C("nw_block", "dp", "nw_block", [1], [256],
  [Buf("score", "s32", 513 * 513), fill_rand("ref", "s32", 512 * 512, 7101, -4, 10)],
  [B("score"), B("ref"), S32(512), S32(10)], ["score"],
  "Needleman-Wunsch 512x512 in one block: tile anti-diagonals across warps, cell "
  "anti-diagonals inside a 32x32 shared tile with __syncwarp",
  ["dp.wavefront", "mem.shared", "warp.sync", "cta.bar"], big=True)
C("nw_tile_diag", "dp", "nw_tile_diag", [4], [16],
  [fill_rand("score", "s32", 65 * 65, 7102, -200, 200), fill_rand("ref", "s32", 64 * 64, 7103, -4, 10)],
  [B("score"), B("ref"), S32(64), S32(10), S32(3)], ["score"],
  "Needleman-Wunsch, one launch per tile diagonal (Rodinia scheme): diagonal 3 of a 4x4 "
  "grid of 16x16 tiles", ["dp.wavefront", "mem.shared", "cta.bar"])
C("pathfinder_block", "dp", "pathfinder_block", [1], [256],
  [Buf("result", "s32", 1024), fill_rand("wall", "s32", 400 * 1024, 7104, 0, 9)],
  [B("result"), B("wall"), S32(1024), S32(400)], ["result"],
  "Rodinia pathfinder: min-cost path DP over 400 rows of 1024 in one block",
  ["dp", "mem.shared.dynamic", "cta.bar"], dyn_smem=2 * 1024 * 4, big=True)
_d = rs(7105).randint(1, 1000, size=(64, 64)).astype("<u4")
_d[rs(7106).uniform(size=(64, 64)) < 0.3] = 1000000        # missing edges
np.fill_diagonal(_d, 0)
C("floyd_block", "dp", "floyd_block", [1], [256],
  [Buf("dist", "u32", data=_d.ravel())], [B("dist"), S32(64)], ["dist"],
  "Floyd-Warshall 64x64 in shared memory, one block, a barrier pair per k",
  ["dp", "mem.shared", "mem.local", "cta.bar"])

# ---------------------------------------------------------------------------
# linalg.cu

_a = diag_dominant(64, 64, 7201)
C("lu_scale", "linalg", "lu_scale", [1], [64],
  [Buf("a", "f32", data=_a)], [B("a"), U32(64), U32(5)], ["a"],
  "LU step k=5, part 1: multipliers a[i][k] /= a[k][k]", ["linalg.lu", "fp32.div"])
C("lu_update", "linalg", "lu_update", [4, 4], [16, 16],
  [Buf("a", "f32", data=_a)], [B("a"), U32(64), U32(5)], ["a"],
  "LU step k=5, part 2: a[i][j] -= a[i][k] * a[k][j] (mul + sub that ptxas may contract)",
  ["linalg.lu", "fp32.contract"])
C("lu_block", "linalg", "lu_block", [1], [256],
  [Buf("a", "f32", data=diag_dominant(80, 80, 7202))], [B("a"), U32(80)], ["a"],
  "whole LU decomposition of 80x80 (no pivoting) in one block, in global memory",
  ["linalg.lu", "fp32.contract", "cta.bar"], big=True)
_m = np.zeros((64, 64), dtype="<f4")
_m[:, 3] = uniform_f32(64, -0.2, 0.2, 7203)
C("gauss_fan1", "linalg", "gauss_fan1", [1], [64],
  [Buf("m", "f32", 64 * 64), Buf("a", "f32", data=diag_dominant(64, 64, 7204))],
  [B("m"), B("a"), U32(64), U32(3)], ["m"],
  "Rodinia gaussian Fan1, t=3: multipliers of column t", ["linalg.gauss", "fp32.div"])
C("gauss_fan2", "linalg", "gauss_fan2", [4, 4], [16, 16],
  [Buf("a", "f32", data=diag_dominant(64, 64, 7205)), Buf("b", "f32", data=uniform_f32(64, -1, 1, 7206)),
   Buf("m", "f32", data=_m.ravel())],
  [B("a"), B("b"), B("m"), U32(64), U32(3)], ["a", "b"],
  "Rodinia gaussian Fan2, t=3: a[i][j] -= m[i] * a[t][j], b[i] -= m[i] * b[t]",
  ["linalg.gauss", "fp32.contract"])
_ab = diag_dominant(80, 81, 7207, dtype="<f8")
C("gauss_block_f64", "linalg", "gauss_block_f64", [1], [256],
  [Buf("x", "f64", 80), Buf("a", "f64", data=_ab)], [B("x"), B("a"), U32(80)], ["x"],
  "Gaussian elimination and back substitution of an 80x81 augmented system in f64, one block",
  ["linalg.gauss", "fp64.contract", "fp64.div", "cta.reduce"], big=True)
C("gemm", "linalg", "gemm", [4, 4], [16, 16],
  [Buf("C", "f32", data=uniform_f32(64 * 64, -1, 1, 7208)), Buf("A", "f32", data=uniform_f32(64 * 64, -1, 1, 7209)),
   Buf("B", "f32", data=uniform_f32(64 * 64, -1, 1, 7210))],
  [B("C"), B("A"), B("B"), U32(64), F(1.5), F(-0.75)], ["C"],
  "PolyBench gemm C = alpha A B + beta C, 64x64, 16x16 shared tiles",
  ["linalg.gemm", "mem.shared", "fp32.contract"])
C("atax_k1", "linalg", "atax_k1", [1], [128],
  [Buf("tmp", "f32", 128), fill_rand("A", "f32", 128 * 128, 7211, -1, 1), fill_rand("x", "f32", 128, 7212, -1, 1)],
  [B("tmp"), B("A"), B("x"), U32(128), U32(128)], ["tmp"],
  "PolyBench atax kernel 1: tmp = A x, a row per thread (strided rows)", ["linalg.gemv", "fp32.fma"])
C("atax_k2", "linalg", "atax_k2", [1], [128],
  [Buf("y", "f32", 128), fill_rand("A", "f32", 128 * 128, 7211, -1, 1), fill_rand("tmp", "f32", 128, 7213, -4, 4)],
  [B("y"), B("A"), B("tmp"), U32(128), U32(128)], ["y"],
  "PolyBench atax kernel 2: y = A^T tmp, a column per thread (coalesced)", ["linalg.gemv", "fp32.fma"])
_len = rs(7214).randint(0, 17, size=2048)
_rp = np.concatenate([[0], np.cumsum(_len)]).astype("<u4")
C("spmv_csr", "linalg", "spmv_csr", [16], [128],
  [Buf("y", "f32", 2048), Buf("rowptr", "u32", data=_rp), fill_rand("col", "u32", int(_rp[-1]), 7215, 0, 2047),
   fill_rand("val", "f32", int(_rp[-1]), 7216, -1, 1), fill_rand("x", "f32", 2048, 7217, -1, 1)],
  [B("y"), B("rowptr"), B("col"), B("val"), B("x"), U32(2048)], ["y"],
  "CSR SpMV, scalar kernel (a row per thread), 2048 rows of 0-16 entries",
  ["sparse.spmv", "mem.global.gather", "fp32.fma"])
_rows = 1 << 18
C("spmv_csr_big", "linalg", "spmv_csr", [_rows // 128], [128],
  [Buf("y", "f32", _rows), fill_iota("rowptr", "u32", _rows + 1, 0, 24),
   fill_rand("col", "u32", 24 * _rows, 7218, 0, _rows - 1), fill_rand("val", "f32", 24 * _rows, 7219, -1, 1),
   fill_rand("x", "f32", _rows, 7220, -1, 1)],
  [B("y"), B("rowptr"), B("col"), B("val"), B("x"), U32(_rows)], ["y"],
  "CSR SpMV, scalar kernel, 262144 rows x 24 random columns (50 MiB of matrix): calibration launch",
  ["sparse.spmv", "mem.global.gather", "mem.dram"], big=True)
_len = rs(7221).randint(0, 101, size=512)
_rp = np.concatenate([[0], np.cumsum(_len)]).astype("<u4")
C("spmv_csr_vector", "linalg", "spmv_csr_vector", [128], [128],
  [Buf("y", "f32", 512), Buf("rowptr", "u32", data=_rp), fill_rand("col", "u32", int(_rp[-1]), 7222, 0, 511),
   fill_rand("val", "f32", int(_rp[-1]), 7223, -1, 1), fill_rand("x", "f32", 512, 7224, -1, 1)],
  [B("y"), B("rowptr"), B("col"), B("val"), B("x"), U32(512)], ["y"],
  "CSR SpMV, vector kernel (a warp per row, shuffle-down tree), 512 rows of 0-100 entries",
  ["sparse.spmv", "warp.shfl", "fp32.fma"])
C("cg_update_f64", "linalg", "cg_update_f64", [4], [256],
  [fill_rand("x", "f64", 1024, 7225, -1, 1), fill_rand("r", "f64", 1024, 7226, -1, 1), Buf("rr", "f64", 4),
   fill_rand("p", "f64", 1024, 7227, -1, 1), fill_rand("Ap", "f64", 1024, 7228, -2, 2)],
  [B("x"), B("r"), B("rr"), B("p"), B("Ap"), U32(1024), F64(0.3)], ["x", "r", "rr"],
  "conjugate-gradient vector update in f64 with a per-block r.r tree",
  ["fp64.contract", "cta.reduce"])

# ---------------------------------------------------------------------------
# graph.cu

_n = 4096
_rp = np.arange(0, 6 * _n + 1, 6, dtype=np.uint64).astype("<u4")
_col = filled("u32", 6 * _n, 7301, 0, _n - 1)
# The BFS state after two levels from node 0 (computed here like the GPU
# would): visited, cost, the level-2 frontier (mask).
_cost = np.full(_n, -1, dtype="<i4")
_cost[0] = 0
_front = [0]
for _lvl in range(2):
    _nxt = []
    for _v in _front:
        for _w in _col[_rp[_v]:_rp[_v + 1]]:
            if _cost[_w] < 0:
                _cost[_w] = _lvl + 1
                _nxt.append(int(_w))
    _front = sorted(set(_nxt))
_mask = np.zeros(_n, dtype="<u1")
_mask[_front] = 1
_visited = (_cost >= 0).astype("<u1")
C("bfs_expand", "graph", "bfs_expand", [32], [128],
  [Buf("cost", "s32", data=_cost), Buf("mask", "u8", data=_mask), Buf("updating", "u8", _n),
   Buf("visited", "u8", data=_visited), fill_iota("rowptr", "u32", _n + 1, 0, 6),
   fill_rand("col", "u32", 6 * _n, 7301, 0, _n - 1)],
  [B("cost"), B("mask"), B("updating"), B("visited"), B("rowptr"), B("col"), U32(_n)],
  ["cost", "mask", "updating"],
  "Rodinia BFS kernel 1 (frontier expansion), level 2 of a 4096-node out-degree-6 graph",
  ["graph.bfs", "mem.global.gather", "ctrl.divergence"])
_upd = np.zeros(_n, dtype="<u1")
for _v in _front:
    for _w in _col[_rp[_v]:_rp[_v + 1]]:
        if not _visited[_w]:
            _upd[_w] = 1
C("bfs_update", "graph", "bfs_update", [32], [128],
  [Buf("mask", "u8", _n), Buf("updating", "u8", data=_upd), Buf("visited", "u8", data=_visited),
   Buf("over", "u32", 1)],
  [B("mask"), B("updating"), B("visited"), B("over"), U32(_n)], ["mask", "updating", "visited", "over"],
  "Rodinia BFS kernel 2 (next frontier), after level 2", ["graph.bfs", "atom.global"])
_nb = 1 << 17
C("bfs_block", "graph", "bfs_block", [1], [1024],
  [Buf("cost", "s32", _nb), fill_iota("rowptr", "u32", _nb + 1, 0, 8), fill_rand("col", "u32", 8 * _nb, 7302, 0, _nb - 1)],
  [B("cost"), B("rowptr"), B("col"), U32(_nb), U32(0)], ["cost"],
  "whole level-synchronous BFS of a 131072-node out-degree-8 random graph in one block "
  "(atomicCAS claims, __syncthreads_or)", ["graph.bfs", "atom.cas", "cta.bar.red"], big=True)
_m = 32768
_esrc = filled("u32", _m, 7303, 0, _n - 1)
_edst = filled("u32", _m, 7304, 0, _n - 1)
_w = filled("s32", _m, 7305, 1, 100)
_dist = np.full(_n, 0x3fffffff, dtype=np.int64)
_dist[0] = 0
for _sweep in range(2):
    _new = _dist.copy()
    ok = _dist[_esrc] < 0x3fffffff
    np.minimum.at(_new, _edst[ok], _dist[_esrc[ok]] + _w[ok])
    _dist = _new
_dist = _dist.astype("<i4")
C("sssp_relax", "graph", "sssp_relax", [_m // 128], [128],
  [Buf("dout", "s32", data=_dist), Buf("din", "s32", data=_dist), fill_rand("esrc", "u32", _m, 7303, 0, _n - 1),
   fill_rand("edst", "u32", _m, 7304, 0, _n - 1), fill_rand("w", "s32", _m, 7305, 1, 100)],
  [B("dout"), B("din"), B("esrc"), B("edst"), B("w"), U32(_m)], ["dout"],
  "Bellman-Ford relaxation sweep 3 over 32768 edges, atomicMin into a separate output",
  ["graph.sssp", "atom.min"])
_src = filled("u32", 8 * _n, 7306, 0, _n - 1)
_deg = np.bincount(_src, minlength=_n).astype(np.float64)
_inv = np.where(_deg > 0, 1.0 / np.maximum(_deg, 1), 0.0).astype("<f4")
C("pagerank_pull", "graph", "pagerank_pull", [32], [128],
  [Buf("rout", "f32", _n), fill_rand("rin", "f32", _n, 7307, 0, 0.0005), fill_iota("rowptr", "u32", _n + 1, 0, 8),
   fill_rand("src", "u32", 8 * _n, 7306, 0, _n - 1), Buf("inv_outdeg", "f32", data=_inv)],
  [B("rout"), B("rin"), B("rowptr"), B("src"), B("inv_outdeg"), U32(_n), F(0.85), F(0.15 / _n)], ["rout"],
  "PageRank pull iteration over in-edges (4096 nodes, in-degree 8)",
  ["graph.pagerank", "mem.global.gather", "fp32.fma"])

# ---------------------------------------------------------------------------
# ml.cu

C("kmeans_assign", "ml", "kmeans_assign", [16], [128],
  [Buf("member", "u32", 2048), fill_rand("pts", "f32", 2048 * 16, 7401, -1, 1),
   fill_rand("cent", "f32", 8 * 16, 7402, -1, 1)],
  [B("member"), B("pts"), B("cent"), U32(2048), U32(8), U32(16)], ["member"],
  "Rodinia k-means assignment: nearest of 8 centroids over 16 features, 2048 points",
  ["ml.kmeans", "fp32.contract"])
C("kmeans_update", "ml", "kmeans_update", [8], [128],
  [Buf("cent", "f32", 8 * 16), Buf("count", "u32", 8), fill_rand("pts", "f32", 2048 * 16, 7401, -1, 1),
   fill_rand("member", "u32", 2048, 7403, 0, 7)],
  [B("cent"), B("count"), B("pts"), B("member"), U32(2048), U32(16)], ["cent", "count"],
  "k-means update: a block per centroid, strided sums then a shared tree, mean",
  ["ml.kmeans", "cta.reduce", "fp32.div"])
C("backprop_forward", "ml", "backprop_forward", [4, 64], [16, 16],
  [Buf("partial", "f32", 64 * 64), fill_rand("x", "f32", 1024, 7404, 0, 1),
   fill_rand("w", "f32", 1024 * 64, 7405, -0.5, 0.5)],
  [B("partial"), B("x"), B("w"), U32(64)], ["partial"],
  "Rodinia backprop layerforward: 16x16 blocks, products reduced over inputs in shared memory",
  ["ml.backprop", "cta.reduce", "mem.shared"])
C("backprop_sum", "ml", "backprop_sum", [1], [64],
  [Buf("hidden", "f32", 64), fill_rand("partial", "f32", 64 * 64, 7406, -0.2, 0.2)],
  [B("hidden"), B("partial"), U32(64), U32(64)], ["hidden"],
  "backprop second stage: ordered sum of 64 partials and a sigmoid (expf)", ["ml.backprop", "sfu"])
C("backprop_adjust", "ml", "backprop_adjust", [1, 128], [32],
  [fill_rand("w", "f32", 128 * 32, 7407, -0.5, 0.5), fill_rand("oldw", "f32", 128 * 32, 7408, -0.05, 0.05),
   fill_rand("delta", "f32", 32, 7409, -0.1, 0.1), fill_rand("x", "f32", 128, 7410, 0, 1)],
  [B("w"), B("oldw"), B("delta"), B("x"), U32(128), U32(32), F(0.3), F(0.3)], ["w", "oldw"],
  "Rodinia bpnn_adjust_weights: dw = eta delta x + momentum oldw", ["ml.backprop", "fp32.contract"])
C("backprop_output_error", "ml", "backprop_output_error", [8], [128],
  [Buf("delta", "f32", 1024), fill_rand("o", "f32", 1024, 7411, 0, 1), fill_rand("t", "f32", 1024, 7412, 0, 1)],
  [B("delta"), B("o"), B("t"), U32(1024)], ["delta"],
  "backprop output error o (1 - o) (t - o)", ["ml.backprop", "fp32.contract"])
C("layernorm_warp", "ml", "layernorm_warp", [8], [128],
  [Buf("y", "f32", 32 * 128), fill_rand("x", "f32", 32 * 128, 7413, -3, 3),
   fill_rand("gamma", "f32", 128, 7414, 0.5, 1.5), fill_rand("beta", "f32", 128, 7415, -0.5, 0.5)],
  [B("y"), B("x"), B("gamma"), B("beta"), U32(32), U32(128), F(1e-5)], ["y"],
  "layer norm, a warp per row of 128, xor-shuffle mean and variance, rsqrtf",
  ["ml.norm", "warp.shfl", "sfu", "fp32.contract"])
C("layernorm_f16", "ml", "layernorm_f16", [8], [128],
  [Buf("y", "f16", 32 * 256), fill_rand("x", "f16", 32 * 256, 7416, -3, 3),
   fill_rand("gamma", "f16", 256, 7417, 0.5, 1.5), fill_rand("beta", "f16", 256, 7418, -0.5, 0.5)],
  [B("y"), B("x"), B("gamma"), B("beta"), U32(32), U32(256), F(1e-5)], ["y"],
  "layer norm with half input/output and float statistics (half mul + add at the end)",
  ["ml.norm", "fp16", "fp16.contract", "warp.shfl"])
C("softmax_block", "ml", "softmax_block", [16], [128],
  [Buf("y", "f32", 16 * 256), fill_rand("x", "f32", 16 * 256, 7419, -8, 8)],
  [B("y"), B("x"), U32(256)], ["y"],
  "softmax, a block per row of 256: shuffle + shared max and sum, expf",
  ["ml.softmax", "warp.shfl", "sfu", "cta.bar"])
C("gelu_tanh", "ml", "gelu_tanh", [16], [128],
  [Buf("y", "f32", 2048), fill_rand("x", "f32", 2048, 7420, -6, 6)], [B("y"), B("x"), U32(2048)], ["y"],
  "GELU, tanh approximation (tanhf)", ["ml.activation", "sfu", "fp32.contract"])
C("gelu_erf", "ml", "gelu_erf", [16], [128],
  [Buf("y", "f32", 2048), fill_rand("x", "f32", 2048, 7421, -6, 6)], [B("y"), B("x"), U32(2048)], ["y"],
  "GELU, erf form (erff)", ["ml.activation", "fp32.contract"])
C("gelu_f16x2", "ml", "gelu_f16x2", [16], [128],
  [Buf("y", "f16", 4096), fill_rand("x", "f16", 4096, 7422, -6, 6)], [B("y"), B("x"), U32(2048)], ["y"],
  "GELU on half2 pairs: polynomial in __half2 arithmetic (HFMA2 candidates), tanh in float",
  ["ml.activation", "fp16x2", "fp16.contract"])
_adam = [F(1e-3), F(0.9), F(0.999), F(1e-8), F(1.0 / (1.0 - 0.9 ** 10)), F(1.0 / (1.0 - 0.999 ** 10))]
C("adam_small", "ml", "adam_step", [8], [128],
  [fill_rand("p", "f32", 1024, 7423, -1, 1), fill_rand("m", "f32", 1024, 7424, -0.1, 0.1),
   fill_rand("v", "f32", 1024, 7425, 0, 0.01), fill_rand("g", "f32", 1024, 7426, -0.5, 0.5)],
  [B("p"), B("m"), B("v"), B("g"), U32(1024)] + _adam, ["p", "m", "v"],
  "Adam optimizer step, 1024 parameters", ["ml.optimizer", "fp32.sqrt", "fp32.div", "fp32.contract"])
_np = 1 << 21
C("adam_big", "ml", "adam_step", [_np // 128], [128],
  [fill_rand("p", "f32", _np, 7427, -1, 1), fill_rand("m", "f32", _np, 7428, -0.1, 0.1),
   fill_rand("v", "f32", _np, 7429, 0, 0.01), fill_rand("g", "f32", _np, 7430, -0.5, 0.5)],
  [B("p"), B("m"), B("v"), B("g"), U32(_np)] + _adam, ["p", "m", "v"],
  "Adam optimizer step over 2M parameters (56 MiB of traffic): DRAM-bound calibration launch",
  ["ml.optimizer", "mem.dram", "fp32.contract"], big=True)
C("cross_entropy_cg", "ml", "cross_entropy_cg", [8], [128],
  [Buf("loss", "f32", 32), Buf("grad", "f32", 32 * 128), fill_rand("z", "f32", 32 * 128, 7431, -5, 5),
   fill_rand("label", "u32", 32, 7432, 0, 127)],
  [B("loss"), B("grad"), B("z"), B("label"), U32(32), U32(128)], ["loss", "grad"],
  "softmax cross-entropy and its gradient, a cooperative-groups warp tile per row "
  "(cg::reduce, tile.shfl_xor, __expf/__logf)", ["ml.loss", "cg.tile", "warp.shfl", "sfu"])
C("conv2d_nchw", "ml", "conv2d_nchw", [1, 1, 8], [16, 16],
  [Buf("out", "f32", 8 * 16 * 16), fill_rand("in", "f32", 4 * 18 * 18, 7433, -1, 1),
   fill_rand("wt", "f32", 8 * 4 * 9, 7434, -0.3, 0.3), fill_rand("bias", "f32", 8, 7435, -0.1, 0.1)],
  [B("out"), B("in"), B("wt"), B("bias"), S32(4), S32(18), S32(18), S32(8)], ["out"],
  "direct 3x3 convolution layer, 4 -> 8 channels, 18x18, bias and ReLU",
  ["ml.conv", "fp32.fma", "grid.3d"])

# ---------------------------------------------------------------------------
# prims.cu

C("histogram256", "prims", "histogram256", [256], [256],
  [Buf("bins", "u32", 256), fill_rand("data", "u32", 1 << 20, 7501)],
  [B("bins"), B("data"), U32(1 << 20)], ["bins"],
  "256-bin histogram of 1M values: shared atomics per block, then global atomics",
  ["hist", "atom.shared", "atom.global", "ctrl.loop"])
C("scan_block", "prims", "scan_block", [4], [1024],
  [Buf("out", "u32", 4096), Buf("block_sums", "u32", 4), fill_rand("in", "u32", 4096, 7502, 0, 1000)],
  [B("out"), B("block_sums"), B("in"), U32(4096)], ["out", "block_sums"],
  "block-wide inclusive scan (1024 per block): warp shuffle scans and a scan of warp totals",
  ["scan", "warp.shfl", "cta.bar"])
C("scan_add", "prims", "scan_add", [4], [1024],
  [fill_rand("data", "u32", 4096, 7503, 0, 100000), fill_rand("block_sums", "u32", 4, 7504, 0, 1000000)],
  [B("data"), B("block_sums"), U32(4096)], ["data"],
  "second pass of a multi-block scan: add the block offsets", ["scan"])
C("scan_f32_block", "prims", "scan_f32_block", [8], [256],
  [Buf("out", "f32", 2048), fill_rand("in", "f32", 2048, 7505, -1, 1)],
  [B("out"), B("in"), U32(2048)], ["out"],
  "Hillis-Steele inclusive f32 scan per block of 256, double-buffered shared memory",
  ["scan", "mem.shared", "cta.bar"])
C("radix_sort_block", "prims", "radix_sort_block", [40], [256],
  [fill_rand("keys", "u32", 40 * 2048, 7506)], [B("keys")], ["keys"],
  "LSD radix sort of 2048 keys per block (32 stable 1-bit splits with block scans), 40 blocks",
  ["sort.radix", "warp.shfl", "mem.shared", "cta.bar"], big=True)
C("radix_histogram", "prims", "radix_histogram", [64], [128],
  [Buf("hist", "u32", 64 * 16), fill_rand("keys", "u32", 8192, 7507)],
  [B("hist"), B("keys"), U32(8192), U32(4)], ["hist"],
  "digit histogram of one radix pass (4-bit digits at bit 4), shared atomics",
  ["sort.radix", "atom.shared"])
C("bitonic_step", "prims", "bitonic_step", [32], [128],
  [fill_rand("keys", "u32", 4096, 7508)], [B("keys"), U32(64), U32(512)], ["keys"],
  "one global bitonic merge step (j=64, k=512) over 4096 keys", ["sort.bitonic"])
C("bitonic_block_f32", "prims", "bitonic_block_f32", [2], [1024],
  [fill_rand("v", "f32", 4096, 7509, -100, 100)], [B("v")], ["v"],
  "bitonic sort of 2048 floats per block in shared memory (66 barrier-separated steps)",
  ["sort.bitonic", "mem.shared", "cta.bar"])
C("reduce_f64", "prims", "reduce_f64", [32], [256],
  [Buf("partial", "f64", 32), fill_rand("in", "f64", 65536, 7510, -1, 1)],
  [B("partial"), B("in"), U32(65536)], ["partial"],
  "f64 sum: grid-stride partials, shuffle-down trees, one value per block",
  ["cta.reduce", "warp.shfl", "fp64"])

# ---------------------------------------------------------------------------
# physics.cu

_pos = np.concatenate([uniform_f32(1024 * 3, -10, 10, 7601).reshape(1024, 3),
                       uniform_f32(1024, 0.5, 2, 7602).reshape(1024, 1)], axis=1).astype("<f4").ravel()
C("nbody_tiled", "physics", "nbody_tiled", [8], [128],
  [Buf("acc", "f32", 1024 * 4), Buf("pos", "f32", data=_pos)], [B("acc"), B("pos"), U32(1024), F(0.01)],
  ["acc"], "all-pairs n-body, 1024 bodies, shared tiles of 128, rsqrtf",
  ["nbody", "mem.shared", "sfu", "fp32.contract"], big=True)
_mpos = np.concatenate([uniform_f32(1024 * 3, 0, 10, 7603).reshape(1024, 3), np.zeros((1024, 1), "<f4")],
                       axis=1).astype("<f4").ravel()
C("md_lj", "physics", "md_lj", [8], [128],
  [Buf("force", "f32", 1024 * 4), Buf("pos", "f32", data=_mpos), fill_rand("nbr", "u32", 48 * 1024, 7604, 0, 1023)],
  [B("force"), B("pos"), B("nbr"), U32(1024), U32(48), F(25.0), F(1.5), F(2.0)], ["force"],
  "SHOC MD: Lennard-Jones forces over a 48-wide neighbour list with a cutoff",
  ["md", "mem.global.gather", "fp32.div", "fp32.contract"])
C("black_scholes", "physics", "black_scholes", [16], [128],
  [Buf("call", "f32", 2048), Buf("put", "f32", 2048), fill_rand("S", "f32", 2048, 7605, 5, 30),
   fill_rand("X", "f32", 2048, 7606, 1, 100), fill_rand("T", "f32", 2048, 7607, 0.25, 10)],
  [B("call"), B("put"), B("S"), B("X"), B("T"), U32(2048), F(0.02), F(0.3)], ["call", "put"],
  "Black-Scholes call and put (CUDA samples formula): expf, logf, sqrtf, polynomial CND",
  ["finance", "sfu", "fp32.contract"])
C("monte_carlo_pi", "physics", "monte_carlo_pi", [16], [128],
  [Buf("hits", "u32", 2048)], [B("hits"), U32(1024), U32(12345)], ["hits"],
  "Monte Carlo pi: xorshift32, 1024 points per thread, x*x + y*y <= 1 (a contraction "
  "candidate that changes counts)", ["montecarlo", "int.shift", "fp32.contract"], big=True)
C("fft256", "physics", "fft256", [8], [128],
  [Buf("out", "f32", 8 * 256 * 2), fill_rand("in", "f32", 8 * 256 * 2, 7608, -1, 1)],
  [B("out"), B("in")], ["out"],
  "256-point complex radix-2 FFT per block in shared memory, twiddles from sincosf",
  ["fft", "mem.shared", "sfu", "cta.bar"])
C("srad_coeff", "physics", "srad_coeff", [2, 2], [16, 16],
  [Buf("c", "f32", 1024), Buf("dN", "f32", 1024), Buf("dS", "f32", 1024), Buf("dW", "f32", 1024),
   Buf("dE", "f32", 1024), fill_rand("J", "f32", 1024, 7609, 0.5, 1.5)],
  [B("c"), B("dN"), B("dS"), B("dW"), B("dE"), B("J"), S32(32), S32(32), F(0.05)],
  ["c", "dN", "dS", "dW", "dE"],
  "Rodinia SRAD step 1: derivatives and diffusion coefficient (divisions), 32x32",
  ["image", "fp32.div", "fp32.contract"])
C("srad_update", "physics", "srad_update", [2, 2], [16, 16],
  [fill_rand("J", "f32", 1024, 7609, 0.5, 1.5), fill_rand("c", "f32", 1024, 7610, 0, 1),
   fill_rand("dN", "f32", 1024, 7611, -0.5, 0.5), fill_rand("dS", "f32", 1024, 7612, -0.5, 0.5),
   fill_rand("dW", "f32", 1024, 7613, -0.5, 0.5), fill_rand("dE", "f32", 1024, 7614, -0.5, 0.5)],
  [B("J"), B("c"), B("dN"), B("dS"), B("dW"), B("dE"), S32(32), S32(32), F(0.5)], ["J"],
  "Rodinia SRAD step 2: J += lambda/4 (cN dN + cS dS + cW dW + cE dE)",
  ["image", "fp32.contract"])


def modules():
    seen = []
    for c in CASES:
        if c.module not in seen:
            seen.append(c.module)
    return seen
