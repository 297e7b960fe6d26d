package vm_test

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// stepRecord is what one Step reported, the accesses copied.
type stepRecord struct {
	id            int32
	pc            int32
	active, exec  uint32
	accesses      []memspace.Access
	outcome       memspace.Outcome
	inst, threads uint64
}

// stepAll steps the first blocks (at most max) of launch l one after
// another on one SM with an observer, in round robin over the ready warps,
// and returns every Step's record and the SM's counters.
func stepAll(t *testing.T, l *vm.Launch, max int) ([]stepRecord, vm.Stats) {
	t.Helper()
	sm := l.NewSM(1)
	sm.Observer = &spanCheck{t: t}
	var st vm.Step
	var recs []stepRecord
	for i := 0; i < min(max, l.NumCTAs()); i++ {
		c, err := sm.Admit(i)
		require.NoError(t, err)
		next := 0
		for !c.Done() {
			var w *vm.Warp
			ws := c.Warps()
			for k := range ws {
				if x := ws[(next+k)%len(ws)]; x.State() == vm.WarpReady {
					w, next = x, (next+k+1)%len(ws)
					break
				}
			}
			require.NotNil(t, w, "no warp of block %d is ready", i)
			// Next's fast first test answers as its general path.
			for _, x := range ws {
				info, lanes := x.Next()
				ginfo, glanes := x.NextGeneral()
				require.True(t, info == ginfo && lanes == glanes, "Next of warp %d", x.ID())
			}
			info, lanes := w.Next()
			require.NoError(t, sm.Step(w, &st))
			if st.Info.Class != vm.ClassWarpSync {
				require.True(t, info == st.Info && lanes == st.Active, "Next before Step")
			}
			r := stepRecord{id: st.Info.ID, pc: st.PC, active: st.Active, exec: st.Exec, outcome: st.Outcome, inst: w.Inst, threads: w.ThreadInst}
			for _, a := range st.Accesses {
				a.Values = nil
				r.accesses = append(r.accesses, a)
			}
			recs = append(recs, r)
		}
		sm.Retire(c)
	}
	return recs, sm.Stats
}

// spanCheck is a recorder that requires the span an access gives
// (Access.SpanKnown) to be its addresses' (a full warp's OR of each
// lane's address XORed with lane 0's), and counts those given.
type spanCheck struct {
	recorder
	t *testing.T
}

// spansKnown counts the accesses spanCheck found with a span.
var spansKnown int

func (c *spanCheck) Observe(a *memspace.Access) memspace.Outcome {
	if a.SpanKnown {
		var want uint64
		for _, x := range a.Addr {
			want |= x ^ a.Addr[0]
		}
		require.Equal(c.t, ^uint32(0), a.Mask, "a span of a partial warp")
		require.Equal(c.t, want, a.XorSpan, "the span of %#x", a.Addr)
		spansKnown++
	}
	return c.recorder.Observe(a)
}

// TestStepOneMatchesRunFrame steps launches whose loads, stores and fmas
// take Step's single-instruction path (stepOne) and again with every
// instruction through the interpreter loop, and requires the same records
// step by step, the same counters and the same output bytes: partial tiles
// (guards off in some lanes), shared atomics, local memory, cp.async with
// mbarriers, divergent code.
func TestStepOneMatchesRunFrame(t *testing.T) {
	cases := []string{
		"apps/cases/gemm/O3",
		"apps/cases/histogram256/O3",
		"apps/cases/bitonic_block_f32/G",
		"apps/cases/nbody_tiled/O3",
		"apps/cases/fft256/O3",
		"tensor/cases/pipeline_prims/O3",
		"tensor/cases/pipeline_block/O3",
	}
	run := func(t *testing.T, path string) ([]stepRecord, vm.Stats, map[string][]byte) {
		sp, err := spec.Load(filepath.Join("../testdata", path, "spec.json"))
		require.NoError(t, err)
		p, err := sp.Prepare(vm.NewDevice(), nil)
		require.NoError(t, err)
		recs, stats := stepAll(t, p.Launch, 2)
		out, err := p.Outputs()
		require.NoError(t, err)
		return recs, stats, out
	}
	known := spansKnown
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			fast, fastStats, fastOut := run(t, c)
			restore := vm.WithoutStepOne()
			slow, slowStats, slowOut := run(t, c)
			restore()
			require.Equal(t, len(slow), len(fast))
			for i := range slow {
				require.Equal(t, slow[i], fast[i], "step %d", i)
			}
			require.Equal(t, slowStats, fastStats)
			require.Equal(t, slowOut, fastOut)
		})
	}
	require.Greater(t, spansKnown, known, "no shared load gave its span")
	t.Run("predicated", func(t *testing.T) {
		// Guards off in some lanes of loads, stores and fmas (nvcc
		// branches around them instead), a divergent branch whose lanes
		// reconverge at a load, and a fault-free out-of-mask address.
		const src = `
.visible .entry k(.param .u64 pa, .param .u64 pb)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .f32 %f<6>;
	.reg .b64 %rd<6>;
	.shared .align 4 .b8 sh[512];
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	and.b32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	setp.lt.u32 %p2, %r1, 20;
	mov.u32 %r3, sh;
	shl.b32 %r4, %r1, 2;
	add.s32 %r5, %r3, %r4;
	mov.f32 %f1, 0f3F800000;
	@%p1 ld.global.f32 %f1, [%rd4];
	@!%p1 st.shared.f32 [%r5], %f1;
	@%p1 st.shared.f32 [%r5], %f1;
	bar.sync 0;
	ld.shared.f32 %f2, [%r5];
	@%p2 fma.rn.f32 %f3, %f2, %f1, %f2;
	@%p2 bra SKIP;
	fma.rn.f32 %f3, %f1, %f1, %f1;
	ld.shared.f32 %f4, [%r3+4];
	add.f32 %f3, %f3, %f4;
SKIP:
	ld.shared.f32 %f5, [%r5];
	fma.rn.f32 %f3, %f3, %f5, %f5;
	st.global.f32 [%rd5], %f3;
	ret;
}`
		run := func() ([]stepRecord, vm.Stats, []byte) {
			dev := vm.NewDevice()
			m, err := dev.LoadModule("t.ptx", []byte(header+src))
			require.NoError(t, err)
			a, err := dev.Malloc(4*64, "a")
			require.NoError(t, err)
			in := make([]byte, 4*64)
			for i := range in {
				in[i] = byte(i*7 + 1)
			}
			require.NoError(t, dev.MemcpyHtoD(a, in))
			b, err := dev.Malloc(4*64, "b")
			require.NoError(t, err)
			l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{64, 1, 1}},
				[][]byte{binary.LittleEndian.AppendUint64(nil, a), binary.LittleEndian.AppendUint64(nil, b)})
			require.NoError(t, err)
			recs, stats := stepAll(t, l, 1)
			out := make([]byte, 4*64)
			require.NoError(t, dev.MemcpyDtoH(out, b))
			return recs, stats, out
		}
		fast, fastStats, fastOut := run()
		restore := vm.WithoutStepOne()
		slow, slowStats, slowOut := run()
		restore()
		require.Equal(t, slow, fast)
		require.Equal(t, slowStats, fastStats)
		require.Equal(t, slowOut, fastOut)
		partial := 0
		for _, r := range fast {
			if r.exec != r.active {
				partial++
			}
		}
		require.Positive(t, partial, "some steps run with guards off in some lanes")
	})
	t.Run("matmul_tiled/40", func(t *testing.T) {
		fast, fastStats := stepAll(t, tiledMatmul(t, 40).Launch, 9)
		restore := vm.WithoutStepOne()
		slow, slowStats := stepAll(t, tiledMatmul(t, 40).Launch, 9)
		restore()
		require.Equal(t, slow, fast)
		require.Equal(t, slowStats, fastStats)
	})
}
