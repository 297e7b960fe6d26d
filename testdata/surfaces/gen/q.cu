// ptxvm issue 28: one txq or suq query per module (-DOP=txq.width, -DSURF for
// suq, -DLEVEL for txq.level.*), so that a query the driver refuses spoils only
// its own binary. main(OUTFILE) queries several textures (or surfaces) and
// writes one int per object (levels 0..3 for .level queries), -1 untouched.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#define STR2(x) #x
#define STR(x) STR2(x)
__global__ void sanity(int* out) { out[threadIdx.x] = threadIdx.x * 3 + 1; }
#ifdef LEVEL
__global__ void q(int* out, unsigned long long t, int l)
{
    int r;
    asm volatile(STR(OP) ".b32 %0, [%1], %2;" : "=r"(r) : "l"(t), "r"(l));
    out[0] = r;
}
#else
__global__ void q(int* out, unsigned long long t, int l)
{
    int r;
    asm volatile(STR(OP) ".b32 %0, [%1];" : "=r"(r) : "l"(t));
    out[0] = r;
}
#endif
static FILE* g_log;
static bool ok(cudaError_t e, const char* what)
{
    if (e == cudaSuccess) return true;
    fprintf(g_log, "%s: ERROR %s: %s (%s)\n", STR(OP), what, cudaGetErrorName(e), cudaGetErrorString(e));
    return false;
}
struct O { const char* name; cudaChannelFormatDesc f; int w, h, d; unsigned fl; int mip; cudaTextureAddressMode am; cudaTextureFilterMode fm; int norm; int readnorm; };
int main(int argc, char** argv)
{
    g_log = stdout;
    if (argc < 2) return 2;
    {
        int* d;
        cudaMalloc(&d, 128);
        sanity<<<1, 32>>>(d);
        cudaError_t e1 = cudaGetLastError(), e2 = cudaDeviceSynchronize();
        fprintf(g_log, "%s: sanity %s %s\n", STR(OP), cudaGetErrorName(e1), cudaGetErrorName(e2));
    }
    O os[] = {
        {"2d_f32_40x24_clamp_linear_unnorm", cudaCreateChannelDesc<float>(), 40, 24, 0, 0, 0, cudaAddressModeClamp, cudaFilterModeLinear, 0, 0},
        {"2dlayered_f32_20x12x5_wrap_point_norm", cudaCreateChannelDesc<float>(), 20, 12, 5, cudaArrayLayered, 0, cudaAddressModeWrap, cudaFilterModePoint, 1, 0},
        {"cube_f32_8_border_linear_norm", cudaCreateChannelDesc<float>(), 8, 8, 6, cudaArrayCubemap, 0, cudaAddressModeBorder, cudaFilterModeLinear, 1, 0},
        {"cubelayered_f32_8x3_clamp_point_norm", cudaCreateChannelDesc<float>(), 8, 8, 18, cudaArrayCubemap | cudaArrayLayered, 0, cudaAddressModeClamp, cudaFilterModePoint, 1, 0},
        {"1d_uchar4_300_mirror_point_norm_readnorm", cudaCreateChannelDesc<uchar4>(), 300, 0, 0, 0, 0, cudaAddressModeMirror, cudaFilterModePoint, 1, 1},
        {"3d_float2_12x10x6_clamp_point_unnorm", cudaCreateChannelDesc<float2>(), 12, 10, 6, 0, 0, cudaAddressModeClamp, cudaFilterModePoint, 0, 0},
        {"1dlayered_ushort2_64x4_border_point_unnorm", cudaCreateChannelDesc<ushort2>(), 64, 0, 4, cudaArrayLayered, 0, cudaAddressModeBorder, cudaFilterModePoint, 0, 0},
        {"2d_short4_17x9_clamp_point_unnorm", cudaCreateChannelDesc<short4>(), 17, 9, 0, 0, 0, cudaAddressModeClamp, cudaFilterModePoint, 0, 0},
        {"2d_half_16x8_wrap_linear_norm", cudaCreateChannelDescHalf(), 16, 8, 0, 0, 0, cudaAddressModeWrap, cudaFilterModeLinear, 1, 0},
        {"mip2d_f32_32x16_6levels_clamp_linear_norm", cudaCreateChannelDesc<float>(), 32, 16, 0, 0, 6, cudaAddressModeClamp, cudaFilterModeLinear, 1, 0},
        {"mip3d_f32_16x16x4_5levels_wrap_point_norm", cudaCreateChannelDesc<float>(), 16, 16, 4, 0, 5, cudaAddressModeWrap, cudaFilterModePoint, 1, 0},
        {"mip1d_f32_64_7levels_mirror_linear_norm", cudaCreateChannelDesc<float>(), 64, 0, 0, 0, 7, cudaAddressModeMirror, cudaFilterModeLinear, 1, 0},
        {"mipcube_f32_16_5levels_clamp_linear_norm", cudaCreateChannelDesc<float>(), 16, 16, 6, cudaArrayCubemap, 5, cudaAddressModeClamp, cudaFilterModeLinear, 1, 0},
    };
    int* dq;
    cudaMalloc(&dq, 16);
    FILE* o = fopen(argv[1], "wb");
    for (auto& s : os) {
        cudaResourceDesc r = {};
        unsigned long long obj = 0;
        unsigned fl = s.fl;
#ifdef SURF
        if (s.mip) continue;
        fl |= cudaArraySurfaceLoadStore;
#endif
        if (s.mip) {
            cudaMipmappedArray_t m;
            if (!ok(cudaMallocMipmappedArray(&m, &s.f, make_cudaExtent(s.w, s.h, s.d), s.mip, fl), s.name)) continue;
            r.resType = cudaResourceTypeMipmappedArray;
            r.res.mipmap.mipmap = m;
        } else {
            cudaArray_t a;
            if (!ok(cudaMalloc3DArray(&a, &s.f, make_cudaExtent(s.w, s.h, s.d), fl), s.name)) continue;
            r.resType = cudaResourceTypeArray;
            r.res.array.array = a;
        }
#ifdef SURF
        cudaSurfaceObject_t so;
        if (!ok(cudaCreateSurfaceObject(&so, &r), s.name)) continue;
        obj = so;
#else
        cudaTextureDesc t = {};
        t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = s.am;
        t.filterMode = s.fm;
        t.readMode = s.readnorm ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
        t.normalizedCoords = s.norm;
        if (s.mip) { t.mipmapFilterMode = cudaFilterModeLinear; t.maxMipmapLevelClamp = (float)(s.mip - 1); }
        cudaTextureObject_t to;
        if (!ok(cudaCreateTextureObject(&to, &r, &t, nullptr), s.name)) continue;
        obj = to;
#endif
#ifdef LEVEL
        const int nl = 4;
#else
        const int nl = 1;
#endif
        for (int l = 0; l < nl; l++) {
            int h = -1;
            cudaMemset(dq, 0xff, 16);
            q<<<1, 1>>>(dq, obj, l);
            bool g = ok(cudaGetLastError(), "launch error") && ok(cudaDeviceSynchronize(), "launch");
            if (g) cudaMemcpy(&h, dq, 4, cudaMemcpyDeviceToHost);
            fprintf(g_log, "%s %s level=%d -> %d (0x%x)%s\n", STR(OP), s.name, l, h, h, g ? "" : " FAILED");
            fwrite(&h, 4, 1, o);
            if (!g) { fclose(o); return 1; }
        }
    }
    fclose(o);
    return 0;
}
