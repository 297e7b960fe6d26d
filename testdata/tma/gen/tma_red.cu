// tma_red.cu: cp.reduce.async.bulk.tensor (tile mode, 2D) on sm_90: a box in
// shared memory is added (f32) or min-ed (s32) into a tensor in global
// memory, out-of-bounds elements skipped. Usage: tma_red OUTDIR tred_add_f32|tred_min_s32.
#include "tmap.h"
#include "dev.h"

extern "C" __global__ void tma_red_add_2d(const __grid_constant__ CUtensorMap tm, int c0, int c1, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[4096];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&tm), "r"(c0),
                     "r"(c1), "r"(smem(buf))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void tma_red_min_2d(const __grid_constant__ CUtensorMap tm, int c0, int c1, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[4096];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&tm), "r"(c0),
                     "r"(c1), "r"(smem(buf))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

static const TmapCase kCases[] = {
    {"tred_add_f32", 2, 7, 4, {40, 30}, {160}, {16, 8}, {1, 1}, 0, 0, {32, 5}},
    {"tred_min_s32", 2, 3, 4, {40, 30}, {160}, {16, 8}, {1, 1}, 0, 0, {-4, 25}},
};

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTDIR CASE\n", argv[0]);
        return 2;
    }
    const TmapCase* c = nullptr;
    for (auto& x : kCases)
        if (!strcmp(x.name, argv[2]))
            c = &x;
    if (!c)
        return 2;
    openCase(argv[1], c->name);
    check(cudaFree(0), "cudaFree(0)");
    bool isAdd = !strcmp(c->name, "tred_add_f32");
    size_t tb = tensorBytes(*c);
    unsigned bb = boxBytes(*c);
    std::vector<uint32_t> g = lcg(tb / 4, 5), box = lcg(bb / 4, 6);
    for (auto* v : {&g, &box})
        for (auto& x : *v)
            if (isAdd) {
                float f = ((int)(x >> 8) - (1 << 23)) * ldexpf(1.0f, (int)(x & 31) - 30);
                memcpy(&x, &f, 4);
            }
    uint32_t* dg = dev(g);
    CUtensorMap m;
    if (encode(&m, *c, dg)) {
        save("tmap", &m, sizeof(m));
        save("global", g.data(), tb);
        uint32_t* din = dev(box);
        if (isAdd)
            tma_red_add_2d<<<1, 128>>>(m, c->coord[0], c->coord[1], bb, (const uint8_t*)din);
        else
            tma_red_min_2d<<<1, 128>>>(m, c->coord[0], c->coord[1], bb, (const uint8_t*)din);
        launched(c->name);
        save("box", box.data(), bb);
        save("global_after", back(dg, tb / 4).data(), tb);
        fprintf(g_meta, "launch %s grid 1 block 128 args tmap coords bytes=%u box\n", isAdd ? "tma_red_add_2d" : "tma_red_min_2d", bb);
    }
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}
