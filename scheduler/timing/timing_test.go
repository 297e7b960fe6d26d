package timing

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// ptxLaunch prepares kernel k of src with one u64 argument: a buffer of n
// bytes it returns with the device.
func ptxLaunch(t testing.TB, src string, grid, block uint32, n uint64) (*vm.Launch, *vm.Device, uint64) {
	t.Helper()
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(src))
	require.NoError(t, err)
	buf, err := dev.Malloc(n, "out")
	require.NoError(t, err)
	arg := make([]byte, 8)
	binary.LittleEndian.PutUint64(arg, buf)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{grid, 1, 1}, Block: [3]uint32{block, 1, 1}}, [][]byte{arg})
	require.NoError(t, err)
	return l, dev, buf
}

// outKernel is the tests' inline PTX: a kernel k(out) with %p<4>, %r<16>
// and %rd<8> declared, and decls (more registers, shared arrays), whose
// body starts with out's global address in %rd2.
func outKernel(body string, decls ...string) string {
	var d strings.Builder
	for _, x := range decls {
		d.WriteString("\t" + x + "\n")
	}
	return `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
` + d.String() + `	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
` + body + `}`
}

// %clock64 reads the simulated cycle: around a global load and its use it
// advances by at least the load's latency from DRAM, and thread 0 of the
// second block starts later than thread 0 of the first on the same SM's
// schedule only by what the model says.
func TestClockReadsCycle(t *testing.T) {
	src := outKernel(`	mov.u64 %rd3, %clock64;
	ld.global.u32 %r1, [%rd2+64];
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd2+128], %r2;
	mov.u64 %rd4, %clock64;
	st.global.u64 [%rd2], %rd3;
	st.global.u64 [%rd2+8], %rd4;
	ret;
`)
	prof := gpu.MustLookup("h100")
	l, dev, buf := ptxLaunch(t, src, 1, 32, 256)
	res, err := Run(context.Background(), l, prof, Options{BlocksPerSM: 1, Workers: 1})
	require.NoError(t, err)
	out := make([]byte, 16)
	require.NoError(t, dev.MemcpyDtoH(out, buf))
	start, end := binary.LittleEndian.Uint64(out), binary.LittleEndian.Uint64(out[8:])
	lat := prof.Memory.Latency
	assert.GreaterOrEqual(t, end-start, uint64(lat.L1Hit+lat.L2HitNear+lat.DRAM)-uint64(lat.DRAMJitter), "a cold load's round trip between the reads")
	assert.Less(t, end-start, uint64(3*(lat.L1Hit+lat.L2HitFar+lat.DRAM)))
	assert.GreaterOrEqual(t, start, uint64(prof.Timing.CTALaunchCycles), "the block starts after its launch")
	assert.Less(t, end, res.Cycles, "the kernel ends after the last read")
}

// Stall reasons: every cycle of every resident warp is one reason, so the
// reasons add up to the warps' resident cycles; a lone warp is never
// "not selected"; selected counts issues.
func TestStallAccounting(t *testing.T) {
	res := runKernel(t, "matmul_tiled", 64, Options{})
	assert.Equal(t, res.WarpCycles, res.Stalls.Total(), "one reason per warp-cycle")
	assert.Equal(t, res.Issued, res.Stalls[Selected])
	var per Stalls
	for i := range res.Insts {
		per.Add(&res.Insts[i].Stalls)
	}
	assert.Equal(t, res.Stalls, per, "per-instruction stalls add up to the totals")
	m := res.Metrics()
	assert.InDelta(t, 1, m[Selected.Metric()], 1e-9)
	for s := Stall(0); s < NumStalls; s++ {
		assert.Contains(t, m, s.Metric())
	}
	assert.Greater(t, m[LongScoreboard.Metric()], 1.0, "the tiled matmul waits on global loads")
	assert.Greater(t, m[Barrier.Metric()], 0.1, "and at its barriers")
	assert.InDelta(t, float64(res.Cycles)*1000/1980, m[MetricDuration], 1e-6)
	seen := map[string]bool{}
	var share float64
	for _, src := range res.StallSources() {
		sentence := src.Sentence()
		i := strings.LastIndex(sentence, ": ")
		assert.False(t, seen[sentence[:i]], "each source reads differently: %q twice", sentence[:i])
		seen[sentence[:i]] = true
		share += src.Share
	}
	assert.InDelta(t, 1, share, 1e-3, "the sources share all stall cycles (up to the rounding of shared waits)")

	lone := outKernel(`	ld.global.f32 %f1, [%rd2];
	sqrt.rn.f32 %f2, %f1;
	st.global.f32 [%rd2], %f2;
	ret;
`, ".reg .f32 %f<4>;")
	l, _, _ := ptxLaunch(t, lone, 1, 32, 64)
	r, err := Run(context.Background(), l, gpu.MustLookup("h100"), Options{BlocksPerSM: 1})
	require.NoError(t, err)
	assert.Zero(t, r.Stalls[NotSelected], "one warp alone is never passed over")
	assert.Equal(t, r.WarpCycles, r.Stalls.Total())
}

// Greedy-then-oldest and loose round robin give the same results and
// different schedules.
func TestSchedulers(t *testing.T) {
	gto := runKernel(t, "matmul_naive", 64, Options{})
	prof := *gpu.MustLookup("h100")
	prof.Timing.Scheduler = LRR
	e := runKernelOn(t, "matmul_naive", 64, &prof)
	assert.Equal(t, gto.Issued, e.Issued, "the same instructions")
	assert.NotEqual(t, gto.Stalls, e.Stalls, "in another order")
}
