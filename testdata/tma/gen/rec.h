// rec.h: host helpers shared by the recording programs of testdata/tma/gen
// (ptxvm issue 24, items 4 and 6). Each program runs one named case per
// process (argv[2]) and writes its inputs and outputs as raw little-endian
// files under argv[1]/<case>/, plus a line per launch in argv[1]/<case>/meta.txt.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static std::string g_dir;
static FILE* g_meta = nullptr;
static int g_fail = 0;

static void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error %s (%s) at %s\n", cudaGetErrorName(e), cudaGetErrorString(e), what);
        if (g_meta)
            fprintf(g_meta, "error %s at %s\n", cudaGetErrorName(e), what);
        g_fail = 1;
    }
}

static void openCase(const char* dir, const char* name)
{
    g_dir = std::string(dir) + "/" + name;
    std::string cmd = "mkdir -p '" + g_dir + "'";
    if (system(cmd.c_str()) != 0)
        exit(1);
    g_meta = fopen((g_dir + "/meta.txt").c_str(), "w");
    if (!g_meta)
        exit(1);
}

static void save(const char* name, const void* p, size_t n)
{
    FILE* f = fopen((g_dir + "/" + name + ".bin").c_str(), "wb");
    if (!f)
        return;
    fwrite(p, 1, n, f);
    fclose(f);
}

template <class T> static T* dev(const std::vector<T>& h)
{
    T* d = nullptr;
    check(cudaMalloc(&d, h.size() * sizeof(T) + 256), "cudaMalloc");
    if (d)
        check(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    return d;
}

template <class T> static std::vector<T> back(const T* d, size_t n)
{
    std::vector<T> h(n);
    if (d)
        check(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return h;
}

static void launched(const char* what)
{
    check(cudaGetLastError(), what);
    check(cudaDeviceSynchronize(), what);
}

// lcg: n pseudo-random 32-bit words from seed (the same on every run).
static std::vector<uint32_t> lcg(size_t n, uint32_t seed)
{
    std::vector<uint32_t> v(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (uint32_t)(s >> 32);
    }
    return v;
}
