// probe.h — what the probe programs (sched.cu, latency.cu, turnaround.cu,
// phases.cu, contend.cu) share: their JSON-lines output, the error record
// of a failing launch, a distribution's summary, and the opening and
// closing of main.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

typedef unsigned long long u64;

static FILE* g_out;
static int g_errors;

// line writes one JSON object (printf-style) and a newline to g_out.
static inline void line(const char* f, ...)
{
    char buf[1 << 16];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    fputs(buf, g_out);
    fputc('\n', g_out);
    fflush(g_out);
}

// ok records {"probe", "name", "error"} for a failed CUDA call and counts
// it; it reports whether e is success.
static inline bool ok(cudaError_t e, const char* probe, const char* name)
{
    if (e == cudaSuccess) return true;
    line("{\"probe\": \"%s\", \"name\": \"%s\", \"error\": \"%s\"}", probe, name, cudaGetErrorString(e));
    fprintf(stderr, "%s %s: %s\n", probe, name, cudaGetErrorString(e));
    ++g_errors;
    cudaGetLastError();
    return false;
}

__device__ __forceinline__ unsigned smid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

// Percentiles 10, 50, 90 and the mean of v (sorted in place).
static inline std::string stats(std::vector<double>& v)
{
    char buf[160];
    if (v.empty()) return "{}";
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    auto at = [&](double p) { return v[(size_t)(p * (v.size() - 1) + 0.5)]; };
    snprintf(buf, sizeof buf, "{\"mean\": %.1f, \"p10\": %.0f, \"p50\": %.0f, \"p90\": %.0f}", sum / v.size(), at(0.1), at(0.5), at(0.9));
    return buf;
}

// sm_timeline writes {"probe": probe, "name", "sm", "blocks"}: the blocks
// of the first SM of bySM (in the order given) as [block, t0, t1, t2],
// the clocks relative to its first block's t0, from rec[4 * block + 1..3].
static inline void sm_timeline(const char* probe, const char* name,
                               std::map<unsigned, std::vector<unsigned>>& bySM, const std::vector<u64>& rec)
{
    std::vector<unsigned>& s0 = bySM.begin()->second;
    u64 base = rec[4 * s0[0] + 1];
    std::string blocks;
    for (size_t x = 0; x < s0.size(); ++x) {
        unsigned b = s0[x];
        char buf[96];
        snprintf(buf, sizeof buf, "%s[%u, %llu, %llu, %llu]", x ? ", " : "", b, rec[4 * b + 1] - base,
                 rec[4 * b + 2] - base, rec[4 * b + 3] - base);
        blocks += buf;
    }
    line("{\"probe\": \"%s\", \"name\": \"%s\", \"sm\": %u, \"blocks\": [%s]}", probe, name, bySM.begin()->first,
         blocks.c_str());
}

// probe_open opens the output (argv[1], or def) and writes the device
// record; it returns the GPU's SM count, 0 when it could not start (main
// returns probe_close() then too).
static unsigned probe_open(int argc, char** argv, const char* def)
{
    const char* path = argc > 1 ? argv[1] : def;
    g_out = fopen(path, "w");
    if (!g_out) {
        perror(path);
        ++g_errors;
        return 0;
    }
    cudaDeviceProp p;
    if (!ok(cudaGetDeviceProperties(&p, 0), "device", "props")) return 0;
    line("{\"probe\": \"device\", \"name\": \"%s\", \"sms\": %u}", p.name, (unsigned)p.multiProcessorCount);
    return p.multiProcessorCount;
}

// probe_close closes the output; main's exit status: 3 if a probe
// failed, 0 if none did.
static int probe_close()
{
    if (g_out) fclose(g_out);
    return g_errors ? 3 : 0;
}
