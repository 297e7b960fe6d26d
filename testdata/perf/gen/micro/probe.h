// probe.h — what the probe programs (sched.cu, latency.cu, turnaround.cu)
// share: their JSON-lines output and the error record of a failing launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>

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
