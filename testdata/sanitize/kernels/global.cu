// A race compute-sanitizer does not check (ptxvm issue 25): plain accesses
// of one global word from two blocks of a launch, which nothing orders.
// ptxrun sanitize --tool racecheck --global reports them.

extern "C" __global__ void race_global_blocks(int* out)
{
    // both blocks write out[2] (WAW), block 1 reads out[0], which block 0
    // wrote (RAW), and block 1 writes out[1], which block 0 read (WAR)
    if (threadIdx.x == 0) {
        out[blockIdx.x] = blockIdx.x + 1;
        out[2] = blockIdx.x;
        out[3 + blockIdx.x] = out[1 - blockIdx.x];
    }
}
