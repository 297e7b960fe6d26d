"""The perf corpus case list: one entry per kernel launch.

Two groups:
  access  (issue 8, item 9)  access patterns for the memory-hierarchy model,
          each with its ncu hierarchy counters (metrics.HIER);
  calib   (issue 9, item 6)  calibration launches of 30,000+ cycles for the
          timing model, with the timing counters too (metrics.TIMING), CUDA-
          event timings and repeated cycle counts.

A case names its module (kernels/<module>.cu, or the nvcc corpus's kernels
for the mission modules matmul and transpose), the kernel's source name, the
launch shape, its buffers (contents from a small file written here, a `fill`
rule of the launch-spec extension, or zeros), symbols, textures, arguments
and outputs. Variants: O3 always; G too for the mission kernels.

`prio` orders the ncu work (lower first) so that, if the device time runs
out, what is lost is the least needed.
"""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------------------
# Building blocks


class Buf:
    """A buffer or symbol: data (numpy array, written to inputs/<name>.bin),
    fill (a launch-spec fill rule), or neither (zeros)."""

    def __init__(self, name, type, count=None, data=None, fill=None):
        self.name, self.type, self.fill = name, type, fill
        if data is not None:
            data = np.ascontiguousarray(data)
            if count is not None and data.size != count:
                raise ValueError(f"{name}: data has {data.size} elements, count says {count}")
            count = data.size
        if count is None:
            raise ValueError(f"{name}: need data or count")
        if data is not None and fill is not None:
            raise ValueError(f"{name}: data and fill are exclusive")
        self.count = int(count)
        self.data = data


class Tex:
    def __init__(self, name, buffer, dims, format, filter="point", address="clamp"):
        self.name, self.buffer, self.dims, self.format = name, buffer, list(dims), format
        self.filter, self.address = filter, address

    def spec(self):
        return {"name": self.name, "buffer": self.buffer, "dims": self.dims, "format": self.format,
                "address": self.address, "filter": self.filter, "normalized": False}


class Case:
    def __init__(self, name, group, module, kernel, grid, block, buffers, args, outputs, desc,
                 kind, symbols=(), textures=(), dyn_smem=0, variants=("O3",), prio=5,
                 source_counters=(), pairs=()):
        self.name, self.group, self.module, self.kernel = name, group, module, kernel
        self.grid = list(grid) + [1] * (3 - len(grid))
        self.block = list(block) + [1] * (3 - len(block))
        self.buffers, self.args, self.outputs = list(buffers), list(args), list(outputs)
        self.desc, self.kind = desc, kind
        self.symbols, self.textures = list(symbols), list(textures)
        self.dyn_smem = dyn_smem
        self.variants = list(variants)
        self.prio = prio
        self.source_counters = list(source_counters)   # variants with per-instruction counters
        self.pairs = list(pairs)                       # pair names this launch belongs to


def B(name): return ("buffer", name)
def T(name): return ("texture", name)
def U32(v): return ("u32", int(v))
def S32(v): return ("s32", int(v))


def F32(v):
    v = float(v)
    if float(np.float32(v)) != v:
        raise ValueError(f"f32 argument {v!r} is not exactly representable")
    return ("f32", v)


def cdiv(a, b):
    return (a + b - 1) // b


def rand_f32(seed, lo=-1.0, hi=1.0):
    return {"kind": "rand", "seed": seed, "lo": lo, "hi": hi}


def rand_int(seed, lo=None, hi=None):
    d = {"kind": "rand", "seed": seed}
    if lo is not None:
        d["lo"], d["hi"] = lo, hi
    return d


def iota(start=0, step=1):
    return {"kind": "iota", "start": start, "step": step}


CASES = []
NAMES = set()


def add(c):
    if c.name in NAMES:
        raise ValueError(f"duplicate case {c.name}")
    NAMES.add(c.name)
    CASES.append(c)


SMS = 132            # H100 SXM; the launches assume it only for their shapes
MISSION_MODULES = ("matmul", "transpose")

# ---------------------------------------------------------------------------
# A. Access patterns (issue 8, item 9)

# Offset copies: u32, u64 and 16-byte elements; offsets in elements.
for ty, kern, n, esz, offs in (
        ("u32", "copy_u32_offset", 8192, 4,
         [(0, 0), (1, 0), (2, 0), (4, 0), (7, 0), (8, 0), (16, 0), (31, 0), (32, 0), (0, 1),
          (0, 8), (5, 5)]),
        ("u64", "copy_u64_offset", 8192, 8, [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (0, 1), (1, 1)]),
        ("v4", "copy_v4_offset", 4096, 16, [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)])):
    for oi, oo in offs:
        pad = 64
        btype = "u32" if ty == "v4" else ty
        mult = 4 if ty == "v4" else 1
        add(Case(f"copy_{ty}_offset_i{oi}_o{oo}", "access", "access", kern, [n // 256], [256],
                 [Buf("out", btype, (n + pad) * mult),
                  Buf("in", btype, (n + pad) * mult, fill=iota(1000 + oi * 37 + oo))],
                 [B("out"), B("in"), U32(n), U32(oi), U32(oo)], ["out"],
                 f"{esz}-byte copy of {n} elements, read offset {oi}, write offset {oo} elements "
                 f"({oi * esz} / {oo * esz} bytes from the allocation's start)",
                 "offset_copy", prio=2))

# Strided reads, coalesced writes: strides 1..32 for 4-, 8- and 16-byte elements.
N_STRIDE = 2048
for ty, kern, esz in (("u32", "copy_u32_stride", 4), ("u64", "copy_u64_stride", 8),
                      ("v4", "copy_v4_stride", 16)):
    for s in range(1, 33):
        btype = "u32" if ty == "v4" else ty
        mult = 4 if ty == "v4" else 1
        core = s in (1, 2, 3, 4, 8, 16, 32)
        add(Case(f"copy_{ty}_stride{s}", "access", "access", kern, [N_STRIDE // 256], [256],
                 [Buf("out", btype, N_STRIDE * mult),
                  Buf("in", btype, N_STRIDE * s * mult, fill=iota(2000 * s))],
                 [B("out"), B("in"), U32(N_STRIDE), U32(s)], ["out"],
                 f"{esz}-byte elements read with stride {s} ({s * esz} bytes between lanes), "
                 f"written coalesced; {N_STRIDE} threads", "stride_copy", prio=2 if core else 8))
for s in (1, 2, 4, 8, 16, 32):
    add(Case(f"copy_u32_stride{s}_ldg", "access", "access", "copy_u32_stride_ldg", [N_STRIDE // 256],
             [256], [Buf("out", "u32", N_STRIDE), Buf("in", "u32", N_STRIDE * s, fill=iota(2100 * s))],
             [B("out"), B("in"), U32(N_STRIDE), U32(s)], ["out"],
             f"u32 read through __ldg (ld.global.nc) with stride {s}", "ldg", prio=3))
    add(Case(f"store_u32_stride{s}", "access", "access", "store_u32_stride", [N_STRIDE // 256], [256],
             [Buf("out", "u32", N_STRIDE * s), Buf("in", "u32", N_STRIDE, fill=iota(2200 * s))],
             [B("out"), B("in"), U32(N_STRIDE), U32(s)], ["out"],
             f"coalesced u32 reads, stores with stride {s}", "stride_store", prio=3))

# Write traffic: footprints below and above the L2, full and partial sectors.
for name, n, stride in (("store_fill_4MiB", 1 << 20, 1), ("store_fill_64MiB", 1 << 24, 1),
                        ("store_fill_stride2_32MiB", 1 << 22, 2),
                        ("store_fill_stride8_32MiB", 1 << 20, 8)):
    add(Case(name, "access", "access", "store_fill", [SMS * 4], [256],
             [Buf("out", "u32", n * stride)], [B("out"), U32(n), U32(stride), U32(0x5A5A5A5A)], ["out"],
             f"{n} u32 stores {stride * 4} bytes apart over {n * stride * 4 >> 20} MiB, no loads "
             "(L2 write sectors, DRAM write bytes, partial-sector writes)", "write_traffic", prio=3))

# Cache operators and hints: block windows of 4 KiB re-read 8 times.
REREAD_OPS = ["default", "ca", "cg", "cs", "lu", "cv", "nc", "l1_evict_first", "l1_evict_last",
              "l1_evict_normal", "l1_evict_unchanged", "l1_no_allocate", "l2_prefetch_256b", "ldg",
              "l2_evict_last_policy"]
for op in REREAD_OPS:
    add(Case(f"reread_{op}", "access", "access", f"reread_{op}", [64], [256],
             [Buf("out", "u32", 64 * 256), Buf("in", "u32", 64 * 1024, fill=iota(3000))],
             [B("out"), B("in"), U32(8)], ["out"],
             f"each block re-reads its own 4 KiB window 8 times with {op} loads (L1 hits after the "
             "first pass where the operator keeps the lines)", "cache_operator", prio=2))
for op in ("wb", "wt", "cs", "cg", "l1_evict_last", "l1_no_allocate"):
    add(Case(f"store_reload_{op}", "access", "access", f"store_reload_{op}", [16], [256],
             [Buf("out", "u32", 16 * 256), Buf("out2", "u32", 16 * 256)],
             [B("out"), B("out2"), U32(0x1234567)], ["out", "out2"],
             f"st.global.{op} of one word per thread, then a default load of it", "store_operator",
             prio=3))

# L1 working sets: one block per SM re-reads its own window 4 times.
for kb, dsm in ((16, 0), (32, 0), (64, 0), (96, 0), (128, 0), (160, 0), (192, 0), (224, 0),
                (256, 0), (512, 0), (32, 160 * 1024), (64, 160 * 1024)):
    words = kb * 256
    add(Case(f"l1_ws_{kb}KiB" + (f"_smem{dsm >> 10}KiB" if dsm else ""), "access", "working",
             "l1_ws", [SMS], [1024],
             [Buf("out", "u32", SMS * 1024), Buf("in", "u32", SMS * words, fill=iota(0, 1))],
             [B("out"), B("in"), U32(words), U32(4)], ["out"],
             f"one block per SM re-reads its own {kb} KiB 4 times (default loads)"
             + (f", {dsm >> 10} KiB dynamic shared memory shrinking the L1" if dsm else ""),
             "l1_working_set", dyn_smem=dsm, prio=2))

# L2 working sets: the grid sweeps one buffer 3 times with ld.global.cg.v4.
for mb in (4, 8, 16, 24, 32, 40, 48, 56, 64, 96):
    vecs = mb << 16
    add(Case(f"l2_ws_{mb}MiB", "access", "working", "l2_ws", [SMS], [128],
             [Buf("out", "u32", SMS * 128), Buf("in", "u32", vecs * 4, fill=iota(0, 1))],
             [B("out"), B("in"), U32(vecs), U32(3)], ["out"],
             f"the grid sweeps {mb} MiB 3 times with 16-byte ld.global.cg (L2 hit rate vs capacity)",
             "l2_working_set", prio=2))
for mb in (16, 64):
    vecs = mb << 16
    add(Case(f"l2_ws_ca_{mb}MiB", "access", "working", "l2_ws_ca", [SMS], [128],
             [Buf("out", "u32", SMS * 128), Buf("in", "u32", vecs * 4, fill=iota(0, 1))],
             [B("out"), B("in"), U32(vecs), U32(3)], ["out"],
             f"the grid sweeps {mb} MiB 3 times with default 16-byte loads", "l2_working_set", prio=3))

# Shared memory: 32-, 64- and 128-bit loads and stores at a pattern.
rs = np.random.RandomState(4242)
LANES = np.arange(32, dtype=np.uint32)
SMEM_PATTERNS = {
    32: {"stride1": LANES, "stride2": LANES * 2, "stride4": LANES * 4, "stride8": LANES * 8,
         "stride16": LANES * 16, "stride32": LANES * 32, "bcast": np.zeros(32, np.uint32),
         "pairs": LANES // 2, "quads": LANES // 4, "perm": rs.permutation(32).astype(np.uint32),
         "mixed": rs.randint(0, 128, 32).astype(np.uint32)},
    64: {"stride1": LANES, "stride2": LANES * 2, "stride4": LANES * 4, "stride8": LANES * 8,
         "stride16": LANES * 16, "bcast": np.zeros(32, np.uint32), "pairs": LANES // 2,
         "halves_same": LANES % 16, "perm": rs.permutation(32).astype(np.uint32),
         "mixed": rs.randint(0, 64, 32).astype(np.uint32)},
    128: {"stride1": LANES, "stride2": LANES * 2, "stride4": LANES * 4, "stride8": LANES * 8,
          "bcast": np.zeros(32, np.uint32), "pairs": LANES // 2, "quads": LANES // 4,
          "quarters_same": LANES % 8, "perm": rs.permutation(32).astype(np.uint32),
          "mixed": rs.randint(0, 32, 32).astype(np.uint32)},
}
for bits, pats in SMEM_PATTERNS.items():
    for pname, pat in pats.items():
        for op in ("ld", "st"):
            nb = 2 if op == "ld" else 1
            outs = nb * 256 if op == "ld" else nb * 4096
            add(Case(f"smem_{op}_b{bits}_{pname}", "access", "smem", f"smem_{op}_b{bits}", [nb], [256],
                     [Buf("out", "u32", outs), Buf("pat", "u32", data=pat)],
                     [B("out"), B("pat"), U32(16)], ["out"],
                     f"{bits}-bit shared {'loads' if op == 'ld' else 'stores'}, lane -> element "
                     f"{pname} ({bits // 8}-byte elements), 16 passes",
                     "shared_pattern", prio=2))

ATOM_PATTERNS = {"distinct": LANES, "bcast": np.zeros(32, np.uint32), "pairs": LANES // 2,
                 "stride2": LANES * 2, "stride32": LANES * 32,
                 "mixed": rs.randint(0, 64, 32).astype(np.uint32)}
for pname, pat in ATOM_PATTERNS.items():
    add(Case(f"smem_atom_add_u32_{pname}", "access", "smem", "smem_atom_add_u32", [1], [256],
             [Buf("out", "u32", 4096), Buf("pat", "u32", data=pat)],
             [B("out"), B("pat"), U32(16)], ["out"],
             f"shared atomicAdd (no return value), lane -> word {pname}", "shared_atomic", prio=2))
for pname in ("distinct", "bcast", "stride32"):
    add(Case(f"smem_atom_add_u32_ret_{pname}", "access", "smem", "smem_atom_add_u32_ret", [1], [256],
             [Buf("out", "u32", 4096), Buf("old", "u32", 256),
              Buf("pat", "u32", data=ATOM_PATTERNS[pname])],
             [B("out"), B("old"), B("pat"), U32(16)], ["out"],
             f"shared atomicAdd whose old value is used, lane -> word {pname} (old values are "
             "order-dependent: written to a buffer that is not an output)", "shared_atomic", prio=3))
for pname in ("distinct", "bcast"):
    add(Case(f"smem_atom_add_u64_{pname}", "access", "smem", "smem_atom_add_u64", [1], [256],
             [Buf("out", "u64", 2048), Buf("pat", "u32", data=ATOM_PATTERNS[pname])],
             [B("out"), B("pat"), U32(16)], ["out"],
             f"64-bit shared atomicAdd, lane -> element {pname}", "shared_atomic", prio=3))

# Constant cache: uniform vs divergent indices, and the same reads from global.
CONST_PATTERNS = {"uniform": np.zeros(32, np.uint32), "distinct2": LANES // 16,
                  "distinct4": LANES // 8, "distinct8": LANES // 4, "distinct16": LANES // 2,
                  "distinct32": LANES, "distinct32_stride64": LANES * 64}
CTAB_FILL = rand_int(5000)
for pname, pat in CONST_PATTERNS.items():
    add(Case(f"const_{pname}", "access", "constmem", "const_pattern", [32], [256],
             [Buf("out", "u32", 32 * 256), Buf("pat", "u32", data=pat)],
             [B("out"), B("pat"), U32(16)], ["out"],
             f"__constant__ reads, {pname} words per warp, 16 passes", "constant",
             symbols=[Buf("ctab", "u32", 4096, fill=CTAB_FILL)], prio=2))
    add(Case(f"global_{pname}", "access", "constmem", "global_pattern", [32], [256],
             [Buf("out", "u32", 32 * 256), Buf("tab", "u32", 4096, fill=CTAB_FILL),
              Buf("pat", "u32", data=pat)],
             [B("out"), B("tab"), B("pat"), U32(16)], ["out"],
             f"the same reads from global memory, {pname} words per warp", "constant_vs_global",
             prio=3))
add(Case("const_param_index", "access", "constmem", "const_param_index", [32], [256],
         [Buf("out", "u32", 32 * 256)], [B("out"), U32(17), U32(16)], ["out"],
         "__constant__ reads at an index from a kernel parameter (uniform to the compiler)",
         "constant", symbols=[Buf("ctab", "u32", 4096, fill=CTAB_FILL)], prio=2))

# Local memory.
LOCAL_IDX = rs.randint(0, 64, 64).astype(np.uint32)
for uni in (0, 1):
    add(Case(f"local_dyn_index_{'uniform' if uni else 'divergent'}", "access", "localmem",
             "local_dyn_index", [64], [256],
             [Buf("out", "u32", 64 * 256), Buf("in", "u32", 4096, fill=rand_int(6000)),
              Buf("idx", "u32", data=LOCAL_IDX)],
             [B("out"), B("in"), B("idx"), U32(32), U32(uni)], ["out"],
             "a 64-word per-thread array indexed by data (ld.local/st.local in the PTX), "
             + ("every lane of a warp at the same index" if uni else "lanes at different indices"),
             "local", prio=2))
add(Case("local_spill", "access", "localmem", "local_spill", [64], [256],
         [Buf("out", "u32", 64 * 256), Buf("in", "u32", 4096, fill=rand_int(6001))],
         [B("out"), B("in"), U32(16)], ["out"],
         "48 live words under __launch_bounds__(256, 8): ptxas spills to local memory (not in the "
         "PTX)", "local_spill", prio=2))

# 2D textures (256 x 256 f32).
TW, TS = 256, 64 * 256     # texture width = height; texels sampled per launch
for kern, filt, scale, off, block, grid, tag in (
        ("tex_rows", "point", 1.0, 0.0, [256], [64], "rows_point"),
        ("tex_rows", "linear", 1.0, 0.0, [256], [64], "rows_linear_centres"),
        ("tex_rows", "linear", 1.0, 0.25, [256], [64], "rows_linear_quarter"),
        ("tex_rows", "point", 2.0, 0.0, [256], [64], "rows_point_scale2"),
        ("tex_rows", "point", 0.5, 0.0, [256], [64], "rows_point_scale_half"),
        ("tex_rows", "linear", 0.5, 0.25, [256], [64], "rows_linear_scale_half"),
        ("tex_cols", "point", 1.0, 0.0, [256], [64], "cols_point"),
        ("tex_cols", "linear", 1.0, 0.25, [256], [64], "cols_linear_quarter"),
        ("tex_cols", "point", 2.0, 0.0, [256], [64], "cols_point_scale2"),
        ("tex_tiles", "point", 1.0, 0.0, [8, 32], [TW // 8, 2], "tiles8x4_point"),
        ("tex_tiles", "linear", 1.0, 0.25, [8, 32], [TW // 8, 2], "tiles8x4_linear_quarter")):
    add(Case(f"tex_{tag}", "access", "tex2d", kern, grid, block,
             [Buf("out", "f32", TS), Buf("img", "f32", TW * TW, fill=rand_f32(7000, 0.0, 1.0))],
             [B("out"), T("t"), U32(TW), F32(scale), F32(off)], ["out"],
             f"2D texture {TW}x{TW} f32, {filt} filtering, {kern} over 256 x 64 threads: scale "
             f"{scale}, offset {off}",
             "texture", textures=[Tex("t", "img", [TW, TW], "f32", filt)], prio=2))
for filt in ("point", "linear"):
    add(Case(f"tex_3x3_{filt}", "access", "tex2d", "tex_3x3", [64], [256],
             [Buf("out", "f32", TS), Buf("img", "f32", TW * TW, fill=rand_f32(7001, 0.0, 1.0))],
             [B("out"), T("t"), U32(TW)], ["out"],
             f"each thread samples a 3x3 texel neighbourhood ({filt} filtering, texel centres)",
             "texture", textures=[Tex("t", "img", [TW, TW], "f32", filt)], prio=3))

# ---------------------------------------------------------------------------
# B. Calibration launches (issue 9, item 6)


def mission_matmul(kernel, n, prio, sc=()):
    add(Case(f"{kernel}_{n}", "calib", "matmul", kernel, [cdiv(n, 16), cdiv(n, 16)], [16, 16],
             [Buf("C", "f32", n * n), Buf("A", "f32", n * n, fill=rand_f32(100 + n)),
              Buf("B", "f32", n * n, fill=rand_f32(200 + n))],
             [B("C"), B("A"), B("B"), U32(n)], ["C"],
             f"{'naive' if 'naive' in kernel else 'tiled (16x16 shared tiles)'} {n}x{n} f32 matmul",
             "matmul", variants=("O3", "G"), prio=prio, source_counters=sc,
             pairs=[f"matmul_naive_vs_tiled_{n}"]))


for n in (256, 512, 1024, 2048):
    mission_matmul("matmul_naive", n, 0, ("O3", "G") if n == 512 else ("O3",) if n == 1024 else ())
for n in (256, 512, 1024, 2048):
    mission_matmul("matmul_tiled", n, 0, ("O3", "G") if n == 512 else ("O3",) if n == 1024 else ())

for n in (1024, 2048, 3072, 4096):
    for k in ("naive", "shared", "padded"):
        pairs = []
        if k in ("naive", "padded"):
            pairs.append(f"transpose_naive_vs_padded_{n}")
        if k in ("shared", "padded"):
            pairs.append(f"transpose_shared_vs_padded_{n}")
        sc = ("O3", "G") if n == 2048 else ("O3",) if n == 4096 else ()
        add(Case(f"transpose_{k}_{n}", "calib", "transpose", f"transpose_{k}", [n // 32, n // 32],
                 [32, 8], [Buf("out", "f32", n * n), Buf("in", "f32", n * n, fill=iota(0, 1))],
                 [B("out"), B("in"), U32(n), U32(n)], ["out"],
                 f"{k} transpose of a {n}x{n} f32 matrix", "transpose", variants=("O3", "G"), prio=0,
                 source_counters=sc, pairs=pairs))

NRED = 1 << 25
for k in ("shared", "shfl"):
    add(Case(f"reduce_{k}_32M", "calib", "calib", f"reduce_{k}", [NRED // 512], [256],
             [Buf("out", "u32", NRED // 512), Buf("in", "u32", NRED, fill=iota(0, 1))],
             [B("out"), B("in"), U32(NRED)], ["out"],
             f"block sums of 32M u32 (two per thread, then {'a shared-memory tree' if k == 'shared' else 'warp shuffles'})",
             "reduction", prio=1, pairs=["reduce_shfl_vs_shared"]))

# Sums into one counter (issue 23): a warp shuffle reduction and one atomicAdd
# per warp, against the block's shared-memory tree and one atomicAdd per
# block; one element a thread, 1M and 64M u32.
for tag, n in (("1M", 1 << 20), ("64M", 1 << 26)):
    for k, how in (("warpatomic", "a warp shuffle reduction, then one atomicAdd per warp"),
                   ("sharedatomic", "a shared-memory tree per block, then one atomicAdd per block")):
        add(Case(f"reduce_{k}_{tag}", "calib", "reduce_atomic", f"reduce_{k}", [n // 256], [256],
                 [Buf("out", "u32", 1), Buf("in", "u32", n, fill=iota(0, 1))],
                 [B("out"), B("in"), U32(n)], ["out"],
                 f"sum of {tag} u32 into one global counter: {how}", "reduction", prio=1,
                 pairs=[f"reduce_warpatomic_vs_shared_{tag}"]))

SW = 4096
add(Case("stencil5_4096", "calib", "calib", "stencil5", [SW // 32, SW // 8], [32, 8],
         [Buf("out", "f32", SW * SW), Buf("in", "f32", SW * SW, fill=iota(0, 0.001))],
         [B("out"), B("in"), S32(SW), S32(SW)], ["out"],
         "5-point stencil on 4096x4096 f32, global loads (neighbours through L1)", "stencil", prio=1))
add(Case("stencil5_smem_4096", "calib", "calib", "stencil5_smem", [SW // 32, SW // 32], [32, 8],
         [Buf("out", "f32", SW * SW), Buf("in", "f32", SW * SW, fill=iota(0, 0.001))],
         [B("out"), B("in"), S32(SW), S32(SW)], ["out"],
         "5-point stencil on 4096x4096 f32 through a 34x34 shared tile", "stencil", prio=1))

for name, n, mask, desc in (("hist_global_1bin", 1 << 22, 0, "every atomic to one bin (fully contended)"),
                            ("hist_global_16bins", 1 << 24, 15, "16 bins (contended)"),
                            ("hist_global_64kbins", 1 << 24, 65535, "65536 bins (little contention)")):
    add(Case(name, "calib", "calib", "hist_global", [SMS * 8], [256],
             [Buf("bins", "u32", 65536), Buf("in", "u32", n, fill=rand_int(8000 + mask))],
             [B("bins"), B("in"), U32(n), U32(mask)], ["bins"],
             f"histogram of {n} random u32 with global atomicAdd: {desc}", "atomics", prio=1,
             pairs=["hist_contended_vs_uncontended"] if mask in (15, 65535) else []))
add(Case("hist_shared_256bins", "calib", "calib", "hist_shared", [SMS * 8], [256],
         [Buf("bins", "u32", 256), Buf("in", "u32", 1 << 24, fill=rand_int(8100))],
         [B("bins"), B("in"), U32(1 << 24)], ["bins"],
         "histogram of 16M random u32 into 256 shared-memory bins per block, merged with global atomics",
         "atomics", prio=1))

add(Case("tex_resample_4096", "calib", "calib", "tex_resample", [4096 // 32, 4096 // 8], [32, 8],
         [Buf("out", "f32", 4096 * 4096), Buf("img", "f32", 2048 * 2048, fill=rand_f32(9000, 0.0, 1.0))],
         [B("out"), T("t"), U32(4096), U32(4096), F32(0.5)], ["out"],
         "bilinear resampling of a 2048x2048 f32 texture to 4096x4096 with a shear", "texture",
         textures=[Tex("t", "img", [2048, 2048], "f32", "linear")], prio=1))

NT = SMS * 8 * 256
add(Case("sfu_heavy", "calib", "calib", "sfu_heavy", [SMS * 8], [256],
         [Buf("out", "f32", NT), Buf("in", "f32", NT, fill=rand_f32(9100, -2.0, 2.0))],
         [B("out"), B("in"), U32(512)], ["out"],
         "512 iterations of __sinf and __expf per thread (MUFU-bound)", "sfu", prio=1))
add(Case("fp64_heavy", "calib", "calib", "fp64_heavy", [SMS * 8], [256],
         [Buf("out", "f64", NT), Buf("in", "f64", NT, fill=rand_f32(9200, 0.0, 1.0))],
         [B("out"), B("in"), U32(1024)], ["out"],
         "4 independent DFMA chains of 1024 per thread (FP64-bound)", "fp64", prio=1))
for k in ("divergent", "uniform"):
    add(Case(f"branch_{k}", "calib", "calib", f"branch_{k}", [SMS * 8], [256],
             [Buf("out", "f32", NT), Buf("in", "f32", NT, fill=rand_f32(9300, 0.0, 1.0))],
             [B("out"), B("in"), U32(2048)], ["out"],
             "four different 2048-iteration loops chosen per "
             + ("lane (4-way divergent warps)" if k == "divergent" else "warp (no divergence)"),
             "divergence", prio=1, pairs=["branch_divergent_vs_uniform"]))

NCOPY = 1 << 24
for s in (1, 32):
    add(Case(f"copy_perm_stride{s}", "calib", "calib", "copy_perm", [NCOPY // 256], [256],
             [Buf("out", "u32", NCOPY), Buf("in", "u32", NCOPY, fill=iota(0, 1))],
             [B("out"), B("in"), U32(NCOPY), U32(s)], ["out"],
             f"copy of 16M u32 reading with stride {s} (a permutation: the same bytes in total)",
             "copy", prio=1, pairs=["copy_stride32_vs_stride1"]))

BTAB = rand_f32(9400, 0.0, 1.0)
add(Case("bcast_const", "calib", "calib", "bcast_const", [SMS * 8], [256],
         [Buf("out", "f32", NT)], [B("out"), U32(4096)], ["out"],
         "4096 FMAs per thread on a uniform walk of a __constant__ table (broadcast)", "broadcast",
         symbols=[Buf("ctab", "f32", 256, fill=BTAB)], prio=1, pairs=["const_vs_global_broadcast"]))
add(Case("bcast_global", "calib", "calib", "bcast_global", [SMS * 8], [256],
         [Buf("out", "f32", NT), Buf("tab", "f32", 256, fill=BTAB)], [B("out"), B("tab"), U32(4096)],
         ["out"], "the same walk of a global table (every lane the same address)", "broadcast",
         prio=1, pairs=["const_vs_global_broadcast"]))

# The pairs issue 9 asks for (ratio of cycles), as (numerator, denominator).
PAIRS = {
    "matmul_naive_vs_tiled_256": ("matmul_naive_256", "matmul_tiled_256"),
    "matmul_naive_vs_tiled_512": ("matmul_naive_512", "matmul_tiled_512"),
    "matmul_naive_vs_tiled_1024": ("matmul_naive_1024", "matmul_tiled_1024"),
    "matmul_naive_vs_tiled_2048": ("matmul_naive_2048", "matmul_tiled_2048"),
    "transpose_naive_vs_padded_1024": ("transpose_naive_1024", "transpose_padded_1024"),
    "transpose_naive_vs_padded_2048": ("transpose_naive_2048", "transpose_padded_2048"),
    "transpose_naive_vs_padded_4096": ("transpose_naive_4096", "transpose_padded_4096"),
    "transpose_shared_vs_padded_1024": ("transpose_shared_1024", "transpose_padded_1024"),
    "transpose_shared_vs_padded_2048": ("transpose_shared_2048", "transpose_padded_2048"),
    "transpose_shared_vs_padded_4096": ("transpose_shared_4096", "transpose_padded_4096"),
    "copy_stride32_vs_stride1": ("copy_perm_stride32", "copy_perm_stride1"),
    "const_vs_global_broadcast": ("bcast_const", "bcast_global"),
    "reduce_shfl_vs_shared": ("reduce_shfl_32M", "reduce_shared_32M"),
    "reduce_warpatomic_vs_shared_1M": ("reduce_warpatomic_1M", "reduce_sharedatomic_1M"),
    "reduce_warpatomic_vs_shared_64M": ("reduce_warpatomic_64M", "reduce_sharedatomic_64M"),
    "branch_divergent_vs_uniform": ("branch_divergent", "branch_uniform"),
    "hist_contended_vs_uncontended": ("hist_global_16bins", "hist_global_64kbins"),
}
