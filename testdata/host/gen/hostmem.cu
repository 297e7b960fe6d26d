// hostmem.cu — what memory on the host costs on the GPU machine (issue 26):
// transfers from pageable, pinned and write-combined memory in both
// directions, kernels reading and writing mapped (zero-copy) memory
// coalesced and strided, managed memory at first touch, resident and
// prefetched, and two small programs of several steps.
//
//   hostmem all      every group below, one JSON object per line on stdout
//   hostmem mapped   the mapped-memory kernels once each (for ncu)
//
// Each line: {"group", "name", "bytes", "us" (median), "min_us", "reps",
// ...}. GPU-side times are CUDA events around the operation on one stream;
// host-side times (pageable copies, the CPU touching managed memory) are
// std::chrono around the call and a synchronisation, in "wall_us" (copies
// give both). Sizes: 4 KiB to 256 MiB for copies, 1 to 64 MiB for mapped
// kernels, 1 to 256 MiB for managed memory (never more than a small part of
// the card: see the device notes on managed memory).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../../kernels/cuda/hostmem.cu"

#define CK(x)                                                                                              \
    do {                                                                                                   \
        cudaError_t e_ = (x);                                                                              \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));            \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static cudaStream_t st;
static cudaEvent_t e0, e1;

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stat {
    double med, min;
    std::vector<double> all;
};

static Stat stat(std::vector<double> v)
{
    Stat s;
    s.all = v;
    std::sort(v.begin(), v.end());
    s.med = v[v.size() / 2];
    s.min = v[0];
    return s;
}

static std::string list(const std::vector<double>& v)
{
    std::string s = "[";
    char b[32];
    for (size_t i = 0; i < v.size() && i < 64; ++i) {
        snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]);
        s += b;
    }
    return s + "]";
}

static int reps_for(size_t bytes)
{
    if (bytes <= (1u << 20)) return 40;
    if (bytes <= (16u << 20)) return 15;
    return 5;
}

// event_time runs f between two events on st and returns microseconds.
template <class F>
static double event_time(F f)
{
    CK(cudaEventRecord(e0, st));
    f();
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.0;
}

static void emit(const char* group, const std::string& name, size_t bytes, const Stat& s, const char* extra = "")
{
    printf("{\"group\":\"%s\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"min_us\":%.3f,\"reps\":%zu,\"all\":%s%s}\n",
           group, name.c_str(), bytes, s.med, s.min, s.all.size(), list(s.all).c_str(), extra);
    fflush(stdout);
}

// ---- transfers -----------------------------------------------------------

static void copies()
{
    const size_t maxb = 256u << 20;
    void* dev;
    CK(cudaMalloc(&dev, maxb));
    void* pageable = malloc(maxb);
    memset(pageable, 1, maxb);
    void *pinned, *wc;
    CK(cudaHostAlloc(&pinned, maxb, cudaHostAllocDefault));
    CK(cudaHostAlloc(&wc, maxb, cudaHostAllocWriteCombined));
    memset(pinned, 2, maxb);
    memset(wc, 3, maxb);
    struct {
        const char* name;
        void* host;
        bool async;
    } kinds[] = {{"pageable", pageable, false}, {"pinned", pinned, true}, {"pinned_wc", wc, true}};
    for (size_t b = 4096; b <= maxb; b *= 4) {
        for (auto& k : kinds) {
            for (int dir = 0; dir < 2; ++dir) {
                std::vector<double> ev, wall;
                int reps = reps_for(b);
                for (int r = -1; r < reps; ++r) {
                    double w0 = now_us();
                    double t = event_time([&] {
                        if (k.async) {
                            if (dir == 0)
                                CK(cudaMemcpyAsync(dev, k.host, b, cudaMemcpyHostToDevice, st));
                            else
                                CK(cudaMemcpyAsync(k.host, dev, b, cudaMemcpyDeviceToHost, st));
                        } else {
                            if (dir == 0)
                                CK(cudaMemcpy(dev, k.host, b, cudaMemcpyHostToDevice));
                            else
                                CK(cudaMemcpy(k.host, dev, b, cudaMemcpyDeviceToHost));
                        }
                    });
                    double w = now_us() - w0;
                    if (r >= 0) ev.push_back(t), wall.push_back(w);
                }
                Stat w = stat(wall);
                char extra[256];
                snprintf(extra, sizeof extra, ",\"wall_us\":%.3f,\"wall_min_us\":%.3f", w.med, w.min);
                emit("copy", std::string(dir == 0 ? "h2d_" : "d2h_") + k.name, b, stat(ev), extra);
            }
        }
        // Device-to-device and memset, for the copy engine's and the
        // device's own bandwidth.
        if (b <= maxb / 2) {
            std::vector<double> dd, ms;
            for (int r = -1; r < reps_for(b); ++r) {
                double t = event_time([&] { CK(cudaMemcpyAsync(dev, (char*)dev + maxb / 2, b, cudaMemcpyDeviceToDevice, st)); });
                double m = event_time([&] { CK(cudaMemsetAsync(dev, 7, b, st)); });
                if (r >= 0) dd.push_back(t), ms.push_back(m);
            }
            emit("copy", "d2d", b, stat(dd));
            emit("memset", "memset", b, stat(ms));
        }
    }
    CK(cudaFree(dev));
    free(pageable);
    CK(cudaFreeHost(pinned));
    CK(cudaFreeHost(wc));
}

// ---- mapped (zero-copy) memory -------------------------------------------

static void launch_perm(bool store, const float* in, float* out, unsigned n, unsigned stride)
{
    unsigned blocks = (n + 255) / 256;
    if (store)
        store_perm<<<blocks, 256, 0, st>>>(in, out, n, stride, 2.0f);
    else
        copy_perm<<<blocks, 256, 0, st>>>(in, out, n, stride, 2.0f);
    CK(cudaGetLastError());
}

static void mapped(bool once)
{
    const size_t maxb = 64u << 20;
    float *hm, *hwc, *dm, *dwc, *dev, *dev2;
    CK(cudaHostAlloc((void**)&hm, maxb, cudaHostAllocMapped));
    CK(cudaHostAlloc((void**)&hwc, maxb, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    CK(cudaHostGetDevicePointer((void**)&dm, hm, 0));
    CK(cudaHostGetDevicePointer((void**)&dwc, hwc, 0));
    CK(cudaMalloc(&dev, maxb));
    CK(cudaMalloc(&dev2, maxb));
    for (size_t i = 0; i < maxb / 4; ++i) hm[i] = hwc[i] = (float)(i & 1023);
    CK(cudaMemcpy(dev, hm, maxb, cudaMemcpyHostToDevice));
    struct {
        const char* name;
        bool store;
        float *in, *out;
    } cases[] = {
        {"read_mapped", false, dm, dev2},      {"write_mapped", true, dev, dm},
        {"read_mapped_wc", false, dwc, dev2},  {"write_mapped_wc", true, dev, dwc},
        {"read_device", false, dev, dev2},     {"write_device", true, dev, dev2},
    };
    for (size_t b = 1u << 20; b <= maxb; b *= 4) {
        unsigned n = (unsigned)(b / 4);
        for (auto& c : cases) {
            bool wc = strstr(c.name, "_wc") != nullptr;
            for (unsigned stride : {1u, 32u}) {
                if (wc && stride != 1) continue;
                if (once) {
                    if (strstr(c.name, "device")) continue;
                    launch_perm(c.store, c.in, c.out, n, stride);
                    CK(cudaStreamSynchronize(st));
                    continue;
                }
                std::vector<double> v;
                double first = 0;
                for (int r = -1; r < 7; ++r) {
                    double t = event_time([&] { launch_perm(c.store, c.in, c.out, n, stride); });
                    if (r < 0) first = t;
                    else v.push_back(t);
                }
                char extra[128];
                snprintf(extra, sizeof extra, ",\"stride\":%u,\"first_us\":%.3f,\"kernel\":\"%s\"", stride, first,
                         c.store ? "store_perm" : "copy_perm");
                emit("mapped", std::string(c.name) + (stride == 1 ? "_coalesced" : "_stride32"), b, stat(v), extra);
            }
        }
    }
    if (!once) {
        // Latency: one thread chases 1024 nodes 256 B apart in random
        // order over 256 KiB of mapped memory (and of device memory).
        unsigned nodes = 1024, stride = 64;
        std::vector<unsigned> perm(nodes);
        for (unsigned i = 0; i < nodes; ++i) perm[i] = i;
        srand(7);
        for (unsigned i = nodes - 1; i > 0; --i) std::swap(perm[i], perm[rand() % (i + 1)]);
        unsigned* hn = (unsigned*)hm;
        for (unsigned i = 0; i < nodes; ++i) hn[perm[i] * stride] = perm[(i + 1) % nodes] * stride;
        CK(cudaMemcpy(dev, hm, nodes * stride * 4, cudaMemcpyHostToDevice));
        unsigned long long* res;
        CK(cudaMallocHost(&res, 16));
        for (int where = 0; where < 2; ++where) {
            std::vector<double> v;
            for (int r = 0; r < 5; ++r) {
                chase<<<1, 1, 0, st>>>(where == 0 ? (const unsigned*)dm : (const unsigned*)dev, 2048, (unsigned long long*)dev2);
                CK(cudaMemcpyAsync(res, dev2, 16, cudaMemcpyDeviceToHost, st));
                CK(cudaStreamSynchronize(st));
                v.push_back((double)res[0] / 2048.0);
            }
            Stat s = stat(v);
            printf("{\"group\":\"latency\",\"name\":\"%s\",\"cycles_per_hop\":%.2f,\"all\":%s}\n",
                   where == 0 ? "chase_mapped" : "chase_device", s.med, list(s.all).c_str());
        }
        CK(cudaFreeHost(res));
    }
    CK(cudaFreeHost(hm));
    CK(cudaFreeHost(hwc));
    CK(cudaFree(dev));
    CK(cudaFree(dev2));
}

// ---- managed memory ------------------------------------------------------

static void prefetch(void* p, size_t b, int dev)
{
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = dev == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = dev == cudaCpuDeviceId ? 0 : dev;
    CK(cudaMemPrefetchAsync(p, b, loc, 0, st));
#else
    CK(cudaMemPrefetchAsync(p, b, dev, st));
#endif
}

static void managed()
{
    float* dev;
    const size_t maxb = 256u << 20;
    CK(cudaMalloc(&dev, maxb));
    for (size_t b = 1u << 20; b <= maxb; b *= 4) {
        unsigned n = (unsigned)(b / 4);
        unsigned blocks = (n + 255) / 256;
        const int reps = b >= (64u << 20) ? 3 : 5;
        std::vector<double> first_read, resident, touch_back, pf_h2d, pf_read, pf_d2h, first_write_fresh,
            first_write_host, first_scale;
        for (int r = 0; r < reps; ++r) {
            float* m;
            CK(cudaMallocManaged(&m, b));
            for (unsigned i = 0; i < n; ++i) m[i] = (float)(i & 1023); // on the host
            first_read.push_back(event_time([&] { copy_perm<<<blocks, 256, 0, st>>>(m, dev, n, 1, 2.0f); }));
            resident.push_back(event_time([&] { copy_perm<<<blocks, 256, 0, st>>>(m, dev, n, 1, 2.0f); }));
            double w0 = now_us();
            volatile float sum = 0;
            for (unsigned i = 0; i < n; i += 1024) sum = sum + m[i]; // one touch per 4 KiB
            touch_back.push_back(now_us() - w0);
            pf_h2d.push_back(event_time([&] { prefetch(m, b, 0); }));
            pf_read.push_back(event_time([&] { copy_perm<<<blocks, 256, 0, st>>>(m, dev, n, 1, 2.0f); }));
            pf_d2h.push_back(event_time([&] { prefetch(m, b, cudaCpuDeviceId); }));
            // read and written in place, first touch from the host
            first_scale.push_back(event_time([&] { scale<<<blocks, 256, 0, st>>>(m, n, 2.0f, 1.0f); }));
            CK(cudaFree(m));
            // written first by the GPU, never touched before
            CK(cudaMallocManaged(&m, b));
            first_write_fresh.push_back(event_time([&] { store_perm<<<blocks, 256, 0, st>>>(dev, m, n, 1, 2.0f); }));
            CK(cudaFree(m));
            // written by the GPU after the host wrote it
            CK(cudaMallocManaged(&m, b));
            memset(m, 0, b);
            first_write_host.push_back(event_time([&] { store_perm<<<blocks, 256, 0, st>>>(dev, m, n, 1, 2.0f); }));
            CK(cudaFree(m));
            CK(cudaGetLastError());
        }
        emit("managed", "first_read_host_resident", b, stat(first_read), ",\"kernel\":\"copy_perm\"");
        emit("managed", "read_resident", b, stat(resident), ",\"kernel\":\"copy_perm\"");
        emit("managed", "host_touch_back_wall", b, stat(touch_back));
        emit("managed", "prefetch_to_device", b, stat(pf_h2d));
        emit("managed", "read_after_prefetch", b, stat(pf_read), ",\"kernel\":\"copy_perm\"");
        emit("managed", "prefetch_to_host", b, stat(pf_d2h));
        emit("managed", "scale_first_touch_host_resident", b, stat(first_scale), ",\"kernel\":\"scale\"");
        emit("managed", "first_write_untouched", b, stat(first_write_fresh), ",\"kernel\":\"store_perm\"");
        emit("managed", "first_write_host_resident", b, stat(first_write_host), ",\"kernel\":\"store_perm\"");
    }
    CK(cudaFree(dev));
}

// ---- programs of several steps -------------------------------------------

static void programs()
{
    const size_t b = 16u << 20;
    const unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    float *x, *y, *pin;
    CK(cudaMalloc(&x, b));
    CK(cudaMalloc(&y, b));
    CK(cudaMallocHost(&pin, b));
    float* pag = (float*)malloc(b);
    for (unsigned i = 0; i < n; ++i) pin[i] = pag[i] = (float)(i & 1023);
    for (int pinned = 0; pinned < 2; ++pinned) {
        float* h = pinned ? pin : pag;
        std::vector<double> tot, wall, s1, s2, s3;
        for (int r = -1; r < 9; ++r) {
            double w0 = now_us();
            double a = event_time([&] { CK(cudaMemcpyAsync(x, h, b, cudaMemcpyHostToDevice, st)); });
            double k = event_time([&] { scale<<<blocks, 256, 0, st>>>(x, n, 2.0f, 1.0f); });
            double c = event_time([&] { CK(cudaMemcpyAsync(h, x, b, cudaMemcpyDeviceToHost, st)); });
            double w = now_us() - w0;
            if (r >= 0) tot.push_back(a + k + c), wall.push_back(w), s1.push_back(a), s2.push_back(k), s3.push_back(c);
        }
        char extra[256];
        snprintf(extra, sizeof extra, ",\"wall_us\":%.3f,\"steps_us\":[%.3f,%.3f,%.3f]", stat(wall).med, stat(s1).med,
                 stat(s2).med, stat(s3).med);
        emit("program", pinned ? "copy_scale_copy_pinned" : "copy_scale_copy_pageable", b, stat(tot), extra);
    }
    std::vector<double> tot, s1, s2;
    for (int r = -1; r < 9; ++r) {
        double a = event_time([&] { scale<<<blocks, 256, 0, st>>>(x, n, 2.0f, 1.0f); });
        double c = event_time([&] { axpy<<<blocks, 256, 0, st>>>(x, y, n, 0.5f); });
        if (r >= 0) tot.push_back(a + c), s1.push_back(a), s2.push_back(c);
    }
    char extra[128];
    snprintf(extra, sizeof extra, ",\"steps_us\":[%.3f,%.3f]", stat(s1).med, stat(s2).med);
    emit("program", "scale_axpy", b, stat(tot), extra);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFreeHost(pin));
    free(pag);
}

int main(int argc, char** argv)
{
    std::string mode = argc > 1 ? argv[1] : "all";
    CK(cudaSetDevice(0));
    CK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("{\"group\":\"device\",\"name\":\"%s\",\"sms\":%d,\"driver\":%d,\"runtime\":%d,\"pci_bus\":%d,"
           "\"can_map_host\":%d,\"unified_addressing\":%d,\"concurrent_managed\":%d,\"pageable_access\":%d,"
           "\"async_engines\":%d}\n",
           p.name, p.multiProcessorCount, drv, rt, p.pciBusID, p.canMapHostMemory, p.unifiedAddressing,
           p.concurrentManagedAccess, p.pageableMemoryAccess, p.asyncEngineCount);
    if (mode == "mapped") {
        mapped(true);
        return 0;
    }
    copies();
    mapped(false);
    managed();
    programs();
    return 0;
}
