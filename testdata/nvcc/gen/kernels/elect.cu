// elect.cu — elect.sync (PTX ISA 8.0, sm_90) through inline PTX.

#define FULL 0xffffffffu

// elect.sync over the full warp and, in a divergent branch, over the lanes
// whose value is positive (mask computed before the branch). out K=5.
__global__ void elect_sync(unsigned* out, const int* in)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[i];
    unsigned leader, is_leader;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "elect.sync %0|p, 0xffffffff;\n\t"
                 "selp.u32 %1, 1, 0, p;\n\t}"
                 : "=r"(leader), "=r"(is_leader));
    const unsigned m = __ballot_sync(FULL, v > 0);
    unsigned l2 = 0xFFFFFFFFu, e2 = 0xFFFFFFFFu;
    if (v > 0) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "elect.sync %0|p, %2;\n\t"
                     "selp.u32 %1, 1, 0, p;\n\t}"
                     : "=r"(l2), "=r"(e2) : "r"(m));
    }
    unsigned* o = out + i * 5;
    o[0] = leader;
    o[1] = is_leader;
    o[2] = l2;
    o[3] = e2;
    o[4] = m;
}
