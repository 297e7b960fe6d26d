// tmap.h: host side of the tensor-map recordings: a case describes a
// cuTensorMapEncodeTiled call, which the host makes through the driver API
// (link -lcuda) and writes to meta.txt as one "tmap" line, the spec field's
// source: rank dtype dims strides box estrides interleave swizzle l2 oobfill.
#pragma once
#include "rec.h"
#include <cuda.h>

struct TmapCase {
    const char* name;
    unsigned rank;
    unsigned dtype; // CUtensorMapDataType
    unsigned esize; // bytes per element
    uint64_t dims[5];
    uint64_t strides[4]; // bytes, dims 1..rank-1
    unsigned box[5];
    unsigned estr[5];
    unsigned swizzle; // CUtensorMapSwizzle
    unsigned oob;     // CUtensorMapFloatOOBfill
    int coord[5];
};

static size_t tensorBytes(const TmapCase& c)
{
    return c.rank == 1 ? c.dims[0] * c.esize : c.strides[c.rank - 2] * c.dims[c.rank - 1];
}

static unsigned boxBytes(const TmapCase& c)
{
    unsigned n = c.esize;
    for (unsigned i = 0; i < c.rank; i++)
        n *= (c.box[i] + c.estr[i] - 1) / c.estr[i];
    return n;
}

static bool encode(CUtensorMap* m, const TmapCase& c, void* gaddr)
{
    memset(m, 0, sizeof(*m));
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], estr[5];
    for (unsigned i = 0; i < c.rank; i++) {
        dims[i] = c.dims[i];
        box[i] = c.box[i];
        estr[i] = c.estr[i] ? c.estr[i] : 1;
        if (i + 1 < c.rank)
            strides[i] = c.strides[i];
    }
    CUresult r = cuTensorMapEncodeTiled(m, (CUtensorMapDataType)c.dtype, c.rank, gaddr, dims, strides, box, estr,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)c.swizzle,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, (CUtensorMapFloatOOBfill)c.oob);
    fprintf(g_meta, "tmap rank %u dtype %u esize %u dims", c.rank, c.dtype, c.esize);
    for (unsigned i = 0; i < c.rank; i++)
        fprintf(g_meta, " %llu", (unsigned long long)c.dims[i]);
    fprintf(g_meta, " strides");
    for (unsigned i = 0; i + 1 < c.rank; i++)
        fprintf(g_meta, " %llu", (unsigned long long)c.strides[i]);
    fprintf(g_meta, " box");
    for (unsigned i = 0; i < c.rank; i++)
        fprintf(g_meta, " %u", c.box[i]);
    fprintf(g_meta, " estrides");
    for (unsigned i = 0; i < c.rank; i++)
        fprintf(g_meta, " %u", estr[i]);
    fprintf(g_meta, " interleave 0 swizzle %u l2 0 oobfill %u coords", c.swizzle, c.oob);
    for (unsigned i = 0; i < c.rank; i++)
        fprintf(g_meta, " %d", c.coord[i]);
    fprintf(g_meta, " boxbytes %u tensorbytes %zu\n", boxBytes(c), tensorBytes(c));
    if (r != CUDA_SUCCESS) {
        const char* s = "?";
        cuGetErrorName(r, &s);
        fprintf(stderr, "cuTensorMapEncodeTiled: %s\n", s);
        fprintf(g_meta, "error cuTensorMapEncodeTiled %s\n", s);
        g_fail = 1;
        return false;
    }
    return true;
}
