// micro.cu — microbenchmarks for the H100 timing profile (issue 9).
//
//   micro all FILE      every benchmark; one JSON object per line in FILE
//   micro ops FILE      only the instruction chains (lat_*, thr_*), for ncu
//   micro launch        empty kernels of several grids (run under ncu for
//                       gpu__time_duration of an empty launch)
//
// Each result line: {"group", "name", "value", "unit", ...details}. Cycle
// figures come from clock64() inside the kernel (SM clock), times from CUDA
// events. Inline PTX fixes the instruction each chain executes; gen.py
// divides by the SASS instruction counts it reads from the binary (ptxas can
// fuse two PTX adds into one IADD3, expand div.rn into a sequence, ...).
//
// A benchmark that fails records {"error": ...} and the run continues.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

typedef unsigned long long u64;

static FILE* g_out = nullptr;
static int g_errors = 0;

static std::string fmt(const char* f, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

// One result line. extra: further JSON members, already formatted (",\"k\": v...").
static void emit(const char* group, const std::string& name, double value, const char* unit,
                 const std::string& extra = "")
{
    std::string line = fmt("{\"group\": \"%s\", \"name\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"",
                           group, name.c_str(), value, unit);
    line += extra + "}\n";
    fputs(line.c_str(), g_out);
    fflush(g_out);
    fputs(line.c_str(), stdout);
}

static bool ok(cudaError_t e, const char* group, const std::string& name)
{
    if (e == cudaSuccess) return true;
    g_errors++;
    std::string line = fmt("{\"group\": \"%s\", \"name\": \"%s\", \"error\": \"%s\"}\n", group,
                           name.c_str(), cudaGetErrorString(e));
    fputs(line.c_str(), g_out);
    fflush(g_out);
    fputs(line.c_str(), stdout);
    cudaGetLastError();
    return false;
}

#define TRY(expr, group, name) \
    if (!ok((expr), group, name)) return
#define SYNC(group, name)                             \
    if (!ok(cudaGetLastError(), group, name)) return; \
    if (!ok(cudaDeviceSynchronize(), group, name)) return

static int g_sms = 0;

// ---------------------------------------------------------------------------
// Pointer chases (latency). Each node holds the address of the next node.

template <int OP>
__device__ __forceinline__ const void* ldp(const void* p)
{
    const void* r;
    if (OP == 0)
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(r) : "l"(p));
    else
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p));
    return r;
}

// Single thread: `warm` hops (untimed), then `hops` timed hops.
template <int OP>
__global__ void chase(const void* start, unsigned warm, unsigned hops, u64* res, const void** sink)
{
    const void* p = start;
    for (unsigned h = 0; h < warm; ++h) p = ldp<OP>(p);
    u64 t0 = clock64();
#pragma unroll 16
    for (unsigned h = 0; h < hops; ++h) p = ldp<OP>(p);
    u64 t1 = clock64();
    res[0] = t1 - t0;
    *sink = p;
}

__global__ void scatter_ptrs(u64* base, const u64* idx, const u64* val, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) base[idx[i]] = val[i];
}

__global__ void flush_l2(uint4* buf, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        buf[i] = make_uint4((unsigned)i, 1, 2, 3);
}

// Chase over `nodes` nodes of a region, `stride` bytes apart, in order
// (random=false) or a random cyclic order. Returns cycles per hop.
static void chase_case(const char* name, int op, size_t region, size_t stride, unsigned nodes,
                       bool random, bool warm, bool flush, unsigned hops)
{
    const char* G = "latency";
    size_t slots = region / stride;
    if (nodes > slots) nodes = (unsigned)slots;
    char* base = nullptr;
    TRY(cudaMalloc(&base, region), G, name);
    std::vector<u64> order(slots);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(12345);
    if (random) std::shuffle(order.begin(), order.end(), rng);
    order.resize(nodes);
    std::vector<u64> idx(nodes), val(nodes);
    for (unsigned k = 0; k < nodes; ++k) {
        idx[k] = order[k] * stride / 8;
        val[k] = (u64)(base + order[(k + 1) % nodes] * stride);
    }
    u64 *didx, *dval, *res;
    const void** sink;
    cudaMalloc(&didx, nodes * 8);
    cudaMalloc(&dval, nodes * 8);
    cudaMalloc(&res, 8);
    cudaMalloc(&sink, 8);
    cudaMemcpy(didx, idx.data(), nodes * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(dval, val.data(), nodes * 8, cudaMemcpyHostToDevice);
    scatter_ptrs<<<(nodes + 255) / 256, 256>>>((u64*)base, didx, dval, nodes);
    SYNC(G, name);
    if (flush) {
        size_t fb = (size_t)256 << 20;
        uint4* f;
        TRY(cudaMalloc(&f, fb), G, name);
        flush_l2<<<g_sms * 4, 1024>>>(f, fb / 16);
        SYNC(G, name);
        cudaFree(f);
    }
    const void* start = base + order[0] * stride;
    if (op == 0)
        chase<0><<<1, 1>>>(start, warm ? nodes : 0, hops, res, sink);
    else
        chase<1><<<1, 1>>>(start, warm ? nodes : 0, hops, res, sink);
    SYNC(G, name);
    u64 cyc = 0;
    cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
    emit(G, name, (double)cyc / hops, "cycles",
         fmt(", \"op\": \"%s\", \"region_bytes\": %zu, \"stride_bytes\": %zu, \"nodes\": %u, "
             "\"random\": %s, \"warm_lap\": %s, \"l2_flushed\": %s, \"hops\": %u, \"total_cycles\": %llu",
             op == 0 ? "ld.global.ca.u64" : "ld.global.cg.u64", region, stride, nodes,
             random ? "true" : "false", warm ? "true" : "false", flush ? "true" : "false", hops, cyc));
    cudaFree(base);
    cudaFree(didx);
    cudaFree(dval);
    cudaFree(res);
    cudaFree(sink);
}

// L2 near/far: per 128-byte line, a chase of `hops` hops among the line's 16
// pointers (ld.global.cg: every hop is an L2 access to the same slice).
// Blocks 0, g/4, g/2, 3g/4 (one thread each) measure every line; the others
// exit at once.
__global__ void line_latency(const u64* lines, unsigned nlines, unsigned hops, unsigned* out,
                             unsigned* smid)
{
    unsigned q = gridDim.x / 4;
    if (threadIdx.x != 0 || blockIdx.x % q != 0 || blockIdx.x / q >= 4) return;
    unsigned view = blockIdx.x / q;
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    smid[view] = s;
    for (unsigned l = 0; l < nlines; ++l) {
        const void* p = lines + (size_t)l * 16;
        for (unsigned h = 0; h < 16; ++h) p = ldp<1>(p);
        u64 t0 = clock64();
        for (unsigned h = 0; h < hops; ++h) p = ldp<1>(p);
        u64 t1 = clock64();
        out[view * nlines + l] = (unsigned)(t1 - t0) + (p == nullptr ? 1u : 0u);
    }
}

static void near_far()
{
    const char* G = "latency";
    const char* name = "l2_hit_per_line";
    const unsigned nlines = 2048, hops = 64;
    u64* lines;
    TRY(cudaMalloc(&lines, (size_t)nlines * 128), G, name);
    std::vector<u64> h((size_t)nlines * 16);
    for (unsigned l = 0; l < nlines; ++l)
        for (unsigned e = 0; e < 16; ++e)
            h[l * 16 + e] = (u64)(lines + (size_t)l * 16 + (e * 5 + 3) % 16);
    cudaMemcpy(lines, h.data(), h.size() * 8, cudaMemcpyHostToDevice);
    unsigned *out, *smid;
    cudaMalloc(&out, 4 * nlines * 4);
    cudaMalloc(&smid, 16);
    cudaMemset(smid, 0xff, 16);
    line_latency<<<g_sms, 32>>>(lines, nlines, hops, out, smid);
    SYNC(G, name);
    std::vector<unsigned> o(4 * nlines), sm(4);
    cudaMemcpy(o.data(), out, o.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(sm.data(), smid, 16, cudaMemcpyDeviceToHost);
    // Per view: 2-means on cycles per hop.
    std::string views = "[";
    std::vector<std::vector<int>> near(4, std::vector<int>(nlines));
    for (int v = 0; v < 4; ++v) {
        std::vector<double> x(nlines);
        for (unsigned l = 0; l < nlines; ++l) x[l] = (double)o[v * nlines + l] / hops;
        double lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
        double c0 = lo, c1 = hi;
        for (int it = 0; it < 50; ++it) {
            double s0 = 0, s1 = 0;
            int n0 = 0, n1 = 0;
            for (double y : x) {
                if (std::fabs(y - c0) <= std::fabs(y - c1)) { s0 += y; n0++; }
                else { s1 += y; n1++; }
            }
            if (n0) c0 = s0 / n0;
            if (n1) c1 = s1 / n1;
        }
        int n0 = 0;
        for (unsigned l = 0; l < nlines; ++l) {
            near[v][l] = std::fabs(x[l] - c0) <= std::fabs(x[l] - c1);
            n0 += near[v][l];
        }
        std::vector<double> srt = x;
        std::sort(srt.begin(), srt.end());
        views += fmt("%s{\"smid\": %u, \"near_cycles\": %.2f, \"far_cycles\": %.2f, \"near_lines\": %d, "
                     "\"p05\": %.2f, \"p50\": %.2f, \"p95\": %.2f, \"min\": %.2f, \"max\": %.2f}",
                     v ? ", " : "", sm[v], c0, c1, n0, srt[nlines / 20], srt[nlines / 2],
                     srt[nlines * 19 / 20], srt[0], srt[nlines - 1]);
    }
    views += "]";
    // Agreement between views: fraction of lines near for view 0 and view v.
    std::string agree = "[";
    for (int v = 1; v < 4; ++v) {
        int same = 0;
        for (unsigned l = 0; l < nlines; ++l) same += near[0][l] == near[v][l];
        agree += fmt("%s%.4f", v > 1 ? ", " : "", (double)same / nlines);
    }
    agree += "]";
    // The first 256 lines' cycles per hop of view 0, for inspection.
    std::string first = "[";
    for (unsigned l = 0; l < 256; ++l)
        first += fmt("%s%.1f", l ? ", " : "", (double)o[l] / hops);
    first += "]";
    double mean = 0;
    for (unsigned l = 0; l < nlines; ++l) mean += (double)o[l] / hops;
    emit(G, name, mean / nlines, "cycles",
         fmt(", \"lines\": %u, \"hops_per_line\": %u, \"views\": %s, \"same_class_as_view0\": %s, "
             "\"view0_first256\": %s",
             nlines, hops, views.c_str(), agree.c_str(), first.c_str()));
    cudaFree(lines);
    cudaFree(out);
    cudaFree(smid);
}

// Shared memory: each word holds the shared-window address of the next node.
__global__ void chase_shared(unsigned nodes, unsigned stride_words, unsigned hops, u64* res,
                             unsigned* sink)
{
    __shared__ unsigned s[8192];
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (unsigned i = 0; i < nodes; ++i)
        s[i * stride_words] = base + ((i + 1) % nodes) * stride_words * 4;
    __syncthreads();
    unsigned p = base;
    for (unsigned h = 0; h < nodes; ++h) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    u64 t0 = clock64();
#pragma unroll 16
    for (unsigned h = 0; h < hops; ++h) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    u64 t1 = clock64();
    res[0] = t1 - t0;
    sink[0] = p;
}

// Constant memory: each word holds the byte offset of the next node.
__constant__ unsigned cchase[16384];

__global__ void chase_const(unsigned start, unsigned warm, unsigned hops, u64* res, unsigned* sink)
{
    unsigned p = start;
    for (unsigned h = 0; h < warm; ++h) p = *(const unsigned*)((const char*)cchase + p);
    u64 t0 = clock64();
#pragma unroll 16
    for (unsigned h = 0; h < hops; ++h) p = *(const unsigned*)((const char*)cchase + p);
    u64 t1 = clock64();
    res[0] = t1 - t0;
    sink[0] = p;
}

static void shared_const_latency()
{
    const char* G = "latency";
    u64* res;
    unsigned* sink;
    cudaMalloc(&res, 8);
    cudaMalloc(&sink, 4);
    {
        std::string name = "shared_ld";
        const unsigned hops = 4096;
        chase_shared<<<1, 1>>>(64, 33, hops, res, sink);
        SYNC(G, name);
        u64 cyc;
        cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
        emit(G, name, (double)cyc / hops, "cycles",
             fmt(", \"op\": \"ld.shared.u32 (address from the previous load)\", \"hops\": %u", hops));
    }
    // Constant: working sets from 1 KiB to 64 KiB, nodes 64 bytes apart.
    const unsigned stride = 64;
    for (unsigned ws : {256u, 1024u, 2048u, 4096u, 8192u, 16384u, 32768u, 65536u}) {
        std::string name = fmt("const_ld_ws%u", ws);
        unsigned nodes = ws / stride;
        std::vector<unsigned> h(16384, 0);
        std::vector<unsigned> order(nodes);
        std::iota(order.begin(), order.end(), 0);
        std::mt19937 rng(777);
        std::shuffle(order.begin() + 1, order.end(), rng);
        for (unsigned k = 0; k < nodes; ++k)
            h[order[k] * stride / 4] = order[(k + 1) % nodes] * stride;
        TRY(cudaMemcpyToSymbol(cchase, h.data(), 65536), G, name);
        const unsigned hops = 4096;
        chase_const<<<1, 1>>>(0, nodes, hops, res, sink);
        SYNC(G, name);
        u64 cyc;
        cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
        emit(G, name, (double)cyc / hops, "cycles",
             fmt(", \"op\": \"ld.const.u32 (indexed: LDC)\", \"working_set_bytes\": %u, "
                 "\"stride_bytes\": %u, \"nodes\": %u, \"hops\": %u, \"warm_lap\": true",
                 ws, stride, nodes, hops));
    }
    cudaFree(res);
    cudaFree(sink);
}

// ---------------------------------------------------------------------------
// Dependent chains (latency) and independent chains (throughput) of one
// instruction. LAT: one warp, one chain, 32 instructions unrolled per
// iteration. THR: blockDim 1024, one block per SM, 8 independent chains per
// thread, 64 instructions per iteration. The outer loops are not unrolled
// (#pragma unroll 1), so the SASS of each kernel holds exactly one loop body:
// gen.py counts each opcode there to say which machine instructions one PTX
// instruction became.

// INIT may use a, b and tid: every chain starts from a value the compiler
// cannot know (a constant start lets ptxas fold a whole chain, a value equal
// in every lane lets it move the chain to the uniform datapath or drop a
// shuffle). Chain k of a thread starts from INIT + k (see start()).
template <typename T>
__device__ __forceinline__ T start(T x, int k) { return x + (T)k; }

#define DEF_OPX(NAME, T, CT, ASM, INIT, OA, OB)                                                        \
    __global__ void lat_##NAME(unsigned iters, u64* res, T* sink, T a, T b)                      \
    {                                                                                            \
        unsigned tid = threadIdx.x;                                                              \
        T x = INIT, oa = OA, ob = OB;                                                            \
        u64 t0 = clock64();                                                                      \
        _Pragma("unroll 1") for (unsigned i = 0; i < iters; ++i) {                               \
            _Pragma("unroll") for (int k = 0; k < 32; ++k)                                       \
                asm volatile(ASM : "+" CT(x) : CT(oa), CT(ob));                                    \
        }                                                                                        \
        u64 t1 = clock64();                                                                      \
        if (threadIdx.x == 0) res[blockIdx.x] = t1 - t0;                                         \
        sink[blockIdx.x * blockDim.x + threadIdx.x] = x;                                         \
    }                                                                                            \
    __global__ void thr_##NAME(unsigned iters, u64* res, T* sink, T a, T b)                      \
    {                                                                                            \
        unsigned tid = threadIdx.x;                                                              \
        T oa = OA, ob = OB;                                                                      \
        T x0 = start<T>(INIT, 0), x1 = start<T>(INIT, 1), x2 = start<T>(INIT, 2),                \
          x3 = start<T>(INIT, 3), x4 = start<T>(INIT, 4), x5 = start<T>(INIT, 5),                \
          x6 = start<T>(INIT, 6), x7 = start<T>(INIT, 7);                                        \
        __syncthreads();                                                                         \
        u64 t0 = clock64();                                                                      \
        _Pragma("unroll 1") for (unsigned i = 0; i < iters; ++i) {                               \
            _Pragma("unroll") for (int k = 0; k < 8; ++k)                                        \
            {                                                                                    \
                asm volatile(ASM : "+" CT(x0) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x1) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x2) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x3) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x4) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x5) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x6) : CT(oa), CT(ob));                                   \
                asm volatile(ASM : "+" CT(x7) : CT(oa), CT(ob));                                   \
            }                                                                                    \
        }                                                                                        \
        __syncthreads();                                                                         \
        u64 t1 = clock64();                                                                      \
        if (threadIdx.x == 0) res[blockIdx.x] = t1 - t0;                                         \
        sink[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;     \
    }

#define DEF_OP(NAME, T, CT, ASM, INIT) DEF_OPX(NAME, T, CT, ASM, INIT, a, b)

#define CF "f"
#define CD "d"
#define CR "r"
#define CL "l"

#define FI(v) ((v) + tid * 1e-6f)
#define DI(v) ((v) + tid * 1e-9)
DEF_OP(ffma, float, CF, "fma.rn.f32 %0, %0, %1, %2;", FI(1.0f))
DEF_OP(fadd, float, CF, "add.f32 %0, %0, %1;", FI(1.0f))
DEF_OP(fmul, float, CF, "mul.f32 %0, %0, %1;", FI(1.0f))
DEF_OP(imad, unsigned, CR, "mad.lo.u32 %0, %0, %1, %2;", a + tid)
DEF_OP(imul64, u64, CL, "mul.lo.u64 %0, %0, %1;", a + tid)
DEF_OP(dfma, double, CD, "fma.rn.f64 %0, %0, %1, %2;", DI(1.0))
DEF_OP(dadd, double, CD, "add.f64 %0, %0, %1;", DI(1.0))
DEF_OP(hfma2, unsigned, CR, "fma.rn.f16x2 %0, %0, %1, %2;", 0x3c003c00u + (tid & 7u))
DEF_OP(sin, float, CF, "sin.approx.ftz.f32 %0, %0;", FI(0.5f))
DEF_OP(ex2, float, CF, "ex2.approx.ftz.f32 %0, %0;", FI(-1.0f))
// rcp(rcp(x)) is folded by ptxas; |.| is a free MUFU operand modifier.
DEF_OP(rcp, float, CF, "{ .reg .f32 t; rcp.approx.ftz.f32 t, %0; abs.f32 %0, t; }", FI(3.0f))
DEF_OP(rsqrt, float, CF, "rsqrt.approx.ftz.f32 %0, %0;", FI(3.0f))
DEF_OP(lg2, float, CF, "lg2.approx.ftz.f32 %0, %0;", FI(1e30f))
DEF_OP(sqrt_approx, float, CF, "sqrt.approx.ftz.f32 %0, %0;", FI(3.0f))
DEF_OP(div_rn_f32, float, CF, "div.rn.f32 %0, %0, %1;", FI(3.0f))
DEF_OP(sqrt_rn_f32, float, CF, "sqrt.rn.f32 %0, %0;", FI(3.0f))
DEF_OP(div_rn_f64, double, CD, "div.rn.f64 %0, %0, %1;", DI(3.0))
DEF_OP(f2i_i2f, float, CF, "{ .reg .s32 t; cvt.rzi.s32.f32 t, %0; cvt.rn.f32.s32 %0, t; }", FI(7.0f))
DEF_OP(f2f_f64_f32, float, CF, "{ .reg .f64 t; cvt.f64.f32 t, %0; cvt.rn.f32.f64 %0, t; }", FI(7.0f))
DEF_OP(f2f_f16_f32, float, CF, "{ .reg .b16 t; cvt.rn.f16.f32 t, %0; cvt.f32.f16 %0, t; }", FI(7.0f))
DEF_OP(i2f_f2i_f64, unsigned, CR, "{ .reg .f64 t; cvt.rn.f64.u32 t, %0; cvt.rzi.u32.f64 %0, t; }", 7u + tid)
DEF_OP(shfl_bfly, unsigned, CR, "shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;", a + tid)
// The source lane varies per lane (a rotation), or ptxas folds the chain.
DEF_OPX(shfl_idx, unsigned, CR, "shfl.sync.idx.b32 %0, %0, %1, 0x1f, -1;", a + tid, (tid + 1u) & 31u, 0u)
DEF_OP(popc, unsigned, CR, "popc.b32 %0, %0;", a + tid)

// Integer adds: a chain x += y of one operand is folded into a multiply, so
// two registers feed each other (x += y; y += x): every add depends on the
// one before. ptxas may issue them as IADD3 or IMAD.IADD (see the SASS).
__global__ void lat_iadd(unsigned iters, u64* res, unsigned* sink, unsigned a, unsigned b)
{
    unsigned x = a + threadIdx.x, y = b ^ threadIdx.x;
    u64 t0 = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(y) : "r"(x));
        }
    }
    u64 t1 = clock64();
    if (threadIdx.x == 0) res[blockIdx.x] = t1 - t0;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

__global__ void thr_iadd(unsigned iters, u64* res, unsigned* sink, unsigned a, unsigned b)
{
    unsigned x0 = a + threadIdx.x, y0 = b ^ threadIdx.x, x1 = x0 + 1, y1 = y0 + 1, x2 = x0 + 2,
             y2 = y0 + 2, x3 = x0 + 3, y3 = y0 + 3;
    __syncthreads();
    u64 t0 = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            asm volatile("add.u32 %0, %0, %1;" : "+r"(x0) : "r"(y0));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(x1) : "r"(y1));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(x2) : "r"(y2));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(x3) : "r"(y3));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(y0) : "r"(x0));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(y1) : "r"(x1));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(y2) : "r"(x2));
            asm volatile("add.u32 %0, %0, %1;" : "+r"(y3) : "r"(x3));
        }
    }
    __syncthreads();
    u64 t1 = clock64();
    if (threadIdx.x == 0) res[blockIdx.x] = t1 - t0;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + y0 + y1 + y2 + y3;
}

// Shared and global atomics: the returned value feeds the next atomic's operand.
__global__ void lat_atoms(unsigned iters, u64* res, unsigned* sink)
{
    __shared__ unsigned s[32];
    s[threadIdx.x & 31] = 0;
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x & 31]);
    unsigned x = 1;
    u64 t0 = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 32; ++k) asm volatile("atom.shared.add.u32 %0, [%1], %0;" : "+r"(x) : "r"(addr));
    }
    u64 t1 = clock64();
    if (threadIdx.x == 0) res[0] = t1 - t0;
    sink[threadIdx.x] = x;
}

__global__ void thr_atoms(unsigned iters, u64* res, unsigned* sink)
{
    __shared__ unsigned s[1024 * 2];
    s[threadIdx.x] = 0;
    s[threadIdx.x + 1024] = 0;
    __syncthreads();
    unsigned a0 = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
    unsigned a1 = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x + 1024]);
    u64 t0 = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(a0) : "memory");
            asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(a1) : "memory");
        }
    }
    __syncthreads();
    u64 t1 = clock64();
    if (threadIdx.x == 0) res[blockIdx.x] = t1 - t0;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

__global__ void lat_atomg(unsigned iters, u64* res, unsigned* cell, unsigned* sink)
{
    unsigned x = 1;
    u64 t0 = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k) asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(x) : "l"(cell + threadIdx.x) : "memory");
    }
    u64 t1 = clock64();
    res[0] = t1 - t0;
    sink[0] = x;
}

typedef void (*opk_u32)(unsigned, u64*, unsigned*, unsigned, unsigned);

template <typename T>
static void run_op(const char* name, void (*lat)(unsigned, u64*, T*, T, T),
                   void (*thr)(unsigned, u64*, T*, T, T), T a, T b, const char* ptx)
{
    u64* res;
    T* sink;
    cudaMalloc(&res, 8 * 4096);
    cudaMalloc(&sink, sizeof(T) * 1024 * 4096);
    {
        const char* G = "chain_latency";
        const unsigned iters = 64;
        lat<<<1, 32>>>(iters, res, sink, a, b);    // warm-up (instruction cache)
        lat<<<1, 32>>>(iters, res, sink, a, b);
        SYNC(G, name);
        u64 cyc;
        cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
        emit(G, name, (double)cyc / (iters * 32.0), "cycles/ptx_op",
             fmt(", \"ptx\": \"%s\", \"kernel\": \"lat_%s\", \"ptx_ops\": %u, \"total_cycles\": %llu",
                 ptx, name, iters * 32, cyc));
    }
    {
        const char* G = "throughput";
        const unsigned iters = 64;
        thr<<<g_sms, 1024>>>(iters, res, sink, a, b);
        thr<<<g_sms, 1024>>>(iters, res, sink, a, b);
        SYNC(G, name);
        std::vector<u64> c(g_sms);
        cudaMemcpy(c.data(), res, 8 * g_sms, cudaMemcpyDeviceToHost);
        std::sort(c.begin(), c.end());
        double med = (double)c[g_sms / 2];
        double warp_ops = 32.0 * 64 * iters;   // per block: 32 warps x (8 chains x 8) x iters
        emit(G, name, warp_ops / med, "warp_ptx_ops/cycle/SM",
             fmt(", \"ptx\": \"%s\", \"kernel\": \"thr_%s\", \"block\": 1024, \"grid\": %d, "
                 "\"warp_ptx_ops_per_block\": %.0f, \"cycles_median\": %.0f, \"cycles_min\": %llu, "
                 "\"cycles_max\": %llu",
                 ptx, name, g_sms, warp_ops, med, c[0], c[g_sms - 1]));
    }
    cudaFree(res);
    cudaFree(sink);
}

#define RUN_OP(NAME, T, A, B, PTX) run_op<T>(#NAME, lat_##NAME, thr_##NAME, A, B, PTX)

static void ops()
{
    RUN_OP(ffma, float, 0.999f, 0.001f, "fma.rn.f32");
    RUN_OP(fadd, float, 1e-7f, 0.0f, "add.f32");
    RUN_OP(fmul, float, 0.9999f, 0.0f, "mul.f32");
    RUN_OP(imad, unsigned, 1664525u, 1013904223u, "mad.lo.u32");
    RUN_OP(iadd, unsigned, 3u, 5u, "add.u32 (x += y; y += x)");
    RUN_OP(imul64, u64, 6364136223846793005ull, 0ull, "mul.lo.u64");
    RUN_OP(dfma, double, 0.999999, 1e-6, "fma.rn.f64");
    RUN_OP(dadd, double, 1e-9, 0.0, "add.f64");
    RUN_OP(hfma2, unsigned, 0x3bff3bffu, 0x14001400u, "fma.rn.f16x2");
    RUN_OP(sin, float, 0.0f, 0.0f, "sin.approx.ftz.f32");
    RUN_OP(ex2, float, 0.0f, 0.0f, "ex2.approx.ftz.f32");
    RUN_OP(rcp, float, 0.0f, 0.0f, "rcp.approx.ftz.f32");
    RUN_OP(rsqrt, float, 0.0f, 0.0f, "rsqrt.approx.ftz.f32");
    RUN_OP(lg2, float, 0.0f, 0.0f, "lg2.approx.ftz.f32");
    RUN_OP(sqrt_approx, float, 0.0f, 0.0f, "sqrt.approx.ftz.f32");
    RUN_OP(div_rn_f32, float, 0.999f, 0.0f, "div.rn.f32");
    RUN_OP(sqrt_rn_f32, float, 0.0f, 0.0f, "sqrt.rn.f32");
    RUN_OP(div_rn_f64, double, 0.999, 0.0, "div.rn.f64");
    RUN_OP(f2i_i2f, float, 0.0f, 0.0f, "cvt.rzi.s32.f32 + cvt.rn.f32.s32");
    RUN_OP(f2f_f64_f32, float, 0.0f, 0.0f, "cvt.f64.f32 + cvt.rn.f32.f64");
    RUN_OP(f2f_f16_f32, float, 0.0f, 0.0f, "cvt.rn.f16.f32 + cvt.f32.f16");
    RUN_OP(i2f_f2i_f64, unsigned, 0u, 0u, "cvt.rn.f64.u32 + cvt.rzi.u32.f64");
    RUN_OP(shfl_bfly, unsigned, 0u, 0u, "shfl.sync.bfly.b32");
    RUN_OP(shfl_idx, unsigned, 0u, 0u, "shfl.sync.idx.b32 (source lane + 1)");
    RUN_OP(popc, unsigned, 0u, 0u, "popc.b32");

    u64* res;
    unsigned *sink, *cell;
    cudaMalloc(&res, 8 * 4096);
    cudaMalloc(&sink, 4 * 1024 * 4096);
    cudaMalloc(&cell, 4);
    cudaMemset(cell, 0, 4);
    {
        const char* G = "chain_latency";
        const char* name = "atom_shared_add";
        const unsigned iters = 64;
        lat_atoms<<<1, 32>>>(iters, res, sink);
        lat_atoms<<<1, 32>>>(iters, res, sink);
        SYNC(G, name);
        u64 cyc;
        cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
        emit(G, name, (double)cyc / (iters * 32.0), "cycles/ptx_op",
             fmt(", \"ptx\": \"atom.shared.add.u32 (each lane its own word)\", \"kernel\": \"lat_atoms\", "
                 "\"ptx_ops\": %u, \"total_cycles\": %llu", iters * 32, cyc));
    }
    {
        const char* G = "chain_latency";
        const char* name = "atom_global_add";
        const unsigned iters = 64;
        lat_atomg<<<1, 1>>>(iters, res, cell, sink);
        lat_atomg<<<1, 1>>>(iters, res, cell, sink);
        SYNC(G, name);
        u64 cyc;
        cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
        emit(G, name, (double)cyc / (iters * 8.0), "cycles/ptx_op",
             fmt(", \"ptx\": \"atom.global.add.u32 (one thread, one address)\", \"kernel\": \"lat_atomg\", "
                 "\"ptx_ops\": %u, \"total_cycles\": %llu", iters * 8, cyc));
    }
    {
        const char* G = "throughput";
        const char* name = "red_shared_add";
        const unsigned iters = 64;
        thr_atoms<<<g_sms, 1024>>>(iters, res, sink);
        thr_atoms<<<g_sms, 1024>>>(iters, res, sink);
        SYNC(G, name);
        std::vector<u64> c(g_sms);
        cudaMemcpy(c.data(), res, 8 * g_sms, cudaMemcpyDeviceToHost);
        std::sort(c.begin(), c.end());
        double warp_ops = 32.0 * 32 * iters;
        emit(G, name, warp_ops / c[g_sms / 2], "warp_ptx_ops/cycle/SM",
             fmt(", \"ptx\": \"red.shared.add.u32 (each lane its own word: no conflicts)\", "
                 "\"kernel\": \"thr_atoms\", \"block\": 1024, \"grid\": %d, \"warp_ptx_ops_per_block\": %.0f, "
                 "\"cycles_median\": %llu", g_sms, warp_ops, c[g_sms / 2]));
    }
    cudaFree(res);
    cudaFree(sink);
    cudaFree(cell);
}

// ---------------------------------------------------------------------------
// Global atomics throughput. mode 0: one address for the whole grid; 1: each
// thread its own word (coalesced); 2: one address per warp; 3: each thread its
// own 128-byte line. ret: the old value is used (ATOM) or not (RED).

__global__ void atom_global_thr(unsigned* p, unsigned mode, unsigned iters, unsigned ret, unsigned* sink)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned* a = mode == 0 ? p : mode == 1 ? p + g : mode == 2 ? p + g / 32 : p + (size_t)g * 32;
    unsigned acc = 0;
    if (ret) {
        for (unsigned i = 0; i < iters; ++i) acc += atomicAdd(a, 1u);
        sink[g] = acc;
    } else {
        for (unsigned i = 0; i < iters; ++i) atomicAdd(a, 1u);
    }
}

static void global_atomics()
{
    const char* G = "atomics";
    const unsigned block = 256, iters = 64;
    const unsigned grid = g_sms * 8;
    const unsigned threads = grid * block;
    unsigned *p, *sink;
    if (!ok(cudaMalloc(&p, (size_t)threads * 128), G, "alloc")) return;
    cudaMalloc(&sink, (size_t)threads * 4);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const char* modes[] = {"same_address", "distinct_coalesced", "per_warp_address", "distinct_lines"};
    for (unsigned ret = 0; ret < 2; ++ret)
        for (unsigned mode = 0; mode < 4; ++mode) {
            std::string name = fmt("%s_%s", ret ? "atom" : "red", modes[mode]);
            cudaMemset(p, 0, (size_t)threads * 128);
            atom_global_thr<<<grid, block>>>(p, mode, 4, ret, sink);
            SYNC(G, name);
            std::vector<float> ms;
            for (int r = 0; r < 5; ++r) {
                cudaEventRecord(e0);
                atom_global_thr<<<grid, block>>>(p, mode, iters, ret, sink);
                cudaEventRecord(e1);
                SYNC(G, name);
                float t;
                cudaEventElapsedTime(&t, e0, e1);
                ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            double n = (double)threads * iters;
            emit(G, name, n / (ms[2] * 1e-3) / 1e9, "Gatomics/s",
                 fmt(", \"grid\": %u, \"block\": %u, \"atomics_per_thread\": %u, \"ms_median\": %.4f, "
                     "\"ms_min\": %.4f, \"ms_max\": %.4f, \"returns_value\": %s",
                     grid, block, iters, ms[2], ms[0], ms[4], ret ? "true" : "false"));
        }
    cudaFree(p);
    cudaFree(sink);
}

// ---------------------------------------------------------------------------
// __syncthreads cost.

__global__ void bar_loop(unsigned iters, u64* res)
{
    __syncthreads();
    u64 t0 = clock64();
    for (unsigned i = 0; i < iters; ++i) __syncthreads();
    u64 t1 = clock64();
    if (threadIdx.x == 0) res[0] = t1 - t0;
}

static void barriers()
{
    const char* G = "barrier";
    u64* res;
    cudaMalloc(&res, 8);
    for (unsigned warps : {1u, 2u, 4u, 8u, 16u, 32u}) {
        std::string name = fmt("syncthreads_%uwarps", warps);
        const unsigned iters = 4096;
        bar_loop<<<1, warps * 32>>>(iters, res);
        bar_loop<<<1, warps * 32>>>(iters, res);
        SYNC(G, name);
        u64 cyc;
        cudaMemcpy(&cyc, res, 8, cudaMemcpyDeviceToHost);
        emit(G, name, (double)cyc / iters, "cycles/barrier",
             fmt(", \"block\": %u, \"iters\": %u, \"note\": \"loop of bar.sync 0 with nothing between; "
                 "one block on one SM\"", warps * 32, iters));
    }
    cudaFree(res);
}

// ---------------------------------------------------------------------------
// Empty kernels: launch overhead.

__global__ void empty_kernel() {}

static void launch_overhead()
{
    const char* G = "launch";
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    struct Shape { unsigned grid, block; };
    std::vector<Shape> shapes = {{1, 32}, {1, 1024}, {(unsigned)g_sms, 128}, {(unsigned)g_sms, 1024},
                                 {(unsigned)g_sms * 4, 128}, {(unsigned)g_sms * 16, 128},
                                 {(unsigned)g_sms * 64, 128}, {(unsigned)g_sms * 64, 1024}};
    for (auto s : shapes) {
        std::string name = fmt("empty_grid%u_block%u", s.grid, s.block);
        for (int w = 0; w < 10; ++w) empty_kernel<<<s.grid, s.block>>>();
        SYNC(G, name);
        // One launch between two events, synchronised each time.
        std::vector<float> single;
        for (int r = 0; r < 100; ++r) {
            cudaEventRecord(e0);
            empty_kernel<<<s.grid, s.block>>>();
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float t;
            cudaEventElapsedTime(&t, e0, e1);
            single.push_back(t * 1000.0f);
        }
        std::sort(single.begin(), single.end());
        // Back-to-back launches.
        const int n = 1000;
        cudaEventRecord(e0);
        auto h0 = std::chrono::steady_clock::now();
        for (int r = 0; r < n; ++r) empty_kernel<<<s.grid, s.block>>>();
        auto h1 = std::chrono::steady_clock::now();
        cudaEventRecord(e1);
        SYNC(G, name);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        double host_us = std::chrono::duration<double, std::micro>(h1 - h0).count() / n;
        emit(G, name, single[50], "us",
             fmt(", \"what\": \"median event-to-event time of one launch (100 tries)\", \"grid\": %u, "
                 "\"block\": %u, \"single_us_min\": %.3f, \"single_us_p90\": %.3f, "
                 "\"back_to_back_us_per_launch\": %.3f, \"host_launch_call_us\": %.3f",
                 s.grid, s.block, single[0], single[90], t * 1000.0 / n, host_us));
    }
}

// ---------------------------------------------------------------------------
// Bandwidth. bw_read: block b reads its own chunk with 16-byte loads; the
// dynamic shared memory (> half an SM's) keeps one block per SM, so the grid
// size is the number of SMs reading.

__global__ void bw_read(const uint4* in, size_t per_block, unsigned* sink, unsigned* smid)
{
    extern __shared__ unsigned pad[];
    const uint4* p = in + (size_t)blockIdx.x * per_block;
    unsigned acc = 0;
    size_t i = threadIdx.x;
    for (; i + 3 * blockDim.x < per_block; i += 4 * blockDim.x) {
        uint4 a = __ldcs(p + i), b = __ldcs(p + i + blockDim.x), c = __ldcs(p + i + 2 * blockDim.x),
              d = __ldcs(p + i + 3 * blockDim.x);
        acc += a.x ^ b.y ^ c.z ^ d.w;
    }
    for (; i < per_block; i += blockDim.x) acc += __ldcs(p + i).x;
    if (acc == 0x12345678u) pad[0] = acc;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0) {
        unsigned s;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        smid[blockIdx.x] = s;
    }
}

__global__ void bw_write(uint4* out, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        __stcs(out + i, make_uint4((unsigned)i, 0, 0, 0));
}

__global__ void bw_copy(uint4* out, const uint4* in, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        out[i] = __ldcs(in + i);
}

__global__ void bw_l2(const uint4* in, size_t n, unsigned passes, unsigned* sink)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (unsigned p = 0; p < passes; ++p)
        for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
            uint4 v = __ldcg(in + i);
            acc += v.x ^ v.w;
        }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static double median3(cudaEvent_t e0, cudaEvent_t e1, std::vector<float>& ms)
{
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

static void bandwidth()
{
    const char* G = "bandwidth";
    const size_t total = (size_t)1 << 30;   // 1 GiB
    uint4 *buf, *buf2;
    unsigned *sink, *smid;
    if (!ok(cudaMalloc(&buf, total), G, "alloc")) return;
    if (!ok(cudaMalloc(&buf2, total), G, "alloc")) return;
    cudaMalloc(&sink, 4 * 1024 * 1024);
    cudaMalloc(&smid, 4 * 4096);
    cudaMemset(buf, 1, total);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const int smem = 120 * 1024;
    if (!ok(cudaFuncSetAttribute(bw_read, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), G,
            "attr")) return;
    std::vector<int> ks = {1, 2, 4, 8, 16, 24, 32, 48, 64, 80, 96, 112, g_sms};
    for (int k : ks) {
        if (k > g_sms) continue;
        std::string name = fmt("dram_read_%dsm", k);
        // Each SM reads total/k bytes, capped at 256 MiB (enough to dwarf the L2).
        size_t bytes = std::min(total / k, (size_t)256 << 20);
        size_t per_block = bytes / 16;
        std::vector<float> ms;
        for (int r = 0; r < 3; ++r) {
            cudaEventRecord(e0);
            bw_read<<<k, 1024, smem>>>(buf, per_block, sink, smid);
            cudaEventRecord(e1);
            SYNC(G, name);
            float t;
            cudaEventElapsedTime(&t, e0, e1);
            ms.push_back(t);
        }
        double m = median3(e0, e1, ms);
        std::vector<unsigned> sm(k);
        cudaMemcpy(sm.data(), smid, 4 * k, cudaMemcpyDeviceToHost);
        std::sort(sm.begin(), sm.end());
        int distinct = (int)(std::unique(sm.begin(), sm.end()) - sm.begin());
        double read = (double)per_block * 16 * k;
        emit(G, name, read / (m * 1e-3) / 1e9, "GB/s",
             fmt(", \"sms\": %d, \"distinct_smids\": %d, \"bytes\": %.0f, \"ms_median\": %.4f, "
                 "\"ms_min\": %.4f, \"ms_max\": %.4f, \"load\": \"ld.global.cs.v4 (__ldcs)\"",
                 k, distinct, read, m, ms[0], ms[2]));
    }
    {
        std::string name = "dram_write_all";
        size_t n = total / 16;
        std::vector<float> ms;
        for (int r = 0; r < 3; ++r) {
            cudaEventRecord(e0);
            bw_write<<<g_sms * 8, 512>>>(buf2, n);
            cudaEventRecord(e1);
            SYNC(G, name);
            float t;
            cudaEventElapsedTime(&t, e0, e1);
            ms.push_back(t);
        }
        double m = median3(e0, e1, ms);
        emit(G, name, (double)total / (m * 1e-3) / 1e9, "GB/s",
             fmt(", \"bytes\": %zu, \"ms_median\": %.4f, \"grid\": %d, \"block\": 512", total, m, g_sms * 8));
    }
    {
        std::string name = "dram_copy_all";
        size_t n = total / 16;
        std::vector<float> ms;
        for (int r = 0; r < 3; ++r) {
            cudaEventRecord(e0);
            bw_copy<<<g_sms * 8, 512>>>(buf2, buf, n);
            cudaEventRecord(e1);
            SYNC(G, name);
            float t;
            cudaEventElapsedTime(&t, e0, e1);
            ms.push_back(t);
        }
        double m = median3(e0, e1, ms);
        emit(G, name, 2.0 * total / (m * 1e-3) / 1e9, "GB/s",
             fmt(", \"what\": \"bytes read + bytes written\", \"bytes_each_way\": %zu, \"ms_median\": %.4f", total, m));
    }
    for (size_t mb : {(size_t)4, (size_t)16, (size_t)32}) {
        std::string name = fmt("l2_read_%zuMiB", mb);
        size_t n = (mb << 20) / 16;
        const unsigned passes = 20;
        bw_l2<<<g_sms * 4, 512>>>(buf, n, 1, sink);
        std::vector<float> ms;
        for (int r = 0; r < 3; ++r) {
            cudaEventRecord(e0);
            bw_l2<<<g_sms * 4, 512>>>(buf, n, passes, sink);
            cudaEventRecord(e1);
            SYNC(G, name);
            float t;
            cudaEventElapsedTime(&t, e0, e1);
            ms.push_back(t);
        }
        double m = median3(e0, e1, ms);
        emit(G, name, (double)(mb << 20) * passes / (m * 1e-3) / 1e9, "GB/s",
             fmt(", \"working_set_bytes\": %zu, \"passes\": %u, \"ms_median\": %.4f, \"load\": \"ld.global.cg.v4\"",
                 mb << 20, passes, m));
    }
    cudaFree(buf);
    cudaFree(buf2);
    cudaFree(sink);
    cudaFree(smid);
}

// ---------------------------------------------------------------------------
// SM clock: clock64 cycles against %globaltimer nanoseconds over a spin.

__global__ void clock_rate(u64 spin, u64* res)
{
    u64 g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    u64 c0 = clock64(), c1;
    do { c1 = clock64(); } while (c1 - c0 < spin);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    res[0] = c1 - c0;
    res[1] = g1 - g0;
}

static void sm_clock(const char* when)
{
    const char* G = "clock";
    std::string name = fmt("sm_clock_%s", when);
    u64* res;
    cudaMalloc(&res, 16);
    clock_rate<<<1, 1>>>(1000000, res);
    clock_rate<<<1, 1>>>(40000000, res);
    SYNC(G, name);
    u64 h[2];
    cudaMemcpy(h, res, 16, cudaMemcpyDeviceToHost);
    emit(G, name, (double)h[0] / (double)h[1] * 1000.0, "MHz",
         fmt(", \"cycles\": %llu, \"ns\": %llu, \"what\": \"clock64 ticks per %%globaltimer ns, one "
             "thread spinning (the clock while the SM is busy)\"", h[0], h[1]));
    cudaFree(res);
}

// ---------------------------------------------------------------------------

static void device_info()
{
    cudaDeviceProp p;
    if (!ok(cudaGetDeviceProperties(&p, 0), "device", "props")) return;
    g_sms = p.multiProcessorCount;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    emit("device", "properties", (double)p.multiProcessorCount, "SMs",
         fmt(", \"gpu\": \"%s\", \"cc\": \"%d.%d\", \"l2_bytes\": %d, \"persisting_l2_max_bytes\": %d, "
             "\"smem_per_sm\": %zu, \"smem_per_block_optin\": %zu, \"regs_per_sm\": %d, "
             "\"max_threads_per_sm\": %d, \"max_blocks_per_sm\": %d, \"global_mem_bytes\": %zu, "
             "\"driver_version\": %d, \"runtime_version\": %d",
             p.name, p.major, p.minor, p.l2CacheSize, p.persistingL2CacheMaxSize,
             p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.regsPerMultiprocessor,
             p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.totalGlobalMem, drv, rt));
}

static void latencies()
{
    // L1 hit: 64 lines of 128 B, warm lap first.
    chase_case("l1_hit", 0, 8 << 10, 128, 64, false, true, false, 4096);
    chase_case("l1_hit_random", 0, 16 << 10, 128, 128, true, true, false, 4096);
    // L2 hit: 4096 random lines of a 4 MiB region, L1 bypassed, warm lap first.
    chase_case("l2_hit", 1, 4 << 20, 128, 4096, true, true, false, 4096);
    chase_case("l2_hit_via_l1_miss", 0, 16 << 20, 128, 8192, true, true, false, 8192);
    // DRAM: cold chases after a 256 MiB write has flushed the L2.
    chase_case("dram_random_64MiB", 1, 64 << 20, 128, 4096, true, false, true, 4096);
    chase_case("dram_random_1GiB", 1, (size_t)1 << 30, 128, 4096, true, false, true, 4096);
    chase_case("dram_seq_4KiB_stride", 1, 64 << 20, 4096, 4096, false, false, true, 4096);
    near_far();
    shared_const_latency();
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "all";
    if (!strcmp(mode, "launch")) {
        // Under ncu: 3 launches of each shape (ncu reports gpu__time_duration).
        cudaFree(0);
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        unsigned sms = p.multiProcessorCount;
        unsigned shapes[][2] = {{1, 32}, {1, 1024}, {sms, 128}, {sms, 1024}, {sms * 4, 128},
                                {sms * 16, 128}, {sms * 64, 128}, {sms * 64, 1024}};
        for (auto& s : shapes)
            for (int r = 0; r < 3; ++r) empty_kernel<<<s[0], s[1]>>>();
        cudaError_t e = cudaDeviceSynchronize();
        printf("launch: %s\n", cudaGetErrorString(e));
        return e == cudaSuccess ? 0 : 1;
    }
    const char* path = argc > 2 ? argv[2] : "micro.jsonl";
    g_out = fopen(path, "w");
    if (!g_out) {
        perror(path);
        return 2;
    }
    device_info();
    if (g_sms == 0) return 1;
    if (!strcmp(mode, "ops")) {
        // Only the instruction chains (run under ncu to cross-check the
        // clock64 figures with the profiler's issue and pipe counters).
        ops();
        fclose(g_out);
        return g_errors ? 3 : 0;
    }
    sm_clock("start");
    latencies();
    ops();
    global_atomics();
    barriers();
    launch_overhead();
    bandwidth();
    sm_clock("end");
    fclose(g_out);
    fprintf(stderr, "micro: %d error(s)\n", g_errors);
    return g_errors ? 3 : 0;
}
