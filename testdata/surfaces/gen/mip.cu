// ptxvm issue 28, second recording: mipmapped textures (tex.level, tex.grad),
// mipmapped cube and layered textures, tld4 on cube/layered shapes.
// Compiled once per kernel family (-DFAM=n) so that a module the driver
// refuses spoils only its own family. main(DIR, GROUP) runs one group.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cmath>
#include <string>
#include <vector>
#include <sys/stat.h>
#include <cuda_runtime.h>

#ifndef FAM
#define FAM 0
#endif
__global__ void sanity(int* out) { out[threadIdx.x] = threadIdx.x * 3 + 1; }
#if FAM == 1
__global__ void k_lod1d(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1DLod<float>(t, c[2 * i], c[2 * i + 1]);
}
#endif
#if FAM == 2
__global__ void k_lod2d(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex2DLod<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
#endif
#if FAM == 3
__global__ void k_lod3d(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex3DLod<float>(t, c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]);
}
#endif
#if FAM == 4
__global__ void k_grad1d(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1DGrad<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
#endif
#if FAM == 5
__global__ void k_grad2d(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p = c + 6 * i;
    out[i] = tex2DGrad<float>(t, p[0], p[1], make_float2(p[2], p[3]), make_float2(p[4], p[5]));
}
#endif
#if FAM == 6
__global__ void k_grad3d(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p = c + 9 * i;
    out[i] = tex3DGrad<float>(t, p[0], p[1], p[2], make_float4(p[3], p[4], p[5], 0), make_float4(p[6], p[7], p[8], 0));
}
#endif
#if FAM == 7
__global__ void k_lodcube(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = texCubemapLod<float>(t, c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]);
}
#endif
#if FAM == 8
__global__ void k_lod2dl(float* out, cudaTextureObject_t t, const float* c, const int* layer, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex2DLayeredLod<float>(t, c[3 * i], c[3 * i + 1], layer[i], c[3 * i + 2]);
}
#endif
#if FAM == 9
// tld4 on a cube map: gather of the four texels, component r.
__global__ void k_tld4cube(float4* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 r;
    asm volatile("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(c[3 * i]), "f"(c[3 * i + 1]), "f"(c[3 * i + 2]));
    out[i] = r;
}
#endif
#if FAM == 10
// tld4 on a 2D layered texture: component r; the layer is the vector's first element.
__global__ void k_tld4a2d(float4* out, cudaTextureObject_t t, const float* c, const int* layer, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 r;
    asm volatile("tld4.r.a2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "r"(layer[i]), "f"(c[2 * i]), "f"(c[2 * i + 1]));
    out[i] = r;
}
#endif
#if FAM == 11
// tld4 on a cube-layered texture.
__global__ void k_tld4acube(float4* out, cudaTextureObject_t t, const float* c, const int* layer, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 r;
    asm volatile("tld4.r.acube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "r"(layer[i]), "f"(c[3 * i]), "f"(c[3 * i + 1]), "f"(c[3 * i + 2]));
    out[i] = r;
}
#endif
#if FAM == 12
__global__ void k_cube(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = texCubemap<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
#endif
#if FAM == 13
// tex.grad on a cube map (texCubemapGrad: the gradients are float4, w unused).
__global__ void k_gradcube(float* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p = c + 9 * i;
    out[i] = texCubemapGrad<float>(t, p[0], p[1], p[2], make_float4(p[3], p[4], p[5], 0), make_float4(p[6], p[7], p[8], 0));
}
#endif
#if FAM == 14
// tld4 (tex2Dgather) on a mipmapped 2D texture, components r and a.
__global__ void k_tld4mip(float4* out, cudaTextureObject_t t, const float* c, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[2 * i] = tex2Dgather<float4>(t, c[2 * i], c[2 * i + 1], 0);
    out[2 * i + 1] = tex2Dgather<float4>(t, c[2 * i], c[2 * i + 1], 3);
}
#endif

// ---------------------------------------------------------------- host
static std::string g_dir;
static FILE* g_list;
static int g_fail;
static bool ok(cudaError_t e, const char* what, const char* launch)
{
    if (e == cudaSuccess) return true;
    fprintf(g_list, "%s: ERROR %s: %s (%s)\n", launch, what, cudaGetErrorName(e), cudaGetErrorString(e));
    fflush(g_list);
    g_fail = 1;
    return false;
}
static void save(const char* launch, const char* name, const void* p, size_t n)
{
    std::string d = g_dir + "/" + launch;
    mkdir(d.c_str(), 0755);
    std::string f = d + "/" + name + ".bin";
    FILE* o = fopen(f.c_str(), "wb");
    if (!o) { perror(f.c_str()); g_fail = 1; return; }
    fwrite(p, 1, n, o);
    fclose(o);
}
static uint32_t g_seed;
static uint32_t rnd() { g_seed = g_seed * 1664525u + 1013904223u; return g_seed >> 8; }
static float frange(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() & 0xffff) / 65536.0f; }
template <typename T> static T* dev(const std::vector<T>& h)
{
    T* d = nullptr;
    cudaMalloc(&d, h.size() * sizeof(T) + 16);
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}
template <typename T> static std::vector<T> back(const T* d, size_t n)
{
    std::vector<T> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
}
static cudaError_t copyarr(cudaArray_t a, void* host, int w, int h, int d, int eb)
{
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host, (size_t)w * eb, w, h ? h : 1);
    p.dstArray = a;
    p.kind = cudaMemcpyHostToDevice;
    p.extent = make_cudaExtent(w, h ? h : 1, d ? d : 1);
    return cudaMemcpy3D(&p);
}

struct Mip {
    int dims;          // 1, 2, 3, 4 = cube, 5 = 2D layered
    int w0, h0, d0;    // d0: depth (3D) or layers (layered, cube: 6 * layers)
    int levels;
    int content;       // 0 random floats, 1 level k filled with the constant k
    cudaTextureFilterMode fm, mfm;
    cudaTextureAddressMode am;
    float bias, minc, maxc;
    int aniso;
};

// A mipmapped float texture; every level saved as levelK.bin (w x h x d floats).
static cudaTextureObject_t mkmip(const char* L0, const Mip& s)
{
    cudaMipmappedArray_t m = nullptr;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    unsigned flags = s.dims == 4 ? cudaArrayCubemap : s.dims == 5 ? cudaArrayLayered : 0;
    if (!ok(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(s.w0, s.h0, s.d0), s.levels, flags), "alloc", L0)) return 0;
    for (int k = 0; k < s.levels; k++) {
        cudaArray_t a;
        if (!ok(cudaGetMipmappedArrayLevel(&a, m, k), "level", L0)) return 0;
        int w = s.w0 >> k, h = s.h0 >> k, d = s.dims == 3 ? s.d0 >> k : s.d0;
        if (w < 1) w = 1;
        if (s.h0 && h < 1) h = 1;
        if (s.d0 && d < 1) d = 1;
        size_t n = (size_t)w * (h ? h : 1) * (d ? d : 1);
        std::vector<float> v(n);
        for (auto& x : v) x = s.content ? (float)k : frange(-1.0f, 2.0f);
        char nm[16];
        snprintf(nm, sizeof nm, "level%d", k);
        if (s.w0 <= 64) save(L0, nm, v.data(), v.size() * 4);   // (the 256 ones: level k holds k)
        if (!ok(copyarr(a, v.data(), w, h, d, 4), "copy level", L0)) return 0;
    }
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeMipmappedArray;
    r.res.mipmap.mipmap = m;
    cudaTextureDesc t = {};
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = s.am;
    t.filterMode = s.fm;
    t.readMode = cudaReadModeElementType;
    t.normalizedCoords = 1;
    t.mipmapFilterMode = s.mfm;
    t.mipmapLevelBias = s.bias;
    t.minMipmapLevelClamp = s.minc;
    t.maxMipmapLevelClamp = s.maxc;
    t.maxAnisotropy = s.aniso;
    cudaTextureObject_t o = 0;
    if (!ok(cudaCreateTextureObject(&o, &r, &t, nullptr), "create texture", L0)) return 0;
    fprintf(g_list, "%s texture dims=%d size=%dx%dx%d levels=%d content=%s filter=%d mipfilter=%d address=%d bias=%g minclamp=%g maxclamp=%g maxaniso=%d\n",
            L0, s.dims, s.w0, s.h0, s.d0, s.levels, s.content ? "constant" : "random", (int)s.fm, (int)s.mfm, (int)s.am,
            s.bias, s.minc, s.maxc, s.aniso);
    return o;
}
static Mip mip(int dims, int content, cudaTextureFilterMode fm, cudaTextureFilterMode mfm, cudaTextureAddressMode am = cudaAddressModeClamp)
{
    Mip s = {};
    s.dims = dims;
    s.content = content;
    s.fm = fm;
    s.mfm = mfm;
    s.am = am;
    if (dims == 1) { s.w0 = 64; s.levels = 7; }
    if (dims == 2) { s.w0 = 32; s.h0 = 16; s.levels = 6; }
    if (dims == 3) { s.w0 = 16; s.h0 = 16; s.d0 = 4; s.levels = 5; }
    if (dims == 4) { s.w0 = 16; s.h0 = 16; s.d0 = 6; s.levels = 5; }
    if (dims == 5) { s.w0 = 16; s.h0 = 8; s.d0 = 3; s.levels = 5; }
    s.maxc = (float)(s.levels - 1);
    s.aniso = 1;
    return s;
}

static const int B = 128;
static float* g_out;
static bool finish(const char* L0, const std::vector<float>& c, size_t n, size_t per)
{
    if (!ok(cudaGetLastError(), "launch error", L0) || !ok(cudaDeviceSynchronize(), "launch", L0)) return false;
    auto ho = back(g_out, n * per);
    save(L0, "coords", c.data(), c.size() * 4);
    save(L0, "out", ho.data(), ho.size() * 4);
    fprintf(g_list, "%s n=%zu ok\n", L0, n);
    return true;
}

// LOD inputs: a sweep in steps of 1/step from lo, then special values.
static std::vector<float> lodsweep(float lo, float hi, int step)
{
    std::vector<float> v;
    for (int i = 0; lo + (float)i / step <= hi; i++) v.push_back(lo + (float)i / step);
    const float sp[] = {-0.0f, INFINITY, -INFINITY, NAN, 1e-7f, -1e-7f, 0.5f - 1.0f / 4096, 0.5f + 1.0f / 4096, 100.0f, -100.0f};
    for (float x : sp) v.push_back(x);
    while (v.size() % B) v.push_back(0.25f);
    return v;
}

// Gradient shapes (texel units tx, ty, tz of level 0 scale the normalized gradients).
static void gradients(std::vector<float>& g, int dims, int w, int h, int d, int n)
{
    // family 0: isotropic in texels, magnitude 2^t, t in [-1.5, 6.5] step 1/64
    for (int i = 0; i <= 512; i++) {
        float m = exp2f(-1.5f + i / 64.0f);
        float a[3] = {m / w, 0, 0}, b[3] = {0, h ? m / h : 0, 0}, e[3] = {0, 0, d ? m / d : 0};
        if (dims == 1) { g.push_back(a[0]); g.push_back(0); continue; }
        for (int k = 0; k < dims; k++) g.push_back(a[k]);
        for (int k = 0; k < dims; k++) g.push_back(b[k]);
        if (dims == 3) { /* third axis folded into dy */ g[g.size() - 1] = e[2]; }
    }
    // family 1: anisotropic ratios 1..16 in texels along x vs y, and rotations
    for (int i = 0; i < 768; i++) {
        float m = exp2f(frange(-1.0f, 5.5f));
        float r = exp2f(frange(0.0f, 4.0f));
        float an = (i % 3 == 0) ? 0.0f : frange(0.0f, 6.2831853f);
        float cx = cosf(an), sx = sinf(an);
        if (dims == 1) { g.push_back(m / w * (i % 2 ? 1 : -1)); g.push_back(m / w / r * (i % 3 ? 1 : -1)); continue; }
        float ax = m * cx, ay = m * sx, bx = -m / r * sx, by = m / r * cx;
        if (i % 4 == 1) { float t = ax; ax = bx; bx = t; t = ay; ay = by; by = t; }
        g.push_back(ax / w); g.push_back(ay / h);
        if (dims == 3) g.push_back(frange(-1, 1) * m / d);
        g.push_back(bx / w); g.push_back(by / h);
        if (dims == 3) g.push_back(frange(-1, 1) * m / r / d);
    }
    // family 2: one gradient zero, the other along an axis or diagonal; exact powers of two
    for (int i = 0; i < 64; i++) {
        float m = exp2f((float)(i % 8) - 1.0f);
        int which = (i / 8) % 2, diag = (i / 16) % 2;
        float vx = m / w, vy = diag ? m / (h ? h : 1) : 0;
        if (dims == 1) { g.push_back(which ? vx : 0); g.push_back(0); continue; }
        float z = dims == 3 ? (diag ? m / d : 0) : 0;
        if (which) { g.push_back(vx); g.push_back(vy); if (dims == 3) g.push_back(z); for (int k = 0; k < dims; k++) g.push_back(0); }
        else { for (int k = 0; k < dims; k++) g.push_back(0); g.push_back(vx); g.push_back(vy); if (dims == 3) g.push_back(z); }
    }
    // pad to n with random gradients
    const int per = dims == 1 ? 2 : 2 * dims;
    while ((int)(g.size() / per) < n) {
        float m = exp2f(frange(-2.0f, 7.0f));
        for (int k = 0; k < per; k++) g.push_back(frange(-1, 1) * m / (k % dims == 0 ? w : k % dims == 1 ? h : d));
    }
}

static void run_lodsweep(const char* L0, Mip s)
{
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    auto lods = lodsweep(-1.25f, (float)s.levels + 0.25f, 512);
    const size_t n = lods.size();
    std::vector<float> c;
    for (size_t i = 0; i < n; i++) {
        // centre of the texture (a constant texture gives the same value anywhere)
        c.push_back(0.37f);
        if (s.dims >= 2) c.push_back(0.61f);
        if (s.dims == 3 || s.dims == 4) c.push_back(s.dims == 4 ? 1.0f : 0.43f);
        c.push_back(lods[i]);
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 1
    k_lod1d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 2
    k_lod2d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 3
    k_lod3d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 7
    k_lodcube<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

static void run_lodrand(const char* L0, Mip s, int n)
{
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    std::vector<float> c;
    std::vector<int> lay;
    for (int i = 0; i < n; i++) {
        if (s.dims == 4) {
            float x = frange(-1, 1), y = frange(-1, 1), z = frange(-1, 1);
            c.push_back(x); c.push_back(y); c.push_back(z);
        } else {
            c.push_back(frange(-0.2f, 1.2f));
            if (s.dims >= 2) c.push_back(frange(-0.2f, 1.2f));
            if (s.dims == 3) c.push_back(frange(-0.2f, 1.2f));
        }
        float lod = frange(-1.0f, (float)s.levels + 0.5f);
        if (i % 8 == 0) lod = (float)(i / 8 % (s.levels + 2)) - 1.0f;
        if (i % 8 == 1) lod = floorf(lod) + 0.5f;
        c.push_back(lod);
        lay.push_back((int)(rnd() % (unsigned)(s.d0 ? s.d0 : 1)));
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 1
    k_lod1d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 2
    k_lod2d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 3
    k_lod3d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 7
    k_lodcube<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 8
    int* dl = dev(lay);
    save(L0, "layer", lay.data(), lay.size() * 4);
    k_lod2dl<<<n / B, B>>>(g_out, t, dc, dl, n);
#endif
    finish(L0, c, n, 1);
}

// Gradient probes on a constant-level 2D texture (32x16): the level of
// detail as a function of one texel-space quantity at a time.
//   kind 0: dx = (r, 0) texels, r = 2^(j/4096) for j in [0, 4096): the log2.
//   kind 1: dx = (1, 0), dy = (t, 0) texels (both along u), t = j/2048.
//   kind 2: dx = (1, t) texels (one vector), t = j/2048.
//   kind 3: dx = (1, 0), dy = (0, t) texels (orthogonal), t = j/2048.
//   kind 4: dx = (1, t), dy = (-t, 1)·s (rotated pairs), t = j/2048, s = 1 - j/8192.
static void run_gradprobe(const char* L0, int kind)
{
    Mip s = mip(2, 1, cudaFilterModeLinear, cudaFilterModeLinear);
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    const int n = kind == 0 || kind >= 5 ? 4096 : 2048;  // kinds >= 10 also 4096
    const float W = 32, H = 16, k = kind >= 5 ? 1.0f : 4.0f;   // scale 4: LOD about 2, inside [0, 5]
    std::vector<float> c;
    for (int j = 0; j < n; j++) {
        float ax = 0, ay = 0, bx = 0, by = 0;
        float u = (float)j / 2048;
        if (kind == 0) ax = exp2f((float)j / 4096);
        if (kind == 1) { ax = 1; bx = u; }
        if (kind == 2) { ax = 1; ay = u; }
        if (kind == 3) { ax = 1; by = u; }
        if (kind == 4) { float sc = 1 - (float)j / 8192; ax = 1; ay = u; bx = -u * sc; by = sc; }
        // kinds 5-7: random texel-space components (one vector; two along u
        // and v; two arbitrary), magnitudes in [1, 8)
        if (kind == 5) { ax = exp2f(frange(0, 3)); ay = ax * frange(-1, 1); if (j & 1) { float tt = ax; ax = ay; ay = tt; } }
        if (kind == 6) { ax = exp2f(frange(0, 3)); bx = ax * frange(-1, 1); ay = ax * frange(-1, 1) * (j % 3 == 0); by = bx * frange(-1, 1) * (j % 3 == 1); }
        if (kind == 7) { ax = exp2f(frange(0, 3)) * frange(-1, 1); ay = exp2f(frange(0, 3)) * frange(-1, 1); bx = exp2f(frange(0, 3)) * frange(-1, 1); by = exp2f(frange(0, 3)) * frange(-1, 1); }
        // kinds 10-19 (recording 7): sweeps with one exact component fixed, to
        // pin the precision of the texture unit's gradient length.
        //   10: dx = (4, t) texels, t = j/1024 (x major, M exact)
        //   11: dx = (t, 4) (y major)            12: dx = (4 + j/4096, 1.2345)
        //   13: dx = (4 + a/1024, b/1024), a, b random in [0, 4096) (12-bit grid)
        //   14: dx = (4, 0), dy = (t, 0)         15: dx = (4, 0), dy = (-t, 0)
        //   16: dx = (-4, -t)                    17: dx = (1.3125, j/4096)
        //   18: dx = (4 + a/1024, 0), dy = (b/1024, 0) random on the grid
        //   19: dx = (4, t), dy = (0, 4) (a second, orthogonal gradient)
        //   20: dx, dy random on a grid of 1/256 texel in (-8, 8)
        //   21: kind 10's gradients at random positions
        //   22: dx = (4, 2), dy = (t, t/2) (parallel: the diagonal dx + dy dominates)
        //   23: dx = (4, 1.25), dy = (-t, -0.3125·t) (antiparallel: dx - dy)
        //   (recording 8: the diagonals' rounding)
        //   24: dx = (4, 1.5), dy = (t, 0)       25: dx = (4, 0), dy = (2.5, t)
        //   26: dx = (2, 3), dy = (3, t)         27: random pairs in one quadrant, grid 1/256
        const float t4 = (float)(j % 4096) / 1024;
        if (kind == 10 || kind == 21) { ax = 4; ay = t4; }
        if (kind == 11) { ax = t4; ay = 4; }
        if (kind == 12) { ax = 4 + (float)j / 4096; ay = 1.2345f; }
        if (kind == 13) { ax = 4 + (float)(rnd() % 4096) / 1024; ay = (float)(rnd() % 4096) / 1024; if (j & 1) { float tt = ax; ax = ay; ay = tt; } }
        if (kind == 14) { ax = 4; bx = t4; }
        if (kind == 15) { ax = 4; bx = -t4; }
        if (kind == 16) { ax = -4; ay = -t4; }
        if (kind == 17) { ax = 1.3125f; ay = (float)(j % 4096) / 4096; }
        if (kind == 18) { ax = 4 + (float)(rnd() % 4096) / 1024; bx = (float)(rnd() % 4096) / 1024; if (j & 2) bx = -bx; }
        if (kind == 19) { ax = 4; ay = t4; by = 4; }
        if (kind == 22) { ax = 4; ay = 2; bx = t4; by = t4 / 2; }
        if (kind == 23) { ax = 4; ay = 1.25f; bx = -t4; by = -0.3125f * t4; }
        if (kind == 24) { ax = 4; ay = 1.5f; bx = t4; }
        if (kind == 25) { ax = 4; bx = 2.5f; by = t4; }
        if (kind == 26) { ax = 2; ay = 3; bx = 3; by = t4; }
        if (kind == 27) { ax = (int)(rnd() % 2047 + 1) / 256.0f; ay = (int)(rnd() % 2047) / 256.0f; bx = (int)(rnd() % 2047 + 1) / 256.0f; by = (int)(rnd() % 2047) / 256.0f; }
        if (kind == 20) { ax = ((int)(rnd() % 4095) - 2047) / 256.0f; ay = ((int)(rnd() % 4095) - 2047) / 256.0f; bx = ((int)(rnd() % 4095) - 2047) / 256.0f; by = ((int)(rnd() % 4095) - 2047) / 256.0f; }
        // (recording 9) the diagonal's own rule: dx = dy = v/2, so that dx + dy
        // is v exactly and dx - dy is 0 (v on grids finer than 10 bits need):
        //   28-33: v = (X, j/1024), X = 5 + {0, 1, 3, 4, 5, 7}/128
        //   34: v = (4 + (j%256)/128, Y_k), 16 values Y_k (k = j/256)
        //   35: v random, X in [4, 6) on 1/128, Y in [0, X) on 1/1024
        //   36: dx = (v + w)/2, dy = (v - w)/2: v as 35, w random, |w| < |v|/2
        //   37: v = (X, Y) with X = 4 + (j%64)/128 and Y = 2 + (j/64)/128
        //   38: dx = (2.5, Y), dy = (2.5, -e_k), Y = 1 + (j%512)/512, e_k = {0, 1, 2, 3, 5, 8, 13, 31}/16384:
        //       does dx + dy's minor component Y - e_k keep e_k's bits below Y's last bit?
        if (kind >= 28 && kind <= 37) {
            float vx = 0, vy = 0, wx = 0, wy = 0;
            const int xo[6] = {0, 1, 3, 4, 5, 7};
            if (kind <= 33) { vx = 5 + xo[kind - 28] / 128.0f; vy = (float)(j % 4096) / 1024; }
            if (kind == 34) { int q = j / 256 % 16; vx = 4 + (float)(j % 256) / 128; vy = (float)(40 + 29 * q) / 128 + (float)(q % 3) / 1024; }
            if (kind == 35 || kind == 36) { vx = 4 + (float)(rnd() % 256) / 128; vy = (float)(rnd() % (unsigned)(vx * 1024)) / 1024; if (j & 1) { float tt = vx; vx = vy; vy = tt; } }
            if (kind == 36) { wx = ((int)(rnd() % 2049) - 1024) / 1024.0f; wy = ((int)(rnd() % 2049) - 1024) / 1024.0f; }
            if (kind == 37) { vx = 4 + (float)(j % 64) / 128; vy = 2 + (float)(j / 64 % 64) / 128; }
            ax = (vx + wx) / 2; ay = (vy + wy) / 2; bx = (vx - wx) / 2; by = (vy - wy) / 2;
        }
        if (kind == 38) { const int es[8] = {0, 1, 2, 3, 5, 8, 13, 31}; ax = 2.5f; ay = 1 + (float)(j % 512) / 512; bx = 2.5f; by = -(float)es[j / 512 % 8] / 16384; }
        if (kind == 21) { c.push_back(frange(0, 1)); c.push_back(frange(0, 1)); }
        else { c.push_back(0.37f); c.push_back(0.61f); }
        c.push_back(ax * k / W); c.push_back(ay * k / H); c.push_back(bx * k / W); c.push_back(by * k / H);
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 5
    k_grad2d<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

static void run_grad(const char* L0, Mip s, int n, int randpos)
{
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    std::vector<float> g;
    gradients(g, s.dims, s.w0, s.h0, s.d0, n);
    const int per = s.dims == 1 ? 2 : 2 * s.dims;
    n = (int)(g.size() / per);
    n = (n + B - 1) / B * B;
    while ((int)(g.size() / per) < n) for (int k = 0; k < per; k++) g.push_back(0);
    std::vector<float> c;
    for (int i = 0; i < n; i++) {
        float p[3] = {0.37f, 0.61f, 0.43f};
        if (randpos) for (auto& x : p) x = frange(-0.2f, 1.2f);
        for (int k = 0; k < s.dims; k++) c.push_back(p[k]);
        if (s.dims == 1) { c.push_back(g[2 * i]); c.push_back(g[2 * i + 1]); }
        else for (int k = 0; k < per; k++) c.push_back(g[(size_t)per * i + k]);
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 4
    k_grad1d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 5
    k_grad2d<<<n / B, B>>>(g_out, t, dc, n);
#elif FAM == 6
    k_grad3d<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

// 3D gradient probes (recording 7) on a constant-level 16x16x4 texture:
//   kind 0: dx = (4, t, 0) texels, t = j/1024     1: dx = (4, 0, t)
//   kind 2: dx = (4, 0, 0), dy = (t, 0, 0)         3: one random vector
//   kind 4: two random vectors                     5: dx = (4·2^(j/4096), 0, 0)
//   kind 6: dx = (0, 0, 4·2^(j/4096))
//   (recording 8) kind 7: dx = (4, 3, 0.75·j/1024)   8: dx = (4, j/1024, 1.5)
//   kind 9: dx = (4 + j/4096, 2.5, 1.25)            10: random on a grid of 1/256
static void run_gradprobe3d(const char* L0, int kind)
{
    Mip s = mip(3, 1, cudaFilterModeLinear, cudaFilterModeLinear);
    // (recording 13, branch h28) kinds 19-21: gradients of exact powers of
    // two (and zero) in texels at random positions in [-0.2, 1.2)^3, on
    // 16x16x4, 64x32x8 and 8x16x64 textures: the lanes' f32 sums c+dx
    // round, the recorded levels say how the texture unit differences them
    if (kind == 20) { s.w0 = 64; s.h0 = 32; s.d0 = 8; s.levels = 7; s.maxc = 6; }
    if (kind == 21) { s.w0 = 8; s.h0 = 16; s.d0 = 64; s.levels = 7; s.maxc = 6; }
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    const int n = 4096;
    const float W = (float)s.w0, H = (float)s.h0, D = (float)s.d0;
    float pos[3] = {0.37f, 0.61f, 0.43f};
    std::vector<float> c;
    for (int j = 0; j < n; j++) {
        float a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
        const float u = (float)j / 1024;
        if (kind == 0) { a[0] = 4; a[1] = u; }
        if (kind == 1) { a[0] = 4; a[2] = u; }
        if (kind == 2) { a[0] = 4; b[0] = u; }
        if (kind == 3) for (float& x : a) x = exp2f(frange(0, 3)) * frange(-1, 1);
        if (kind == 4) { for (float& x : a) x = exp2f(frange(0, 3)) * frange(-1, 1); for (float& x : b) x = exp2f(frange(0, 3)) * frange(-1, 1); }
        if (kind == 5) a[0] = 4 * exp2f((float)j / 4096);
        if (kind == 6) a[2] = 4 * exp2f((float)j / 4096);
        if (kind == 7) { a[0] = 4; a[1] = 3; a[2] = u * 0.75f; }
        if (kind == 8) { a[0] = 4; a[1] = u; a[2] = 1.5f; }
        if (kind == 9) { a[0] = 4 + (float)j / 4096; a[1] = 2.5f; a[2] = 1.25f; }
        if (kind == 10) for (float& x : a) x = ((int)(rnd() % 4095) - 2047) / 256.0f;
        // (recording 9) the three-component length and the 3D diagonal:
        //   11-14: dx = (4, Y, j/1024), Y = 4, 4 - 3/256, 3 + 3/256, 2 + 190/256
        //   15: dx = (4, (j%1024)/256, Z_k), Z_k = 1 + 1/256, 1.5 + 2/256, 2.25 + 1/256, 3.125 + 1/256
        //   16: dx = (X, Y, Z) random, X in [4, 5) on 1/128, Y, Z in [0, X) on 1/1024
        //   17: dx = dy = v/2, v as 16 (the diagonal dx + dy alone)
        //   18: dx = (v + w)/2, dy = (v - w)/2, v as 16, w random in [-1, 1]^3 on 1/1024
        if (kind >= 11 && kind <= 14) { const float ys[4] = {4.0f, 4 - 3 / 256.0f, 3 + 3 / 256.0f, 2 + 190 / 256.0f}; a[0] = 4; a[1] = ys[kind - 11]; a[2] = u; }
        if (kind == 15) { const float zs[4] = {1 + 1 / 256.0f, 1.5f + 2 / 256.0f, 2.25f + 1 / 256.0f, 3.125f + 1 / 256.0f}; a[0] = 4; a[1] = (float)(j % 1024) / 256; a[2] = zs[j / 1024]; }
        if (kind >= 16 && kind <= 18) {
            float v[3], w[3] = {0, 0, 0};
            v[0] = 4 + (float)(rnd() % 128) / 128;
            v[1] = (float)(rnd() % (unsigned)(v[0] * 1024)) / 1024;
            v[2] = (float)(rnd() % (unsigned)(v[0] * 1024)) / 1024;
            int r = rnd() % 3; float tt = v[0]; v[0] = v[r]; v[r] = tt;
            if (kind == 18) for (float& x : w) x = ((int)(rnd() % 2049) - 1024) / 1024.0f;
            for (int k = 0; k < 3; k++) {
                if (kind == 16) a[k] = v[k];
                else { a[k] = (v[k] + w[k]) / 2; b[k] = (v[k] - w[k]) / 2; }
            }
        }
        if (kind >= 19 && kind <= 21) {
            for (float& x : pos) x = frange(-0.2f, 1.2f);
            for (int k = 0; k < 3; k++) {
                int e = (int)(rnd() % 6) - 2;   // 2^-2 .. 2^3 texels, or zero
                a[k] = (rnd() % 5 == 0) ? 0.0f : ((rnd() & 1) ? -1.0f : 1.0f) * exp2f((float)e);
                e = (int)(rnd() % 6) - 2;
                b[k] = (j % 2 == 0 || rnd() % 5 == 0) ? 0.0f : ((rnd() & 1) ? -1.0f : 1.0f) * exp2f((float)e);
            }
        }
        c.push_back(pos[0]); c.push_back(pos[1]); c.push_back(pos[2]);
        c.push_back(a[0] / W); c.push_back(a[1] / H); c.push_back(a[2] / D);
        c.push_back(b[0] / W); c.push_back(b[1] / H); c.push_back(b[2] / D);
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 6
    k_grad3d<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

// tex.grad on a mipmapped 16x16 cube map (recording 7): random directions,
// gradients random 3D vectors of magnitude 2^-7..2^0 (direction units).
static void run_gradcube(const char* L0, Mip s, int n)
{
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    std::vector<float> c;
    for (int i = 0; i < n; i++) {
        float v[3] = {frange(-1, 1), frange(-1, 1), frange(-1, 1)};
        if (i % 4 == 0) { v[i / 4 % 3] = (i & 8) ? -1.0f : 1.0f; }
        float m = exp2f(frange(-7, 0));
        for (float x : v) c.push_back(x);
        for (int k = 0; k < 6; k++) c.push_back(frange(-1, 1) * m * ((i % 3 == 1 && k >= 3) ? 0.0f : 1.0f));
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 13
    k_gradcube<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

// tex.grad probes on a constant-level mipmapped 16x16 cube map (recording
// 10): quads whose lanes c+dx fall on another face than c.
//   kind 0: c = (0.5, 0, 1) on +z, dx = (t, 0, 0), t = 1.5·j/4096 (c+dx crosses onto +x at t = 0.5), dy = 0
//   kind 1: c = (0.5, 0.3, 1), dx = (t, 0, 0), dy = 0 (the parallel coordinate changes too)
//   kind 2: c = (0.5, 0.3, 1), dx = (t, 0, 0), dy = (0, 0.0625, 0) (two gradients)
//   kind 3: c = (0.9, 0.2, 1), dx = (0, 0, -t), t = 0.5·j/4096 (c+dx's z shrinks below its x), dy = 0
//   kind 4: random c within 1/4 of an edge of a random face, dx random of length up to 1/2, dy = 0
//   kind 5: as 4 with dy random too
//   (recording 11) kind 6: c = (0.9, 0, 1), dx = (0, 0, -t)    7: c = (0.9, 0.4, 1), dx = (0, 0, -t)
//   kind 8: c = (0.6, 0, 1), dx = (0, 0, -t·1.2)               9: c = (0.9, 0, 1), dx = (0.05, 0, -t)
//   kind 10: c = (0.9, 0.2, 1), dx = (0, 0, -t), dy = (0, 0.0625, 0)
//   (recording 12, branch h28: the unfolded coordinate near the edge; a
//   level-of-detail bias of 6 so that gradients of 2^-6..2^-2 texels read
//   back between levels 0 and 4; e = 2^-7, T = e + j·2^-19)
//   kind 11: c = (1 - e, 0, 1), dx = (0, 0, -T)       (c+dx onto +x, its z shrinking)
//   kind 12: c = 0.7·(1 - e, 0, 1), dx = 0.7·(0, 0, -T)   13: as 11 times 3
//   kind 14: c = (1 - e, 0.3, 1), dx = (0, 0, -T)      (the parallel coordinate too)
//   kind 15: c = (1 - e, 0, 1), dx = (T, 0, 0)        (c+dx onto +x, its x growing)
//   kind 16: dx as 11, dy = (e + (j·1.37·2^-19 mod e), 0, 0) (both lanes cross)
//   kind 17: c = (0, 1 - e, 1), dx = (0, 0, -T)       (onto +y: crossing along t)
//   kind 18: c = (-(1 - e), 0, -1), dx = (0, 0, T)    (-z onto -x)
//   kind 19: c = (1, 0.1, 1 - e) on +x, dx = (-T, 0, 0)  (+x onto +z)
//   kind 20: random c within 2^-6 of a random edge, dx (and dy for half) random, components up to 1/48
//   kind 21, 22: as 11 and 20 (components up to 1/16) on a 256x256 cube map without bias
//   kind 23: c = (1 - e, 0, 1), dx = (0, 0, -T'), T' = 2^-7 + j·2^-15 (a longer sweep; bias 3)
//   kind 24: c = (x0, 0, 1), x0 = 1 - 2^-6 - j·2^-18 swept, dx = (0, 0, -2^-5) fixed
//   (recording 13) kind 25: random c on a random face, dx (and dy for two in three)
//   random, components up to 2^-6..1; no bias    26: the same on a 64x64 cube map
static void run_gradcubeprobe(const char* L0, int kind)
{
    Mip s = mip(4, 1, cudaFilterModeLinear, cudaFilterModeLinear);
    if (kind >= 11) s.bias = kind == 23 ? 3 : 6;
    if (kind == 21 || kind == 22) { s.w0 = s.h0 = 256; s.levels = 9; s.maxc = 8; s.bias = 0; }
    if (kind == 25) s.bias = 0;
    if (kind == 26) { s.w0 = s.h0 = 64; s.levels = 7; s.maxc = 6; s.bias = 0; }
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    const int n = 4096;
    const float e = 1.0f / 128;
    std::vector<float> c;
    for (int j = 0; j < n; j++) {
        float p[3] = {0, 0, 0}, a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
        const float T = e + (float)j / 524288;
        if (kind == 11 || kind == 21 || kind == 16) { p[0] = 1 - e; p[2] = 1; a[2] = -T; }
        if (kind == 16) b[0] = e + fmodf((float)j * 1.37f / 524288, e);
        if (kind == 12 || kind == 13) { float m = kind == 12 ? 0.7f : 3.0f; p[0] = (1 - e) * m; p[2] = m; a[2] = -T * m; }
        if (kind == 14) { p[0] = 1 - e; p[1] = 0.3f; p[2] = 1; a[2] = -T; }
        if (kind == 15) { p[0] = 1 - e; p[2] = 1; a[0] = T; }
        if (kind == 17) { p[1] = 1 - e; p[2] = 1; a[2] = -T; }
        if (kind == 18) { p[0] = -(1 - e); p[2] = -1; a[2] = T; }
        if (kind == 19) { p[0] = 1; p[1] = 0.1f; p[2] = 1 - e; a[0] = -T; }
        if (kind == 20 || kind == 22) {
            int ax = rnd() % 3, sg = rnd() & 1;
            p[ax] = sg ? -1.0f : 1.0f;
            int ed = (ax + 1 + rnd() % 2) % 3, o = 3 - ax - ed;
            p[ed] = (rnd() & 1 ? 1.0f : -1.0f) * (1 - frange(0, 1.0f / 64));
            p[o] = frange(-1, 1);
            float m = kind == 22 ? 1.0f / 16 : 1.0f / 48;
            for (float& x : a) x = frange(-1, 1) * m;
            if (rnd() & 1) for (float& x : b) x = frange(-1, 1) * m;
        }
        if (kind == 25 || kind == 26) {   // (recording 13) random c, dx, dy up to 1 per component: every kind of straddle
            for (float& x : p) x = frange(-1, 1);
            p[rnd() % 3] = (rnd() & 1) ? 1.0f : -1.0f;
            float m = exp2f(frange(-6, 0));
            for (float& x : a) x = frange(-1, 1) * m;
            if (j % 3) for (float& x : b) x = frange(-1, 1) * m;
        }
        if (kind == 23) { p[0] = 1 - e; p[2] = 1; a[2] = -(e + (float)j / 32768); }
        if (kind == 24) { p[0] = 1 - 1.0f / 64 - (float)j / 262144; p[2] = 1; a[2] = -1.0f / 32; }
        if (kind <= 2) { p[0] = 0.5f; p[1] = kind ? 0.3f : 0.0f; p[2] = 1; a[0] = 1.5f * j / 4096; }
        if (kind == 2) b[1] = 0.0625f;
        if (kind == 3) { p[0] = 0.9f; p[1] = 0.2f; p[2] = 1; a[2] = -0.5f * j / 4096; }
        if (kind >= 6 && kind <= 10) {
            const float cx[5] = {0.9f, 0.9f, 0.6f, 0.9f, 0.9f}, cy[5] = {0, 0.4f, 0, 0, 0.2f};
            p[0] = cx[kind - 6]; p[1] = cy[kind - 6]; p[2] = 1;
            a[2] = -0.5f * j / 4096 * (kind == 8 ? 1.2f : 1.0f);
            if (kind == 9) a[0] = 0.05f;
            if (kind == 10) b[1] = 0.0625f;
        }
        if (kind == 4 || kind == 5) {
            int ax = rnd() % 3, sg = rnd() & 1;
            p[ax] = sg ? -1.0f : 1.0f;
            int e = (ax + 1 + rnd() % 2) % 3, o = 3 - ax - e;
            p[e] = (rnd() & 1 ? 1.0f : -1.0f) * frange(0.75f, 1.0f);
            p[o] = frange(-1, 1);
            float m = frange(0.02f, 0.5f);
            for (float& x : a) x = frange(-1, 1) * m;
            if (kind == 5) for (float& x : b) x = frange(-1, 1) * m;
        }
        for (float x : p) c.push_back(x);
        for (float x : a) c.push_back(x);
        for (float x : b) c.push_back(x);
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 13
    k_gradcube<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

// tld4 (tex2Dgather, components r and a) on a mipmapped 32x16 texture.
static void run_tld4mip(const char* L0, Mip s)
{
    cudaTextureObject_t t = mkmip(L0, s);
    if (!t) return;
    const int n = 512;
    std::vector<float> c;
    for (int i = 0; i < n; i++) { c.push_back(frange(-0.2f, 1.2f)); c.push_back(frange(-0.2f, 1.2f)); }
    cudaMalloc(&g_out, n * 32);
    float* dc = dev(c);
#if FAM == 14
    k_tld4mip<<<n / B, B>>>((float4*)g_out, t, dc, n);
#endif
    finish(L0, c, n, 8);
}

// tld4 on cube, cube-layered and 2D-layered float textures (non-mipmapped).
static void run_tld4(const char* L0, int kind, cudaTextureAddressMode am)
{
    const int w = kind == 10 ? 12 : 8, h = kind == 10 ? 9 : 8, l = kind == 9 ? 1 : 3;
    const int d = kind == 10 ? l : 6 * l;
    unsigned flags = kind == 9 ? cudaArrayCubemap : kind == 11 ? (cudaArrayCubemap | cudaArrayLayered) : cudaArrayLayered;
    cudaArray_t a = nullptr;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    if (!ok(cudaMalloc3DArray(&a, &f, make_cudaExtent(w, h, d), flags), "alloc", L0)) return;
    std::vector<float> img((size_t)w * h * d);
    for (auto& x : img) x = frange(-1.0f, 2.0f);
    if (!ok(copyarr(a, img.data(), w, h, d, 4), "copy", L0)) return;
    save(L0, "img", img.data(), img.size() * 4);
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = am;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t t = 0;
    if (!ok(cudaCreateTextureObject(&t, &r, &td, nullptr), "create texture", L0)) return;
    fprintf(g_list, "%s tld4 kind=%s size=%dx%dx%d layers=%d address=%d\n", L0, kind == 9 ? "cube" : kind == 10 ? "a2d" : "acube", w, h, d, l, (int)am);
    const int n = 512;
    std::vector<float> c;
    std::vector<int> lay;
    for (int i = 0; i < n; i++) {
        if (kind == 10) { c.push_back(frange(-0.2f, 1.2f)); c.push_back(frange(-0.2f, 1.2f)); }
        else {
            float x = frange(-1, 1), y = frange(-1, 1), z = frange(-1, 1);
            int k = i % 16;
            if (k == 0) { x = 1; y = 0; z = 0; }
            if (k == 1) { x = 0.5f; y = 0.5f; z = 0.5f; }
            if (k == 2) { x = -0.5f; y = 0.5f; z = -0.25f; }
            c.push_back(x); c.push_back(y); c.push_back(z);
        }
        lay.push_back((int)(rnd() % (unsigned)l));
    }
    cudaMalloc(&g_out, n * 16);
    float* dc = dev(c);
    int* dl = dev(lay);
    (void)dl;
    save(L0, "layer", lay.data(), lay.size() * 4);
#if FAM == 9
    k_tld4cube<<<n / B, B>>>((float4*)g_out, t, dc, n);
#elif FAM == 10
    k_tld4a2d<<<n / B, B>>>((float4*)g_out, t, dc, dl, n);
#elif FAM == 11
    k_tld4acube<<<n / B, B>>>((float4*)g_out, t, dc, dl, n);
#endif
    finish(L0, c, n, 4);
}

// A plain (not mipmapped) 16x16 cube map, point or linear: directions near
// the faces' edges and corners, ties of the major axis, and random ones.
static void run_cube(const char* L0, cudaTextureFilterMode fm)
{
    const int w = 16, n = 2048;
    cudaArray_t a = nullptr;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    if (!ok(cudaMalloc3DArray(&a, &f, make_cudaExtent(w, w, 6), cudaArrayCubemap), "alloc", L0)) return;
    std::vector<float> img((size_t)w * w * 6);
    for (auto& x : img) x = frange(-1.0f, 2.0f);
    if (!ok(copyarr(a, img.data(), w, w, 6, 4), "copy", L0)) return;
    save(L0, "img", img.data(), img.size() * 4);
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
    td.filterMode = fm;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t t = 0;
    if (!ok(cudaCreateTextureObject(&t, &r, &td, nullptr), "create texture", L0)) return;
    fprintf(g_list, "%s cube face=%dx%d filter=%d\n", L0, w, w, (int)fm);
    std::vector<float> c;
    for (int i = 0; i < n; i++) {
        float v[3];
        int k = i % 8;
        int major = (i / 8) % 3;
        float sgn = ((i / 24) % 2) ? -1.0f : 1.0f;
        float m = exp2f(frange(-3.0f, 3.0f));
        if (k < 4) {
            // near an edge or a corner: minor coordinates close to +-1 (in texels of 1/w)
            v[major] = sgn;
            v[(major + 1) % 3] = (rnd() & 1 ? 1.0f : -1.0f) * (1.0f - frange(-2.0f, 2.0f) / w);
            v[(major + 2) % 3] = k < 2 ? frange(-1, 1) : (rnd() & 1 ? 1.0f : -1.0f) * (1.0f - frange(-2.0f, 2.0f) / w);
        } else if (k == 4) {
            // exact ties between two or three axes
            v[0] = (rnd() & 1 ? 1.0f : -1.0f); v[1] = (rnd() & 1 ? 1.0f : -1.0f); v[2] = (rnd() & 2) ? v[0] : frange(-1, 1);
        } else if (k == 5) {
            // texel centres and boundaries on a face: (j + 0.5 or j) / w * 2 - 1
            v[major] = sgn;
            v[(major + 1) % 3] = ((int)(rnd() % (2 * w + 1)) * 0.5f) / w * 2.0f - 1.0f;
            v[(major + 2) % 3] = ((int)(rnd() % (2 * w + 1)) * 0.5f) / w * 2.0f - 1.0f;
        } else {
            v[0] = frange(-1, 1); v[1] = frange(-1, 1); v[2] = frange(-1, 1);
        }
        if (i == 6) { v[0] = v[1] = v[2] = 0.0f; }
        if (i == 14) { v[0] = NAN; v[1] = 0.5f; v[2] = 0.25f; }
        if (i == 22) { v[0] = INFINITY; v[1] = 0.5f; v[2] = 0.25f; }
        for (float x : v) c.push_back(x * m);
    }
    cudaMalloc(&g_out, n * 4);
    float* dc = dev(c);
#if FAM == 12
    k_cube<<<n / B, B>>>(g_out, t, dc, n);
#endif
    finish(L0, c, n, 1);
}

int main(int argc, char** argv)
{
    if (argc < 3) { fprintf(stderr, "usage: %s DIR GROUP\n", argv[0]); return 2; }
    g_dir = argv[1];
    std::string grp = argv[2];
    mkdir(g_dir.c_str(), 0755);
    g_list = fopen((g_dir + "/launches." + grp + ".txt").c_str(), "w");
    if (!g_list) { perror("launches"); return 1; }
    g_seed = 777u + (uint32_t)grp.size() * 131u + (uint32_t)grp[grp.size() - 1];
    if (argc > 3) g_seed += 1000003u * (uint32_t)atoi(argv[3]);   // held-out inputs
    {
        cudaError_t e = cudaFree(0);
        int* d;
        cudaMalloc(&d, 128);
        cudaMemset(d, 0, 128);
        sanity<<<1, 32>>>(d);
        cudaError_t e1 = cudaGetLastError();
        cudaError_t e2 = cudaDeviceSynchronize();
        int h[32];
        cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost);
        fprintf(g_list, "init %s sanity launch %s sync %s out[5]=%d (want 16) FAM=%d\n", cudaGetErrorName(e),
                cudaGetErrorName(e1), cudaGetErrorName(e2), h[5], FAM);
        fflush(g_list);
    }
    const cudaTextureFilterMode P = cudaFilterModePoint, L = cudaFilterModeLinear;
    const char* G = grp.c_str();
#if FAM == 1
    if (grp == "lodsweep1d_ll") run_lodsweep(G, mip(1, 1, L, L));
    if (grp == "lod1d_ll") run_lodrand(G, mip(1, 0, L, L), 1024);
    if (grp == "lod1d_pp") run_lodrand(G, mip(1, 0, P, P), 1024);
    if (grp == "lod1d_lp_mirror") run_lodrand(G, mip(1, 0, L, P, cudaAddressModeMirror), 1024);
#elif FAM == 2
    if (grp == "lodsweep2d_ll") run_lodsweep(G, mip(2, 1, L, L));
    if (grp == "lodsweep2d_pl") run_lodsweep(G, mip(2, 1, P, L));
    if (grp == "lodsweep2d_lp") run_lodsweep(G, mip(2, 1, L, P));
    if (grp == "lodsweep2d_pp") run_lodsweep(G, mip(2, 1, P, P));
    if (grp == "lodsweep2d_ll_bias") { Mip s = mip(2, 1, L, L); s.bias = 0.625f; s.minc = 0.75f; s.maxc = 3.5f; run_lodsweep(G, s); }
    if (grp == "lod2d_ll") run_lodrand(G, mip(2, 0, L, L), 2048);
    if (grp == "lod2d_ll_wrap") run_lodrand(G, mip(2, 0, L, L, cudaAddressModeWrap), 1024);
    if (grp == "lod2d_ll_border") run_lodrand(G, mip(2, 0, L, L, cudaAddressModeBorder), 1024);
    if (grp == "lod2d_lp") run_lodrand(G, mip(2, 0, L, P), 1024);
    if (grp == "lod2d_pl") run_lodrand(G, mip(2, 0, P, L), 1024);
    if (grp == "lod2d_pp") run_lodrand(G, mip(2, 0, P, P), 1024);
    // (recording 12) tex.level with maxAnisotropy 16: does the explicit level ignore it?
    if (grp == "lod2d_ll_aniso16") { Mip s = mip(2, 0, L, L); s.aniso = 16; run_lodrand(G, s, 1024); }
    if (grp == "lodsweep2d_ll_aniso16") { Mip s = mip(2, 1, L, L); s.aniso = 16; run_lodsweep(G, s); }
    if (grp == "lod2d_ll_bias") { Mip s = mip(2, 0, L, L); s.bias = -0.375f; s.minc = 1.25f; s.maxc = 4.0f; run_lodrand(G, s, 1024); }
#elif FAM == 3
    if (grp == "lodsweep3d_ll") run_lodsweep(G, mip(3, 1, L, L));
    if (grp == "lod3d_ll") run_lodrand(G, mip(3, 0, L, L), 1024);
    if (grp == "lod3d_pp") run_lodrand(G, mip(3, 0, P, P), 1024);
#elif FAM == 4
    if (grp == "gradsweep1d_ll") run_grad(G, mip(1, 1, L, L), 1536, 0);
    if (grp == "grad1d_ll") run_grad(G, mip(1, 0, L, L), 1536, 1);
#elif FAM == 5
    if (grp == "gradsweep2d_ll") run_grad(G, mip(2, 1, L, L), 2048, 0);
    if (grp == "gradsweep2d_lp") run_grad(G, mip(2, 1, L, P), 2048, 0);
    if (grp == "gradsweep2d_ll_aniso16") { Mip s = mip(2, 1, L, L); s.aniso = 16; run_grad(G, s, 2048, 0); }
    if (grp == "gradsweep2d_ll_aniso4") { Mip s = mip(2, 1, L, L); s.aniso = 4; run_grad(G, s, 2048, 0); }
    if (grp == "grad2d_ll") run_grad(G, mip(2, 0, L, L), 2048, 1);
    if (grp == "grad2d_pp") run_grad(G, mip(2, 0, P, P), 1536, 1);
    if (grp == "grad2d_ll_aniso16") { Mip s = mip(2, 0, L, L); s.aniso = 16; run_grad(G, s, 1536, 1); }
    if (grp.rfind("gradprobe", 0) == 0) run_gradprobe(G, atoi(grp.c_str() + 9));
#elif FAM == 6
    if (grp == "gradsweep3d_ll") run_grad(G, mip(3, 1, L, L), 1536, 0);
    if (grp == "grad3d_ll") run_grad(G, mip(3, 0, L, L), 1536, 1);
    // (recording 12) grad3d_ll's random gradients and positions on a constant-level texture
    if (grp == "grad3dconst_ll") run_grad(G, mip(3, 1, L, L), 8192, 1);
    if (grp.rfind("grad3dprobe", 0) == 0) run_gradprobe3d(G, atoi(grp.c_str() + 11));
#elif FAM == 7
    if (grp == "lodsweepcube_ll") run_lodsweep(G, mip(4, 1, L, L));
    if (grp == "lodcube_ll") run_lodrand(G, mip(4, 0, L, L), 1024);
    if (grp == "lodcube_pp") run_lodrand(G, mip(4, 0, P, P), 1024);
#elif FAM == 8
    if (grp == "lod2dl_ll") run_lodrand(G, mip(5, 0, L, L), 1024);
#elif FAM == 9
    if (grp == "tld4cube") run_tld4(G, 9, cudaAddressModeClamp);
#elif FAM == 10
    if (grp == "tld4a2d") run_tld4(G, 10, cudaAddressModeClamp);
    if (grp == "tld4a2d_wrap") run_tld4(G, 10, cudaAddressModeWrap);
#elif FAM == 11
    if (grp == "tld4acube") run_tld4(G, 11, cudaAddressModeClamp);
#elif FAM == 12
    if (grp == "cube16_point") run_cube(G, P);
    if (grp == "cube16_linear") run_cube(G, L);
#elif FAM == 13
    if (grp == "gradsweepcube_ll") run_gradcube(G, mip(4, 1, L, L), 2048);
    if (grp == "gradcube_ll") run_gradcube(G, mip(4, 0, L, L), 2048);
    if (grp.rfind("gradcubeprobe", 0) == 0) run_gradcubeprobe(G, atoi(grp.c_str() + 13));
#elif FAM == 14
    if (grp == "tld4mip2d") run_tld4mip(G, mip(2, 0, L, L));
    if (grp == "tld4mip2d_clamp") { Mip s = mip(2, 0, L, L); s.bias = 1.5f; s.minc = 1.0f; run_tld4mip(G, s); }
#endif
    fprintf(g_list, "group %s done, fail=%d\n", G, g_fail);
    fclose(g_list);
    return g_fail;
}
