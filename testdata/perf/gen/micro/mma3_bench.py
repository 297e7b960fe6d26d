#!/usr/bin/env python3
"""Writes mma3_<group>.cu: clock64 microbenchmarks of the mma.sync, mma.sp and
wmma.mma forms of issue 24 items 1-3 (one binary per group, so a form the
driver refuses spoils only its group).

Each kernel k_<form>_<CH>: every warp runs ITERS iterations of CH independent
chains d = a*b + d (CH = 1: each result feeds the next, the latency; CH = 8:
the throughput). Output, one JSON line per launch:
{"form", "chains", "warps", "cycles_per_op"} where cycles_per_op is the mean
over warps of (clock64 after - before) / (ITERS * CH).

    python3 mma3_bench.py OUTDIR      # writes OUTDIR/mma3_<group>.cu
"""
import sys
from pathlib import Path

ITERS = 256
# (group, name, instruction, na, nb, nc, sparse selector or None, reg width 32|64)
FORMS = [
    ('base', 'mma_m16n8k16_f32_f16', 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32', 4, 2, 4, None, 32),
    ('base', 'mma_m16n8k32_s32_s8', 'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32', 4, 2, 4, None, 32),
    ('base', 'mma_m8n8k4_f64', 'mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64', 1, 1, 2, None, 64),
    ('base', 'mma_m16n8k16_f32_bf16', 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32', 4, 2, 4, None, 32),
    ('f16', 'mma_m16n8k8_f16_f16', 'mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16', 2, 1, 2, None, 32),
    ('int8', 'mma_m16n8k32_s32_u8_u8', 'mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32', 4, 2, 4, None, 32),
    ('int8', 'mma_m16n8k32_s32_s8_u8', 'mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32', 4, 2, 4, None, 32),
    ('int8', 'mma_m16n8k16_s32_s8_s8', 'mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32', 2, 1, 4, None, 32),
    ('int8', 'mma_m8n8k16_s32_s8_s8', 'mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32', 1, 1, 2, None, 32),
    ('int4', 'mma_m16n8k32_s32_s4_s4', 'mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32', 2, 1, 4, None, 32),
    ('int4', 'mma_m16n8k64_s32_s4_s4', 'mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32', 4, 2, 4, None, 32),
    ('int4', 'mma_m8n8k32_s32_s4_s4', 'mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32', 1, 1, 2, None, 32),
    ('b1', 'mma_m16n8k128_b1_and', 'mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc', 2, 1, 4, None, 32),
    ('b1', 'mma_m16n8k256_b1_xor', 'mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc', 4, 2, 4, None, 32),
    ('b1', 'mma_m8n8k128_b1_xor', 'mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc', 1, 1, 2, None, 32),
    ('fp8', 'mma_m16n8k32_f32_e4m3', 'mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32', 4, 2, 4, None, 32),
    ('fp8', 'mma_m16n8k32_f32_e5m2', 'mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32', 4, 2, 4, None, 32),
    ('fp8h', 'mma_m16n8k32_f16_e4m3', 'mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16', 4, 2, 2, None, 32),
    ('fp8h', 'mma_m16n8k16_f32_e4m3', 'mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32', 2, 1, 4, None, 32),
    ('m884', 'mma_m8n8k4_f32_f16', 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32', 2, 2, 8, None, 32),
    ('m884', 'mma_m8n8k4_f16_f16', 'mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16', 2, 2, 4, None, 32),
    ('sp', 'sp_m16n8k16_f32_f16', 'mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32', 2, 2, 4, 0, 32),
    ('sp', 'sp_m16n8k32_f32_f16', 'mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32', 4, 4, 4, 0, 32),
    ('sp', 'sp_m16n8k8_f32_tf32', 'mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32', 2, 2, 4, 0, 32),
    ('sp', 'sp_m16n8k16_f32_tf32', 'mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32', 4, 4, 4, 0, 32),
    ('spo', 'spo_m16n8k32_f32_f16',
     'mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32', 4, 4, 4, 0, 32),
    ('spi', 'sp_m16n8k32_s32_s8', 'mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32', 2, 2, 4, 0, 32),
    ('spi', 'sp_m16n8k64_s32_s8', 'mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32', 4, 4, 4, 0, 32),
    ('spi4', 'sp_m16n8k128_s32_s4', 'mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32', 4, 4, 4, 0, 32),
    ('spf8', 'sp_m16n8k64_f32_e4m3', 'mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32',
     4, 4, 4, 0, 32),
    ('wmma', 'wmma_m16n16k16_f32_f16', 'wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32', 8, 8, 8, None, 32),
    ('wmma', 'wmma_m16n16k16_f16_f16', 'wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16', 8, 8, 4, None, 32),
    ('wmma', 'wmma_m16n16k16_s32_s8', 'wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32', 2, 2, 8, None, 32),
    ('wmma', 'wmma_m16n16k8_f32_tf32', 'wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32', 4, 4, 8, None, 32),
    ('wmma', 'wmma_m16n16k16_f32_bf16', 'wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32', 4, 4, 8, None,
     32),
    ('wmma', 'wmma_m8n8k4_f64', 'wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64', 1, 1, 2, None, 64),
    ('wmmasub', 'wmma_m8n8k32_s4', 'wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32', 1, 1, 2, None, 32),
    # second recording: the forms the first left unmeasured
    ('b1x', 'mma_m16n8k256_b1_and', 'mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc', 4, 2, 4, None, 32),
    ('b1x', 'mma_m16n8k128_b1_xor', 'mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc', 2, 1, 4, None, 32),
    ('spi4x', 'sp_m16n8k64_s32_s4', 'mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32', 2, 2, 4, 0, 32),
    ('spf8x', 'sp_m16n8k64_f32_e4m3_ch4',
     'mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32', 4, 4, 4, 0, 32),
    ('fp8hx', 'mma_m16n8k16_f16_e4m3', 'mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16', 2, 1, 2, None, 32),
    ('wmmax', 'wmma_m32n8k16_f32_f16', 'wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32', 8, 8, 8, None, 32),
    ('wmmax', 'wmma_m8n32k16_f32_f16', 'wmma.mma.sync.aligned.row.col.m8n32k16.f32.f32', 8, 8, 8, None, 32),
    ('wmmax', 'wmma_m8n8k128_b1_and', 'wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32', 1, 1, 2, None,
     32),
    ('wmmasub', 'wmma_m8n8k128_b1', 'wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32', 1, 1, 2, None,
     32),
]

HEAD = r'''// generated by mma3_bench.py; do not edit
#include <cstdio>
#include <cuda_runtime.h>
#define ITERS %d
static bool ok(cudaError_t e, const char* what, const char* form) {
    if (e == cudaSuccess) return true;
    printf("{\"form\": \"%%s\", \"error\": \"%%s\", \"what\": \"%%s\"}\n", form, cudaGetErrorName(e), what);
    fflush(stdout);
    return false;
}
''' % ITERS


def kernel(name, inst, na, nb, nc, sel, w, ch):
    T = 'unsigned long long' if w == 64 else 'unsigned'
    cons = 'l' if w == 64 else 'r'
    ops = []
    idx = 0
    dl = ', '.join('%%%d' % (idx + i) for i in range(nc))
    idx += nc
    al = ', '.join('%%%d' % (idx + i) for i in range(na))
    idx += na
    bl = ', '.join('%%%d' % (idx + i) for i in range(nb))
    idx += nb
    meta = ''
    if sel is not None:
        meta = ', %%%d, %d' % (idx, sel)
    asm = '%s {%s}, {%s}, {%s}, {%s}%s;' % (inst, dl, al, bl, dl, meta)
    outs = ', '.join('"+%s"(c[k][%d])' % (cons, i) for i in range(nc))
    ins = ', '.join(['"%s"(a[%d])' % (cons, i) for i in range(na)] + ['"%s"(b[%d])' % (cons, i) for i in range(nb)]
                    + (['"r"(e)'] if sel is not None else []))
    return r'''
extern "C" __global__ void k_%(name)s_%(ch)d(unsigned long long* out, unsigned* sink, unsigned seed) {
    unsigned tid = threadIdx.x;
    %(T)s a[%(na)d], b[%(nb)d], c[%(ch)d][%(nc)d];
    for (int i = 0; i < %(na)d; ++i) a[i] = (%(T)s)((tid * 2654435761u + i * 97u) & seed);
    for (int i = 0; i < %(nb)d; ++i) b[i] = (%(T)s)((tid * 40503u + i * 31u) & seed);
    for (int k = 0; k < %(ch)d; ++k) for (int i = 0; i < %(nc)d; ++i) c[k][i] = 0;
    unsigned e = 0x44444444u;
    __syncwarp();
    long long t0 = clock64();
#pragma unroll 1
    for (unsigned it = 0; it < ITERS; ++it) {
#pragma unroll
        for (int k = 0; k < %(ch)d; ++k)
            asm volatile("%(asm)s" : %(outs)s : %(ins)s);
    }
    __syncwarp();
    long long t1 = clock64();
    unsigned acc = 0;
    for (int k = 0; k < %(ch)d; ++k) for (int i = 0; i < %(nc)d; ++i) acc += (unsigned)c[k][i];
    sink[tid] = acc + e;
    if ((tid & 31) == 0) out[tid >> 5] = (unsigned long long)(t1 - t0);
}
''' % dict(name=name, ch=ch, T=T, na=na, nb=nb, nc=nc, asm=asm, outs=outs, ins=ins)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    groups = {}
    for g, *rest in FORMS:
        groups.setdefault(g, []).append(rest)
    for g, forms in groups.items():
        src = [HEAD]
        runs = []
        for name, inst, na, nb, nc, sel, w in forms:
            wide = 4 if name.endswith('_ch4') else 8  # fewer registers
            for ch in (1, wide):
                src.append(kernel(name, inst, na, nb, nc, sel, w, ch))
            for ch, warps in ((1, 1), (wide, 1), (wide, 4), (wide, 16)):
                runs.append((name, ch, warps))
        src.append('int main() {\n    unsigned long long* out; unsigned* sink;\n'
                   '    if (!ok(cudaMalloc(&out, 64 * 8), "alloc", "-") || !ok(cudaMalloc(&sink, 4096 * 4), "alloc", "-")) return 1;\n'
                   '    unsigned long long h[64];\n')
        for name, ch, warps in runs:
            src.append('''    for (int rep = 0; rep < 2; ++rep) {
        k_%(name)s_%(ch)d<<<1, %(thr)d>>>(out, sink, 0x3c003c00u);
        if (!ok(cudaGetLastError(), "launch", "%(name)s") || !ok(cudaDeviceSynchronize(), "sync", "%(name)s")) break;
        if (rep == 0) continue;
        if (!ok(cudaMemcpy(h, out, %(warps)d * 8, cudaMemcpyDeviceToHost), "copy", "%(name)s")) break;
        double s = 0; for (int w = 0; w < %(warps)d; ++w) s += (double)h[w];
        printf("{\\"form\\": \\"%(name)s\\", \\"chains\\": %(ch)d, \\"warps\\": %(warps)d, \\"cycles_per_op\\": %%.3f}\\n",
               s / %(warps)d / (ITERS * %(ch)d.0));
        fflush(stdout);
    }
''' % dict(name=name, ch=ch, warps=warps, thr=32 * warps))
        src.append('    return 0;\n}\n')
        (out / ('mma3_%s.cu' % g)).write_text(''.join(src))


if __name__ == '__main__':
    main()
