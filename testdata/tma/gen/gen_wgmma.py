#!/usr/bin/env python3
"""gen_wgmma.py DIR: writes wg_<group>.cu, the wgmma.mma_async recording
programs (sm_90a) of ptxvm issue 24 item 6, one binary per group so that a
form ptxas refuses costs only its group. Every kernel runs one warpgroup per
block on that block's own 16 KiB shared-memory image (A region: first 8 KiB,
B region: last 8 KiB), descriptors the host gives (start offset relative to
the image, LBO, SBO, swizzle) advanced by a host-given delta at each of
`steps` k-steps, accumulators from cin; it writes the accumulators to dout.
Usage of a program: wg_<group> OUTDIR CASE | list."""
import sys

# form: (kernel, shape, dtype, atype, btype, rs, satfinite, scale/trans immediates)
# The immediates: for f16/bf16 ss: sa sb ta tb; rs: sa sb tb; tf32/fp8: sa sb; int: none.
def regs(n, dtype):
    return n // 2 if dtype == "f32" or dtype == "s32" else n // 4

def kernel(name, m_n, k, dtype, atype, btype, rs, sat, imms, satpos="end"):
    nreg = regs(m_n, dtype)
    cons = "f" if dtype == "f32" else "r"
    ctype = "float" if dtype == "f32" else "uint32_t"
    d = ", ".join(f"%{i}" for i in range(nreg))
    i = nreg
    if rs:
        a = "{" + ", ".join(f"%{i + j}" for j in range(4)) + "}"
        i += 4
    else:
        a = f"%{i}"
        i += 1
    b = f"%{i}"
    i += 1
    sd = f"%{i}"
    types = f"{dtype}.{atype}.{btype}"
    if sat:
        types = f"{types}.satfinite" if satpos == "end" else f"satfinite.{types}"
    op = f"wgmma.mma_async.sync.aligned.m64n{m_n}k{k}.{types}"
    ops = ", ".join([f"{{{d}}}", a, b, "p"] + [str(x) for x in imms])
    outs = ", ".join(f'"+{cons}"(d[{j}])' for j in range(nreg))
    ins = []
    if rs:
        ins += [f'"r"(af[{j}])' for j in range(4)]
    else:
        ins.append('"l"(da)')
    ins += ['"l"(db)', '"r"(sd)']
    return f'''
extern "C" __global__ void __launch_bounds__(128) {name}(const uint4* img, const uint32_t* afrag, const uint32_t* cin, uint32_t* dout,
    unsigned long long descA, unsigned long long descB, unsigned long long deltaA, unsigned long long deltaB, unsigned steps, unsigned scaleMask)
{{
    __shared__ alignas(1024) uint4 sm[1024];
    unsigned t = threadIdx.x, blk = blockIdx.x;
    for (unsigned i = t; i < 1024; i += 128)
        sm[i] = img[blk * 1024 + i];
    fenceProxyAsyncShared();
    __syncthreads();
    {ctype} d[{nreg}];
    for (int j = 0; j < {nreg}; j++) {{
        uint32_t w = cin[(blk * 128 + t) * {nreg} + j];
        memcpy(&d[j], &w, 4);
    }}
    unsigned long long base = (unsigned long long)((smem(sm) & 0x3FFFF) >> 4);
    unsigned long long da = descA + base, db = descB + base;
    unsigned sd = (scaleMask >> (blk & 31)) & 1;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (unsigned s = 0; s < steps; s++) {{
        const uint32_t* af = afrag + ((blk * steps + s) * 128 + t) * 4;
        asm volatile("{{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, {sd}, 0;\\n\\t{op} {ops};\\n\\t}}"
                     : {outs}
                     : {", ".join(ins)}
                     : "memory");
        (void)af;
        da += deltaA;
        db += deltaB;
        sd = 1;
    }}
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < {nreg}; j++) {{
        uint32_t w;
        memcpy(&w, &d[j], 4);
        dout[(blk * 128 + t) * {nreg} + j] = w;
    }}
}}
'''

# desc(start, lbo, sbo, swizzle): swizzle 0 none, 1 128B, 2 64B, 3 32B.
def desc(start, lbo, sbo, sw):
    return (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (sw << 62)

B0 = 8192  # the B region's offset in the image
# groups: name -> list of (case, kernel spec, nblocks, descA, descB, deltaA, deltaB, steps, data kind)
GROUPS = {}
def case(group, cname, kspec, nblocks, dA, dB, delA, delB, steps, data="mix", n=None):
    GROUPS.setdefault(group, []).append((cname, kspec, nblocks, dA, dB, delA, delB, steps, data))

# f16 / bf16 -----------------------------------------------------------------
F16N16 = ("wg_f32_f16_n16_ss", 16, 16, "f32", "f16", "f16", False, False, (1, 1, 0, 0))
case("f16", "f16_kk_none", F16N16, 30, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
case("f16", "f16_kk_none_onehot", F16N16, 128, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1, data="onehot")
case("f16", "f16_kk_none_lbo", F16N16, 6, desc(160, 2048, 256, 0), desc(B0 + 48, 1024, 128, 0), 0, 0, 1)
case("f16", "f16_kk_sw128_4k", F16N16, 6, desc(0, 16, 1024, 1), desc(B0, 16, 1024, 1), 2, 2, 4)
case("f16", "f16_kk_sw64_2k", F16N16, 6, desc(0, 16, 512, 2), desc(B0, 16, 512, 2), 2, 2, 2)
case("f16", "f16_kk_sw32", F16N16, 6, desc(0, 16, 256, 3), desc(B0, 16, 256, 3), 0, 0, 1)
case("f16", "f16_kk_none_4k", F16N16, 6, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 16, 8, 4)
F16TT = ("wg_f32_f16_n16_ss_tt", 16, 16, "f32", "f16", "f16", False, False, (1, 1, 1, 1))
case("f16", "f16_mn_none", F16TT, 6, desc(0, 1024, 128, 0), desc(B0, 256, 128, 0), 0, 0, 1)
case("f16", "f16_mn_none_onehot", F16TT, 128, desc(0, 1024, 128, 0), desc(B0, 256, 128, 0), 0, 0, 1, data="onehot")
F16TT64 = ("wg_f32_f16_n64_ss_tt", 64, 16, "f32", "f16", "f16", False, False, (1, 1, 1, 1))
case("f16", "f16_mn_sw128_n64", F16TT64, 6, desc(0, 2048, 1024, 1), desc(B0, 2048, 1024, 1), 128, 128, 2)
case("f16", "f16_mn_sw64_n64", ("wg_f32_f16_n64_ss_tt", 64, 16, "f32", "f16", "f16", False, False, (1, 1, 1, 1)), 6,
     desc(0, 1024, 512, 2), desc(B0, 1024, 512, 2), 64, 64, 2)
F16TK = ("wg_f32_f16_n16_ss_tk", 16, 16, "f32", "f16", "f16", False, False, (-1, 1, 1, 0))
case("f16", "f16_mk_neg_a", F16TK, 6, desc(0, 1024, 128, 0), desc(B0, 128, 256, 0), 0, 0, 1)
F16RS = ("wg_f32_f16_n16_rs", 16, 16, "f32", "f16", "f16", True, False, (1, -1, 0))
case("f16", "f16_rs_kk", F16RS, 9, 0, desc(B0, 128, 256, 0), 0, 0, 2)
F16RST = ("wg_f32_f16_n32_rs_t", 32, 16, "f32", "f16", "f16", True, False, (1, 1, 1))
case("f16", "f16_rs_mn_sw64", F16RST, 6, 0, desc(B0, 1024, 512, 2), 0, 64, 2)
H16 = ("wg_f16_f16_n16_ss", 16, 16, "f16", "f16", "f16", False, False, (1, 1, 0, 0))
case("f16", "f16acc_kk_none", H16, 6, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 16, 8, 4)
BF32 = ("wg_f32_bf16_n32_ss", 32, 16, "f32", "bf16", "bf16", False, False, (1, 1, 0, 0))
case("f16", "bf16_kk_sw128_4k", BF32, 15, desc(0, 16, 1024, 1), desc(B0, 16, 1024, 1), 2, 2, 4)
BF256 = ("wg_f32_bf16_n256_ss", 256, 16, "f32", "bf16", "bf16", False, False, (1, 1, 0, 0))
case("f16", "bf16_kk_none_n256", BF256, 6, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
BFT = ("wg_f32_bf16_n16_ss_tt", 16, 16, "f32", "bf16", "bf16", False, False, (1, 1, 1, 1))
case("f16", "bf16_mn_none", BFT, 6, desc(0, 1024, 128, 0), desc(B0, 256, 128, 0), 0, 0, 1)
# tf32 ----------------------------------------------------------------------
TF = ("wg_f32_tf32_n16_ss", 16, 8, "f32", "tf32", "tf32", False, False, (1, 1))
case("tf32", "tf32_kk_none", TF, 15, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
case("tf32", "tf32_kk_sw128_4k", TF, 6, desc(0, 16, 1024, 1), desc(B0, 16, 1024, 1), 2, 2, 4)
TFR = ("wg_f32_tf32_n16_rs", 16, 8, "f32", "tf32", "tf32", True, False, (1, 1))
case("tf32", "tf32_rs", TFR, 6, 0, desc(B0, 128, 256, 0), 0, 0, 1)
# 8-bit integers ------------------------------------------------------------
for at, bt in (("s8", "s8"), ("u8", "s8"), ("u8", "u8")):
    K = (f"wg_s32_{at}{bt}_n16_ss", 16, 32, "s32", at, bt, False, False, ())
    case("int8", f"{at}{bt}_kk_none", K, 12, desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
case("int8", "s8s8_kk_sw128_4k", ("wg_s32_s8s8_n16_ss", 16, 32, "s32", "s8", "s8", False, False, ()), 6,
     desc(0, 16, 1024, 1), desc(B0, 16, 1024, 1), 2, 2, 4)
case("int8", "s8s8_rs", ("wg_s32_s8s8_n16_rs", 16, 32, "s32", "s8", "s8", True, False, ()), 12, 0, desc(B0, 128, 256, 0), 0, 0, 1)
case("int8sat", "s8s8_sat", ("wg_s32_s8s8_n16_sat", 16, 32, "s32", "s8", "s8", False, True, ()), 6,
     desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
case("int8sat2", "s8s8_sat2", ("wg_s32_s8s8_n16_sat2", 16, 32, "s32", "s8", "s8", False, "pre", ()), 6,
     desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
# fp8 -----------------------------------------------------------------------
case("fp8", "e4m3_f32", ("wg_f32_e4m3e4m3_n16_ss", 16, 32, "f32", "e4m3", "e4m3", False, False, (1, 1)), 15,
     desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
case("fp8", "e5m2e4m3_f16", ("wg_f16_e5m2e4m3_n16_ss", 16, 32, "f16", "e5m2", "e4m3", False, False, (1, -1)), 9,
     desc(0, 128, 256, 0), desc(B0, 128, 256, 0), 0, 0, 1)
case("fp8", "e5m2_f32_sw128", ("wg_f32_e5m2e5m2_n16_ss", 16, 32, "f32", "e5m2", "e5m2", False, False, (1, 1)), 6,
     desc(0, 16, 1024, 1), desc(B0, 16, 1024, 1), 2, 2, 4)

HOST = r'''
struct Case {
    const char* name;
    const char* kernel;
    void (*fn)(const uint4*, const uint32_t*, const uint32_t*, uint32_t*, unsigned long long, unsigned long long,
               unsigned long long, unsigned long long, unsigned, unsigned);
    unsigned nreg, nblocks;
    const char *dtype, *atype, *btype;
    unsigned long long descA, descB, deltaA, deltaB;
    unsigned steps;
    const char* data;
};

static uint32_t g_s = 1;
static uint32_t rnd()
{
    g_s = g_s * 1664525u + 1013904223u;
    return g_s ^ (g_s >> 15);
}
static unsigned esize(const char* t)
{
    return !strcmp(t, "tf32") ? 4 : (!strcmp(t, "f16") || !strcmp(t, "bf16")) ? 2 : 1;
}
// one element's bits of type t for data kind k (0 plain, 1 wide exponents, 2 specials)
static uint32_t elem(const char* t, int k)
{
    uint32_t r = rnd(), s = (r >> 31) & 1, x;
    int sp = k == 2 && (r & 15) == 0;
    if (!strcmp(t, "f16")) {
        uint32_t e = k == 0 ? 12 + (r >> 10) % 6 : (r >> 10) % 31;
        x = (s << 15) | (e << 10) | (rnd() & 0x3ff);
        if (sp) {
            static const uint16_t v[] = {0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0001, 0x8000, 0x7bff, 0x03ff};
            x = v[(r >> 4) % 8];
        }
    } else if (!strcmp(t, "bf16")) {
        uint32_t e = k == 0 ? 124 + (r >> 10) % 6 : (k == 1 ? 90 + (r >> 10) % 80 : (r >> 10) % 255);
        x = (s << 15) | (e << 7) | (rnd() & 0x7f);
        if (sp) {
            static const uint16_t v[] = {0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0001, 0x8000, 0x7f7f, 0x007f};
            x = v[(r >> 4) % 8];
        }
    } else if (!strcmp(t, "tf32")) {
        uint32_t e = k == 0 ? 124 + (r >> 10) % 6 : (k == 1 ? 60 + (r >> 10) % 130 : (r >> 10) % 255);
        x = (s << 31) | (e << 23) | (rnd() & 0x7fffff);
        if (sp) {
            static const uint32_t v[] = {0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x00000001, 0x80000000, 0x7f7fffff, 0x007fffff};
            x = v[(r >> 4) % 8];
        }
    } else {
        x = r & 0xff;
        if (k == 1 && (r & 3) == 0)
            x = (r & 4) ? 0x7f : 0x80;
        if (k == 0 && (!strcmp(t, "e4m3") || !strcmp(t, "e5m2")))
            x = (x & 0x87) | (!strcmp(t, "e4m3") ? 0x30 : 0x38); // exponents near 1
    }
    return x;
}
static uint32_t accum(const char* t, int k)
{
    uint32_t r = rnd(), s = (r >> 31) & 1;
    if (!strcmp(t, "f32")) {
        uint32_t e = k == 0 ? 124 + (r >> 10) % 6 : (k == 1 ? 100 + (r >> 10) % 60 : (r >> 10) % 255);
        uint32_t x = (s << 31) | (e << 23) | (rnd() & 0x7fffff);
        if (k == 2 && (r & 15) == 0)
            x = (r & 16) ? 0x7f800000 : 0x00000003;
        return x;
    }
    if (!strcmp(t, "f16"))
        return elem("f16", k) | (elem("f16", k) << 16);
    if (k == 1)
        return (r & 1) ? 0x7ffffff0u + (r >> 28) : 0x80000010u - (r >> 28);
    return rnd();
}

static void put(std::vector<uint8_t>& img, size_t off, uint32_t v, unsigned n)
{
    memcpy(&img[off], &v, n);
}

static uint16_t toHalf(unsigned i) // a small non-negative integer as f16 (exact below 2048)
{
    if (i == 0)
        return 0;
    int e = 31 - __builtin_clz(i);
    uint32_t m = (i << (10 - e)) & 0x3ff;
    return (uint16_t)(((e + 15) << 10) | m);
}

static void run(const Case& c, const char* out)
{
    openCase(out, c.name);
    unsigned nb = c.nblocks;
    std::vector<uint8_t> img(nb * 16384);
    std::vector<uint32_t> af(nb * c.steps * 128 * 4), cin(nb * 128 * c.nreg);
    g_s = 12345;
    unsigned ea = esize(c.atype), eb = esize(c.btype);
    bool onehot = !strcmp(c.data, "onehot");
    for (unsigned b = 0; b < nb; b++) {
        int k = b % 3;
        uint8_t* base = &img[b * 16384];
        std::vector<uint8_t> one(16384);
        for (unsigned o = 0; o < 8192; o += ea)
            put(one, o, onehot ? toHalf((o / 2) % 2048) : elem(c.atype, k), ea);
        for (unsigned o = 8192; o < 16384; o += eb)
            put(one, o, onehot ? ((o - 8192) / 2 == b ? 0x3c00u : 0u) : elem(c.btype, k), eb);
        memcpy(base, one.data(), 16384);
        for (unsigned i = 0; i < c.steps * 128 * 4; i++) {
            uint32_t w = 0;
            for (unsigned q = 0; q < 4; q += ea)
                w |= elem(c.atype, k) << (8 * q);
            af[b * c.steps * 512 + i] = onehot ? 0 : w;
        }
        for (unsigned i = 0; i < 128 * c.nreg; i++)
            cin[b * 128 * c.nreg + i] = onehot ? 0 : accum(c.dtype, k);
    }
    unsigned mask = 0;
    for (unsigned b = 0; b < 32; b++)
        if (b % 5 != 4)
            mask |= 1u << b;
    uint4* dimg = (uint4*)dev(img);
    uint32_t* daf = dev(af);
    uint32_t* dcin = dev(cin);
    std::vector<uint32_t> z(cin.size(), 0xdeadbeefu);
    uint32_t* dd = dev(z);
    c.fn<<<nb, 128>>>(dimg, daf, dcin, dd, c.descA, c.descB, c.deltaA, c.deltaB, c.steps, mask);
    launched(c.kernel);
    save("img", img.data(), img.size());
    save("afrag", af.data(), af.size() * 4);
    save("cin", cin.data(), cin.size() * 4);
    save("dout", back(dd, z.size()).data(), z.size() * 4);
    fprintf(g_meta, "launch %s grid %u block 128 args img afrag cin dout descA=%#llx descB=%#llx deltaA=%llu deltaB=%llu steps=%u scaleMask=%#x\n",
            c.kernel, nb, c.descA, c.descB, c.deltaA, c.deltaB, c.steps, mask);
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
}

int main(int argc, char** argv)
{
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (auto& c : kCases)
            printf("%s\n", c.name);
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTDIR CASE | list\n", argv[0]);
        return 2;
    }
    for (auto& c : kCases)
        if (!strcmp(c.name, argv[2])) {
            run(c, argv[1]);
            return g_fail;
        }
    fprintf(stderr, "unknown case %s\n", argv[2]);
    return 2;
}
'''


def bench(out):
    """bench_wg.cu: clock64 latency (issue, commit, wait 0, R times) and
    throughput (R chained issues, one commit and wait) of
    wgmma.mma_async.m64nNk16.f32.f16.f16 with both operands in shared memory."""
    parts = ["// bench_wg.cu (generated by gen_wgmma.py): wgmma timing on sm_90a.\n",
             '#include "rec.h"\n#include "dev.h"\n']
    for n in (16, 64, 128, 256):
        nreg = n // 2
        d = ", ".join(f"%{i}" for i in range(nreg))
        outs = ", ".join(f'"+f"(d[{j}])' for j in range(nreg))
        op = (f'"{{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %{nreg + 2}, 0;\\n\\t'
              f'wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {{{d}}}, %{nreg}, %{nreg + 1}, p, 1, 1, 0, 0;\\n\\t}}"'
              f' : {outs} : "l"(da), "l"(db), "r"(1) : "memory"')
        parts.append(f"""
extern "C" __global__ void __launch_bounds__(128) bench_n{n}(unsigned long long* cyc, float* sink, unsigned reps)
{{
    __shared__ alignas(1024) uint4 sm[2048];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < 2048; i += 128)
        sm[i] = make_uint4(0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u);
    fenceProxyAsyncShared();
    __syncthreads();
    float d[{nreg}];
    for (int j = 0; j < {nreg}; j++)
        d[j] = 0.0f;
    unsigned long long base = (unsigned long long)((smem(sm) & 0x3FFFF) >> 4);
    unsigned long long da = base | (8ull << 16) | (16ull << 32), db = (base + 512) | (8ull << 16) | (16ull << 32);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    long long t0 = clock64();
    for (unsigned r = 0; r < reps; r++) {{
        asm volatile({op});
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }}
    long long t1 = clock64();
    for (unsigned r = 0; r < reps; r++)
        asm volatile({op});
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    long long t2 = clock64();
    float s = 0;
    for (int j = 0; j < {nreg}; j++)
        s += d[j];
    sink[blockIdx.x * 128 + t] = s;
    if (t == 0) {{
        cyc[blockIdx.x * 2 + 0] = t1 - t0;
        cyc[blockIdx.x * 2 + 1] = t2 - t1;
    }}
}}
""")
    parts.append(r"""
int main(int argc, char** argv)
{
    if (argc < 2)
        return 2;
    openCase(argv[1], "bench_wg");
    unsigned long long* dc = nullptr;
    float* ds = nullptr;
    check(cudaMalloc(&dc, 132 * 16), "malloc");
    check(cudaMalloc(&ds, 132 * 128 * 4), "malloc");
    const unsigned reps = 64;
    for (int n : {16, 64, 128, 256})
        for (int blocks : {1, 132}) {
            for (int rep = 0; rep < 3; rep++) {
                if (n == 16) bench_n16<<<blocks, 128>>>(dc, ds, reps);
                if (n == 64) bench_n64<<<blocks, 128>>>(dc, ds, reps);
                if (n == 128) bench_n128<<<blocks, 128>>>(dc, ds, reps);
                if (n == 256) bench_n256<<<blocks, 128>>>(dc, ds, reps);
                launched("bench");
            }
            std::vector<unsigned long long> c = back(dc, 2);
            fprintf(g_meta, "wgmma m64n%dk16.f32.f16.f16 ss blocks %d reps %u: latency (issue+commit+wait) %.1f cycles each; chained throughput %.1f cycles each\n",
                    n, blocks, reps, (double)c[0] / reps, (double)c[1] / reps);
        }
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}
""")
    with open(f"{out}/bench_wg.cu", "w") as f:
        f.write("".join(parts))

def main():
    out = sys.argv[1]
    for g, cases in GROUPS.items():
        seen = {}
        for (_, ks, *_rest) in cases:
            seen[ks[0]] = ks
        src = [f"// wg_{g}.cu (generated by gen_wgmma.py): wgmma.mma_async forms on sm_90a.\n",
               '#include "rec.h"\n#include "dev.h"\n']
        for ks in seen.values():
            name, n, k, dtype, at, bt, rs, sat, imms = ks
            satpos = "pre" if sat == "pre" else "end"
            src.append(kernel(name, n, k, dtype, at, bt, rs, bool(sat), imms, satpos))
        host_head, host_tail = HOST.split("static void run")
        src.append(host_head)
        src.append("static const Case kCases[] = {\n")
        for (cname, ks, nb, dA, dB, delA, delB, steps, data) in cases:
            name, n, k, dtype, at, bt, rs, sat, imms = ks
            src.append(f'    {{"{cname}", "{name}", {name}, {regs(n, dtype)}, {nb}, "{dtype}", "{at}", "{bt}", {dA:#x}ull, {dB:#x}ull, {delA}, {delB}, {steps}, "{data}"}},\n')
        src.append("};\n")
        text = "".join(src) + "static void run" + host_tail
        with open(f"{out}/wg_{g}.cu", "w") as f:
            f.write(text)
    bench(out)
    print(" ".join(GROUPS))

main()
