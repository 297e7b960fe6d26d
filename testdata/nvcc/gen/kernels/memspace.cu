// memspace.cu — memory spaces and addressing: __constant__ arrays written
// through the spec's symbols, an initialised __constant__ table, __device__
// globals, static and dynamic shared memory, local arrays with runtime
// indices, generic pointers into shared/global/local/const passed to a
// non-inlined function (cvta, isspacep), vector loads/stores, cache-hinted
// and volatile accesses, 2D/3D grids and special registers, a grid-stride
// loop, and every scalar parameter type.

__constant__ float coef[16];                // symbols: written by the spec
__constant__ int lut[256];                  // symbols: written by the spec
__constant__ unsigned ctab_init[8] = {1u, 3u, 7u, 15u, 31u, 63u, 127u, 255u};

// Uniform (broadcast) and divergent constant-memory reads. out K=2.
__global__ void const_mem(float* out, const float* in, const unsigned* idx, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = in[i];
    const unsigned k = idx[i];
    const float uniform = coef[0] + coef[15];
    const float divergent = coef[k & 15];
    out[2 * i] = x * divergent + uniform;
    out[2 * i + 1] = (float)(lut[k & 255] + (int)ctab_init[k & 7]);
}

__device__ float g_scale;                   // symbols: written by the spec
__device__ int g_table[64];                 // symbols: written by the spec
__device__ unsigned long long g_wide = 0x0123456789abcdefull;   // initialised

// __device__ globals: each thread updates its own element, then reads it back.
// One block of 64 threads.
__global__ void device_globals(float* out, unsigned long long* out64)
{
    unsigned t = threadIdx.x;
    g_table[t] += (int)t * 3;
    __threadfence_block();
    out[t] = (float)g_table[t] * g_scale;
    out64[t] = g_wide ^ t;
}

// Static shared arrays of three element widths; block-reversed reads.
__global__ void shared_static(float* out, double* outd, unsigned char* outb, const float* in)
{
    __shared__ float s[256];
    __shared__ double sd[256];
    __shared__ unsigned char sb[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    const float v = in[i];
    s[t] = v;
    sd[t] = (double)v * 2.0;
    sb[t] = (unsigned char)(i * 7u);
    __syncthreads();
    unsigned r = blockDim.x - 1 - t;
    out[i] = s[r] + s[(t + 1) % blockDim.x];
    outd[i] = sd[r];
    outb[i] = sb[r] ^ sb[t];
}

// Dynamic shared memory (extern __shared__): blockDim.x * per_thread floats.
// dsz receives %dynamic_smem_size for every block.
extern __shared__ float dyn_smem[];

__global__ void dynamic_shared(float* out, unsigned* dsz, const float* in, unsigned per_thread)
{
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    const float v = in[i];
    for (unsigned k = 0; k < per_thread; ++k)
        dyn_smem[k * blockDim.x + t] = v * (float)(k + 1);
    __syncthreads();
    float acc = 0.0f;
    for (unsigned k = 0; k < per_thread; ++k)
        acc += dyn_smem[k * blockDim.x + (blockDim.x - 1 - t)];
    out[i] = acc;
    if (t == 0) {
        unsigned s;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(s));
        dsz[blockIdx.x] = s;
    }
}

// Local arrays indexed at run time (a .local depot): a read-modify-write at
// a data-dependent index and a per-thread insertion sort of 16 floats.
__global__ void local_array(int* out, float* outf, const int* idx, const float* vals, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int arr[32];
    for (int k = 0; k < 32; ++k)
        arr[k] = (int)(i * 31u + (unsigned)(k * k));
    const unsigned j = (unsigned)idx[i] & 31u;
    arr[j] += 1000;
    int s = 0;
    for (int k = 0; k < 4; ++k)
        s += arr[(j + (unsigned)k * 7u) & 31u];
    out[i] = s;
    float v[16];
    for (int k = 0; k < 16; ++k)
        v[k] = vals[i * 16 + k];
    for (int k = 1; k < 16; ++k) {
        float key = v[k];
        int m = k - 1;
        while (m >= 0 && v[m] > key) { v[m + 1] = v[m]; --m; }
        v[m + 1] = key;
    }
    for (int k = 0; k < 16; ++k)
        outf[i * 16 + k] = v[k];
}

// Generic pointers into each state space, handled by one non-inlined
// function each (ld through a generic address; isspacep).
__constant__ float cvals[8];                // symbols: written by the spec

__device__ __noinline__ float sum_generic(const float* p, int count)
{
    float s = 0.0f;
    for (int k = 0; k < count; ++k)
        s += p[k];
    return s;
}

__device__ __noinline__ unsigned classify(const void* p)
{
    return (__isShared(p) ? 1u : 0u) | (__isGlobal(p) ? 2u : 0u)
         | (__isLocal(p) ? 4u : 0u) | (__isConstant(p) ? 8u : 0u);
}

// One block of 64 threads; in has n + 8 elements. out K=4, cls K=4.
__global__ void generic_ptr(float* out, unsigned* cls, const float* in, unsigned n)
{
    __shared__ float sh[64];
    float loc[8];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    sh[t] = in[i] * 2.0f;
    for (int k = 0; k < 8; ++k)
        loc[k] = in[i + k] - 1.0f;
    __syncthreads();
    const int cnt = 1 + (int)(t & 7u);
    out[4 * i] = sum_generic(in + i, cnt);
    out[4 * i + 1] = sum_generic(sh + (t & 56u), cnt);
    out[4 * i + 2] = sum_generic(loc, cnt);
    out[4 * i + 3] = sum_generic(cvals, cnt);
    cls[4 * i] = classify(in + i);
    cls[4 * i + 1] = classify(sh + t);
    cls[4 * i + 2] = classify(loc + (t & 7u));
    cls[4 * i + 3] = classify(&cvals[t & 7u]);
}

// Vector loads and stores: float4, int2, double2, uchar4, and an __ldg of a
// float4 (ld.global.nc.v4). o4 holds 2n float4.
__global__ void vector_ldst(float4* o4, int2* oi2, double2* od2, uchar4* ob4, const float4* a4,
                            const int2* ai2, const double2* ad2, const uchar4* ab4, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 v = a4[i];
    o4[i] = make_float4(v.w, v.z + 1.0f, v.y * 2.0f, v.x);
    const int2 p = ai2[i];
    oi2[i] = make_int2(p.y ^ p.x, p.x);
    const double2 d = ad2[i];
    od2[i] = make_double2(d.y, d.x - 1.0);
    const uchar4 b = ab4[i];
    ob4[i] = make_uchar4(b.w, b.z, (unsigned char)(b.y + 1), b.x);
    o4[n + i] = __ldg(a4 + (n - 1 - i));
}

// Cache-operator loads/stores (ld.global.nc/.cg/.ca/.cs/.lu/.cv,
// st.global.wb/.cg/.cs/.wt) and volatile accesses. out K=6.
__global__ void cache_hints(float* out, volatile float* vol, const float* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float a = __ldg(in + i);
    const float b = __ldcg(in + (i + 1) % n);
    const float c = __ldca(in + (i + 2) % n);
    const float d = __ldcs(in + (i + 3) % n);
    const float e = __ldlu(in + (i + 4) % n);
    const float f = __ldcv(in + (i + 5) % n);
    __stwb(out + 6 * i, a);
    __stcg(out + 6 * i + 1, b);
    __stcs(out + 6 * i + 2, c);
    __stwt(out + 6 * i + 3, d);
    out[6 * i + 4] = e;
    vol[i] = f;                  // st.volatile
    out[6 * i + 5] = vol[i] * 2.0f;   // ld.volatile
}

// 3D grid and block: %tid/%ntid/%ctaid/%nctaid in x, y, z, %laneid and the
// lane masks. out K=8 per thread, threads numbered block-major.
__global__ void grid3d(unsigned* out)
{
    const unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
    const unsigned block_lin = (bz * gridDim.y + by) * gridDim.x + bx;
    const unsigned thr_lin = (tz * blockDim.y + ty) * blockDim.x + tx;
    const unsigned g = block_lin * (blockDim.x * blockDim.y * blockDim.z) + thr_lin;
    unsigned lane, lt, le, gt, ge, eq;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    unsigned* o = out + g * 8;
    o[0] = tx | (ty << 8) | (tz << 16);
    o[1] = bx | (by << 8) | (bz << 16);
    o[2] = blockDim.x | (blockDim.y << 8) | (blockDim.z << 16);
    o[3] = gridDim.x | (gridDim.y << 8) | (gridDim.z << 16);
    o[4] = lane;
    o[5] = lt;
    o[6] = ge;
    o[7] = eq ^ gt ^ (le << 1);
}

// Grid-stride loop (saxpy) with fewer threads than elements.
__global__ void saxpy_grid_stride(float* y, const float* x, float a, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// Every scalar parameter type (.param .u8/.s8/.u16/.s16/.u32/.s32/.u64/.s64/
// .f32/.f64). Each thread writes the same 10 values plus its index.
__global__ void param_types(unsigned long long* out, unsigned char u8, signed char s8,
                            unsigned short u16, short s16, unsigned u32, int s32,
                            unsigned long long u64, long long s64, float f32, double f64)
{
    unsigned i = threadIdx.x;
    unsigned long long* o = out + i * 11;
    o[0] = u8;
    o[1] = (unsigned long long)(long long)s8;
    o[2] = u16;
    o[3] = (unsigned long long)(long long)s16;
    o[4] = u32;
    o[5] = (unsigned long long)(long long)s32;
    o[6] = u64;
    o[7] = (unsigned long long)s64;
    o[8] = __double_as_longlong((double)f32);
    o[9] = (unsigned long long)__double_as_longlong(f64);
    o[10] = i;
}
