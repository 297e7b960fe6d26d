// tensor.cu — what the tensor-core and asynchronous-copy instructions cost
// on the H100, for the timing model's classes of issue 24 (today they are
// costed as the half-precision pipe and the nearest memory classes).
//
// Kernel tc(op, iters, rec, sink, varying): every warp of one block runs
// `iters` iterations of CH independent chains of op (CH = 1: each result
// feeds the next, the latency; CH = 4, 8: the throughput):
//   mma_f32   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (D -> C)
//   mma_f16   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 (D -> C)
//   mma_tf32  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 (D -> C)
//   ldmatrix  ldmatrix.sync.aligned.m8n8.x4.shared.b16, each address from
//             the last result (times a run-time 0)
//   cpasync   cp.async.ca.shared.global 16 bytes, commit_group,
//             wait_group 0, the next source from the copied word (times 0)
// Shapes: one block of 1, 4, 8, 16, 32 warps on one SM. Every launch runs
// twice; the second is recorded (mech.h). Figure: warp_cycles_per_op, the
// mean over warps of the cycles of the loop per operation (ops_per_iter =
// CH). The loop count is a per-thread register (see casspin.cu: a uniform
// count beside divergent code can lose iterations; none diverges here).

#include "mech.h"

enum { T_MMA_F32, T_MMA_F16, T_MMA_TF32, T_LDMATRIX, T_CPASYNC, NTOPS };
static const char* topName[NTOPS] = {"mma_f32", "mma_f16", "mma_tf32", "ldmatrix", "cpasync"};

template <int OP, int CH>
__device__ __forceinline__ unsigned tc_loop(unsigned iters, unsigned tid, unsigned varying, const unsigned* src,
                                            u64* t)
{
    __shared__ __align__(16) unsigned smem[32 * 4 * 8 + 4 * 32];
    for (unsigned i = tid; i < 32 * 4 * 8 + 4 * 32; i += blockDim.x) smem[i] = i * 2654435761u;
    __syncthreads();
    unsigned a0 = tid * 3 + 1, a1 = tid ^ 0x3c00, a2 = 0x3c003c00u, a3 = tid + 7, b0 = 0x3c00u + tid, b1 = 0x4000u;
    float c[CH][4];
    unsigned h[CH][2];
    unsigned r[CH][4];
    for (int k = 0; k < CH; ++k) {
        for (int j = 0; j < 4; ++j) c[k][j] = 0.0f, r[k][j] = 0;
        h[k][0] = h[k][1] = 0;
    }
    unsigned lane = tid & 31;
    unsigned sbase = (unsigned)__cvta_generic_to_shared(smem) + (lane & 7) * 16 + (lane >> 3) * 128;
    unsigned cbase = (unsigned)__cvta_generic_to_shared(smem + 32 * 4 * 8) + lane * 16;
    unsigned n = iters + (tid & varying);
    __syncwarp();
    t[0] = clk();
#pragma unroll 1
    for (unsigned i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < CH; ++k) {
            if (OP == T_MMA_F32) {
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                             "{%0,%1,%2,%3};"
                             : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            } else if (OP == T_MMA_F16) {
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
                             "{%0,%1};"
                             : "+r"(h[k][0]), "+r"(h[k][1])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            } else if (OP == T_MMA_TF32) {
                asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                             "{%0,%1,%2,%3};"
                             : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            } else if (OP == T_LDMATRIX) {
                unsigned addr = sbase + k * 512 + (r[k][0] & varying);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(r[k][0]), "=r"(r[k][1]), "=r"(r[k][2]), "=r"(r[k][3])
                             : "r"(addr));
            } else {
                const unsigned* g = src + lane * 4 + k * 128 + (r[k][0] & varying);
                unsigned dst = cbase;
                asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g) : "memory");
                asm volatile("cp.async.commit_group;" ::: "memory");
                asm volatile("cp.async.wait_group 0;" ::: "memory");
                r[k][0] = ((volatile unsigned*)smem)[32 * 4 * 8 + lane * 4];
            }
        }
    }
    __syncwarp();
    t[1] = clk();
    unsigned acc = 0;
    for (int k = 0; k < CH; ++k)
        acc += __float_as_uint(c[k][0] + c[k][1] + c[k][2] + c[k][3]) + h[k][0] + h[k][1] + r[k][0] + r[k][1] + r[k][2] +
               r[k][3];
    return acc;
}

template <int OP>
__device__ __forceinline__ unsigned tc_op(unsigned chains, unsigned iters, unsigned tid, unsigned varying,
                                          const unsigned* src, u64* t)
{
    switch (chains) {
    case 1: return tc_loop<OP, 1>(iters, tid, varying, src, t);
    case 4: return tc_loop<OP, 4>(iters, tid, varying, src, t);
    default: return tc_loop<OP, 8>(iters, tid, varying, src, t);
    }
}

extern "C" __global__ void tc(unsigned op, unsigned chains, unsigned iters, u64* rec, unsigned* sink,
                              const unsigned* src, unsigned varying)
{
    unsigned tid = mech_tid(), w = mech_warp();
    u64 t[2];
    unsigned acc;
    switch (op) {
    case T_MMA_F32: acc = tc_op<T_MMA_F32>(chains, iters, tid, varying, src, t); break;
    case T_MMA_F16: acc = tc_op<T_MMA_F16>(chains, iters, tid, varying, src, t); break;
    case T_MMA_TF32: acc = tc_op<T_MMA_TF32>(chains, iters, tid, varying, src, t); break;
    case T_LDMATRIX: acc = tc_op<T_LDMATRIX>(chains, iters, tid, varying, src, t); break;
    default: acc = tc_op<T_CPASYNC>(chains, iters, tid, varying, src, t); break;
    }
    if ((tid & 31) == 0) {
        rec[3 * w] = smid();
        rec[3 * w + 1] = t[0];
        rec[3 * w + 2] = t[1];
    }
    sink[tid] = acc;
}

static u64* g_rec = nullptr;
static unsigned* g_tsink = nullptr;
static unsigned* g_src = nullptr;

static void tcase(int op, unsigned chains, unsigned warps, unsigned iters)
{
    char name[96];
    snprintf(name, sizeof name, "%s_ch%u_sm1_w%u", topName[op], chains, warps);
    Launch L;
    L.kernel = "tc";
    L.fn = (const void*)tc;
    L.grid = dim3(1);
    L.block = dim3(32 * warps);
    L.args = {au32(op),
              au32(chains),
              au32(iters),
              abuf(g_rec, (size_t)warps * 24),
              abuf(g_tsink, (size_t)warps * 32 * 4),
              abuf(g_src, 8192 * 4),
              au32(0)};
    L.rec = 3;
    L.itersArg = 2;
    L.iters = iters;
    L.opsPerIter = chains;
    L.costPerIter = 4.0 * chains;
    char extra[160];
    snprintf(extra, sizeof extra, "\"op\": \"%s\", \"chains\": %u, \"shape\": \"sm1_w%u\"", topName[op], chains, warps);
    record("tensor", name, L, "warp_cycles_per_op", 0, 0, "none", noprep, extra);
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "tensor.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_rec, 1u << 20), "alloc", "rec") || !ok(cudaMalloc(&g_tsink, 1u << 20), "alloc", "sink") ||
        !ok(cudaMalloc(&g_src, 8192 * 4), "alloc", "src") || !ok(cudaMemset(g_src, 0, 8192 * 4), "memset", "src"))
        return probe_close();
    for (int op = 0; op < NTOPS; ++op)
        for (unsigned chains : {1u, 4u, 8u})
            for (unsigned warps : {1u, 4u, 8u, 16u, 32u}) {
                if (op == T_CPASYNC && chains > 4) continue;
                tcase(op, chains, warps, 64);
            }
    cudaFree(g_rec);
    cudaFree(g_tsink);
    cudaFree(g_src);
    return probe_close();
}
