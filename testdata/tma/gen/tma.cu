// tma.cu: cp.async.bulk.tensor tile mode on sm_90 for ptxvm issue 24 item 4:
// loads of a box (1D to 5D; out-of-bounds boxes; zero and NaN fill;
// element strides; 32B/64B/128B swizzle) into shared memory, completing on
// an mbarrier, and stores of a box from shared memory (bulk_group). The host
// encodes each tensor map with cuTensorMapEncodeTiled. Usage: tma OUTDIR CASE
// (one case per process; `tma list` prints the cases).
#include "tma_kernels.h"

// dtype numbers (CUtensorMapDataType): 0 u8, 1 u16, 2 u32, 3 s32, 4 u64,
// 5 s64, 6 f16, 7 f32, 8 f64, 9 bf16. swizzle: 0 none, 1 32B, 2 64B, 3 128B.
// oob: 0 zero, 1 NaN (request zero FMA).
static const TmapCase kLoads[] = {
    // name          rank dt es  dims                 strides             box             estr           sw oob coords
    // (the first recording: a box whose dimension-0 start is not a multiple
    // of 16 bytes raised cudaErrorIllegalInstruction; these start aligned)
    {"l1d_f32_lo", 1, 7, 4, {1000}, {}, {64}, {1}, 0, 0, {-16}},
    {"l1d_f32_hi", 1, 7, 4, {1000}, {}, {64}, {1}, 0, 0, {980}},
    {"l2d_u16_lo2", 2, 1, 2, {40, 30}, {96}, {16, 8}, {1, 1}, 0, 0, {-8, -2}},
    {"l2d_u16_hi2", 2, 1, 2, {40, 30}, {96}, {16, 8}, {1, 1}, 0, 0, {32, 26}},
    {"l2d_u16_out", 2, 1, 2, {40, 30}, {96}, {16, 8}, {1, 1}, 0, 0, {48, 40}},
    {"l3d_u8_2", 3, 0, 1, {48, 5, 7}, {64, 320}, {32, 4, 3}, {1, 1, 1}, 0, 0, {16, 3, 5}},
    {"l4d_f32", 4, 7, 4, {8, 3, 4, 5}, {32, 96, 384}, {8, 2, 2, 2}, {1, 1, 1, 1}, 0, 0, {0, 2, -1, 4}},
    {"l5d_u16_2", 5, 1, 2, {16, 3, 3, 3, 3}, {32, 96, 288, 864}, {8, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, 0, 0, {8, -1, 2, 1, 2}},
    {"l2d_f32_nan", 2, 7, 4, {40, 30}, {160}, {8, 8}, {1, 1}, 0, 1, {36, -4}},
    {"l2d_f16_nan2", 2, 6, 2, {40, 30}, {96}, {8, 8}, {1, 1}, 0, 1, {-8, 25}},
    {"l2d_bf16_nan2", 2, 9, 2, {40, 30}, {96}, {8, 8}, {1, 1}, 0, 1, {32, 28}},
    {"l2d_f64_nan", 2, 8, 8, {20, 10}, {160}, {4, 4}, {1, 1}, 0, 1, {18, 8}},
    {"l2d_f64", 2, 8, 8, {20, 10}, {160}, {4, 4}, {1, 1}, 0, 0, {18, 8}},
    {"l2d_estr_12", 2, 7, 4, {40, 30}, {160}, {8, 8}, {1, 2}, 0, 0, {4, 3}},
    {"l2d_estr_21b", 2, 7, 4, {40, 30}, {160}, {8, 8}, {2, 1}, 0, 0, {32, 27}},
    {"l2d_estr_33", 2, 7, 4, {40, 30}, {160}, {12, 7}, {3, 3}, 0, 0, {28, 20}},
    {"sw32", 2, 1, 2, {64, 40}, {128}, {16, 8}, {1, 1}, 1, 0, {8, 4}},
    {"sw64", 2, 1, 2, {64, 40}, {128}, {32, 8}, {1, 1}, 2, 0, {-8, 36}},
    {"sw128", 2, 1, 2, {64, 40}, {128}, {64, 16}, {1, 1}, 3, 0, {0, 3}},
    {"sw128_oob", 2, 1, 2, {64, 40}, {128}, {64, 16}, {1, 1}, 3, 0, {-16, 30}},
    {"sw128_narrow2", 2, 0, 1, {200, 40}, {208}, {64, 16}, {1, 1}, 3, 0, {96, 10}},
    {"sw128_3d", 3, 7, 4, {32, 6, 4}, {128, 768}, {32, 4, 2}, {1, 1, 1}, 3, 0, {0, 3, 1}},
    {"sw64_narrow2", 2, 1, 2, {64, 40}, {128}, {16, 12}, {1, 1}, 2, 0, {8, 1}},
    {"sw32_tall2", 2, 2, 4, {24, 64}, {96}, {8, 40}, {1, 1}, 1, 0, {-4, 30}},
    {"sw128_f32_tall", 2, 7, 4, {40, 300}, {160}, {32, 100}, {1, 1}, 3, 0, {4, 90}},
};
static const TmapCase kStores[] = {
    {"s2d_f32_2", 2, 7, 4, {40, 30}, {160}, {16, 8}, {1, 1}, 0, 0, {28, -3}},
    {"s2d_f32_neg", 2, 7, 4, {40, 30}, {160}, {16, 8}, {1, 1}, 0, 0, {-12, 25}},
    {"s3d_u16_sw64_2", 3, 1, 2, {64, 10, 3}, {128, 1280}, {32, 4, 2}, {1, 1, 1}, 2, 0, {8, 8, 1}},
    {"s1d_u8_2", 1, 0, 1, {300}, {}, {64}, {1}, 0, 0, {256}},
    {"s2d_sw128", 2, 1, 2, {64, 40}, {128}, {64, 8}, {1, 1}, 3, 0, {0, 0}},
    {"s2d_sw128_oob", 2, 1, 2, {64, 40}, {128}, {64, 8}, {1, 1}, 3, 0, {-8, 36}},
    {"s5d_f32_in", 5, 7, 4, {4, 3, 3, 3, 3}, {16, 48, 144, 432}, {4, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, 0, 0, {0, 0, 0, 0, 0}},
    {"s5d_f32_d4", 5, 7, 4, {4, 3, 3, 3, 3}, {16, 48, 144, 432}, {4, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, 0, 0, {0, 0, 0, 0, 2}},
    {"s5d_f32_w8", 5, 7, 4, {8, 3, 3, 3, 3}, {32, 96, 288, 864}, {4, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, 0, 0, {4, 2, -1, 1, 2}},
};

template <class K> static void launchRank(unsigned rank, bool store, const CUtensorMap& m, const int* c, unsigned bytes,
                                          uint8_t* p, unsigned* st)
{
    dim3 g(1), b(128);
    switch (rank * 2 + store) {
    case 2: tma_load_1d<<<g, b>>>(m, c[0], bytes, p, st); break;
    case 3: tma_store_1d<<<g, b>>>(m, c[0], bytes, p); break;
    case 4: tma_load_2d<<<g, b>>>(m, c[0], c[1], bytes, p, st); break;
    case 5: tma_store_2d<<<g, b>>>(m, c[0], c[1], bytes, p); break;
    case 6: tma_load_3d<<<g, b>>>(m, c[0], c[1], c[2], bytes, p, st); break;
    case 7: tma_store_3d<<<g, b>>>(m, c[0], c[1], c[2], bytes, p); break;
    case 8: tma_load_4d<<<g, b>>>(m, c[0], c[1], c[2], c[3], bytes, p, st); break;
    case 9: tma_store_4d<<<g, b>>>(m, c[0], c[1], c[2], c[3], bytes, p); break;
    case 10: tma_load_5d<<<g, b>>>(m, c[0], c[1], c[2], c[3], c[4], bytes, p, st); break;
    case 11: tma_store_5d<<<g, b>>>(m, c[0], c[1], c[2], c[3], c[4], bytes, p); break;
    }
}

static std::vector<uint8_t> pattern(size_t n, uint32_t seed)
{
    std::vector<uint32_t> w = lcg((n + 3) / 4, seed);
    std::vector<uint8_t> b((uint8_t*)w.data(), (uint8_t*)w.data() + n);
    return b;
}

int main(int argc, char** argv)
{
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (auto& c : kLoads)
            printf("%s\n", c.name);
        for (auto& c : kStores)
            printf("%s\n", c.name);
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTDIR CASE | list\n", argv[0]);
        return 2;
    }
    const TmapCase* c = nullptr;
    bool store = false;
    for (auto& x : kLoads)
        if (!strcmp(x.name, argv[2]))
            c = &x;
    for (auto& x : kStores)
        if (!strcmp(x.name, argv[2]))
            c = &x, store = true;
    if (!c) {
        fprintf(stderr, "unknown case %s\n", argv[2]);
        return 2;
    }
    openCase(argv[1], c->name);
    check(cudaFree(0), "cudaFree(0)");
    size_t tb = tensorBytes(*c);
    unsigned bb = boxBytes(*c);
    std::vector<uint8_t> g = pattern(tb, 1000 + (uint32_t)tb);
    if (store)
        g.assign(tb, 0xEE);
    uint8_t* dg = dev(g);
    CUtensorMap m;
    if (encode(&m, *c, dg)) {
        save("tmap", &m, sizeof(m));
        save("global", g.data(), g.size());
        if (!store) {
            std::vector<uint8_t> z(16384, 0);
            std::vector<unsigned> z2(128, 7);
            uint8_t* dout = dev(z);
            unsigned* dst = dev(z2);
            launchRank<int>(c->rank, false, m, c->coord, bb, dout, dst);
            launched("tma_load");
            save("smem", back(dout, 16384).data(), 16384);
            save("st", back(dst, 128).data(), 128 * 4);
            fprintf(g_meta, "launch tma_load_%ud grid 1 block 128 args tmap coords bytes=%u smem st\n", c->rank, bb);
        } else {
            std::vector<uint8_t> in = pattern(bb, 77);
            uint8_t* din = dev(in);
            launchRank<int>(c->rank, true, m, c->coord, bb, din, nullptr);
            launched("tma_store");
            save("box", in.data(), in.size());
            save("global_after", back(dg, tb).data(), tb);
            fprintf(g_meta, "launch tma_store_%ud grid 1 block 128 args tmap coords bytes=%u box; global was all 0xEE\n", c->rank, bb);
        }
    }
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}
