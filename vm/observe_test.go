package vm_test

import (
	"encoding/csv"
	"encoding/json"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// sectorCounter counts, for global loads and stores, the requests (one per
// warp-wide access) and the distinct 32-byte sectors each request touches,
// computed from the per-lane addresses: what ncu reports as
// l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum.
type sectorCounter struct {
	requests, sectors [2]int // load, store
	origins           map[memspace.Origin]int
}

func (o *sectorCounter) Observe(a *memspace.Access) memspace.Outcome {
	if a.Space != memspace.Global || a.Kind != memspace.Load && a.Kind != memspace.Store {
		return memspace.Outcome{}
	}
	k := 0
	if a.Kind == memspace.Store {
		k = 1
	}
	o.requests[k]++
	seen := map[uint64]bool{}
	for x := a.Mask; x != 0; x &= x - 1 {
		addr := a.Addr[bits.TrailingZeros32(x)]
		for s := addr / 32; s <= (addr+uint64(a.Size)-1)/32; s++ {
			seen[s] = true
		}
	}
	o.sectors[k] += len(seen)
	o.origins[a.Origin]++
	return memspace.Outcome{Latency: 1}
}

// ncuRow returns the named counters of launch case/variant as the corpus's
// Nsight Compute report recorded them (testdata/nvcc/ncu).
func ncuRow(t *testing.T, variant, cas string, names ...string) []float64 {
	t.Helper()
	var launches []struct {
		Launch int    `json:"launch"`
		Case   string `json:"case"`
		Kernel string `json:"kernel"`
	}
	data, err := os.ReadFile(filepath.Join("../testdata/nvcc/ncu", variant+".launches.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &launches))
	f, err := os.Open(filepath.Join("../testdata/nvcc/ncu", variant+".csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	head, rows := rows[0], rows[2:] // a header, a row of units, then one row per launch in launch order
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, l := range launches {
		if l.Case != cas {
			continue
		}
		row := rows[l.Launch]
		require.Equal(t, l.Kernel, row[col["Kernel Name"]][:len(l.Kernel)], "launch %d", l.Launch)
		var out []float64
		for _, n := range names {
			i, ok := col[n]
			require.True(t, ok, n)
			v, err := strconv.ParseFloat(strings.ReplaceAll(row[i], ",", ""), 64)
			require.NoError(t, err, n)
			out = append(out, v)
		}
		return out
	}
	t.Fatalf("no launch of case %s in %s", cas, variant)
	return nil
}

// TestObserverSectorsMatchNcu installs an observer on the corpus's transpose
// kernels and compares the requests and 32-byte sectors it computes from the
// per-lane addresses with what Nsight Compute counted on the H100. Their
// global loads and stores are one SASS instruction per PTX instruction, so
// the figures must be equal.
func TestObserverSectorsMatchNcu(t *testing.T) {
	names := []string{
		"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	}
	for _, cas := range []string{"transpose_naive", "transpose_shared", "transpose_padded", "transpose_padded_rect"} {
		for _, variant := range []string{"O3", "G"} {
			t.Run(cas+"/"+variant, func(t *testing.T) {
				want := ncuRow(t, variant, cas, names...)
				sp, err := spec.Load(filepath.Join("../testdata/nvcc/cases", cas, variant, "spec.json"))
				require.NoError(t, err)
				p, err := sp.Prepare(vm.NewDevice(), nil)
				require.NoError(t, err)
				obs := &sectorCounter{origins: map[memspace.Origin]int{}}
				sm := p.Launch.NewSM(5)
				sm.Observer = obs
				for i := 0; i < p.Launch.NumCTAs(); i++ {
					require.NoError(t, sm.RunCTA(i))
				}
				got := []float64{float64(obs.requests[0]), float64(obs.sectors[0]), float64(obs.requests[1]), float64(obs.sectors[1])}
				assert.Equal(t, want, got, "%v", names)
				for o := range obs.origins {
					require.EqualValues(t, 5, o.SM)
					require.Less(t, o.CTA, uint64(p.Launch.NumCTAs()))
					info := p.Launch.Kernel.Insts[o.Inst]
					require.True(t, info.Class == vm.ClassLSUGlobal || info.Class == vm.ClassLSUGeneric, "%s", info.Class)
				}
			})
		}
	}
}

// recorder keeps a copy of every access it observes.
type recorder struct{ got []memspace.Access }

func (r *recorder) Observe(a *memspace.Access) memspace.Outcome {
	c := *a
	if a.Tex != nil {
		tex := *a.Tex
		c.Tex = &tex
	}
	r.got = append(r.got, c)
	return memspace.Outcome{Latency: uint32(10 + len(r.got))}
}

// observeKernel runs block 0 of a one-block launch of kernel k on SM sm with
// a recorder, and returns what it saw with the launch.
func observeKernel(t *testing.T, src string, block uint32, args func(dev *vm.Device) [][]byte) ([]memspace.Access, *vm.Launch, *vm.Device) {
	t.Helper()
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+src))
	require.NoError(t, err)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{block, 1, 1}}, args(dev))
	require.NoError(t, err)
	rec := &recorder{}
	sm := l.NewSM(2)
	sm.Observer = rec
	require.NoError(t, sm.RunCTA(0))
	return rec.got, l, dev
}

// TestEveryAccessReachesTheObserver runs one instruction of each space and
// kind and checks what the observer sees of it.
func TestEveryAccessReachesTheObserver(t *testing.T) {
	src := `
.const .align 4 .u32 cval[4] = {1, 2, 3, 4};
.visible .entry k(.param .u64 p0)
{
	.local .align 8 .b8 depot[64];
	.shared .align 8 .b8 sh[512];
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<12>;
	ld.param.u64 	%rd1, [p0];
	ld.const.u32 	%r9, [cval+4];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	ld.global.cs.L2::evict_last.u32 	%r2, [%rd3];
	mov.u64 	%rd4, sh;
	add.s64 	%rd5, %rd4, %rd2;
	st.shared.u32 	[%rd5], %r2;
	st.local.u32 	[depot+4], %r2;
	ld.local.u64 	%rd6, [depot+8];
	cvta.shared.u64 	%rd7, %rd5;
	setp.lt.u32 	%p1, %r1, 16;
	selp.b64 	%rd8, %rd7, %rd3, %p1;
	ld.u32 	%r3, [%rd8];
	atom.global.add.u32 	%r4, [%rd3], 1;
	red.shared.add.u32 	[%rd5], 1;
	ret;
}`
	got, l, _ := observeKernel(t, src, 64, func(dev *vm.Device) [][]byte {
		buf, err := dev.Malloc(256, "buf")
		require.NoError(t, err)
		return [][]byte{u64arg(buf)}
	})
	type want struct {
		space memspace.Space
		kind  memspace.Kind
		size  uint8
	}
	var kinds []want
	for _, a := range got {
		kinds = append(kinds, want{a.Space, a.Kind, a.Size})
	}
	perWarp := []want{
		{memspace.Param, memspace.Load, 8},
		{memspace.Const, memspace.Load, 4},
		{memspace.Global, memspace.Load, 4},
		{memspace.Shared, memspace.Store, 4},
		{memspace.Local, memspace.Store, 4},
		{memspace.Local, memspace.Load, 8},
	}
	// Warp 0: the generic load splits into its shared lanes and its global
	// lanes; warp 1's lanes are all global.
	var w0, w1 []want
	w0 = append(append(w0, perWarp...), want{memspace.Global, memspace.Load, 4}, want{memspace.Shared, memspace.Load, 4})
	w1 = append(append(w1, perWarp...), want{memspace.Global, memspace.Load, 4})
	w0 = append(w0, want{memspace.Global, memspace.Atomic, 4}, want{memspace.Shared, memspace.Reduction, 4})
	w1 = append(w1, want{memspace.Global, memspace.Atomic, 4}, want{memspace.Shared, memspace.Reduction, 4})
	// RunCTA runs warp 0 until it waits or ends, then warp 1.
	require.Equal(t, append(w0, w1...), kinds)

	for i, a := range got {
		warp := int32(0)
		if i >= len(w0) {
			warp = 1
		}
		assert.Equal(t, warp, a.Origin.Warp, "access %d", i)
		assert.EqualValues(t, 2, a.Origin.SM)
		assert.EqualValues(t, 0, a.Origin.CTA)
		info := l.Kernel.Insts[a.Origin.Inst]
		assert.True(t, info.Class.Memory(), "access %d comes from %s", i, info.Class)
		assert.Nil(t, a.Tex)
		switch a.Space {
		case memspace.Param:
			assert.Equal(t, uint64(0), a.Addr[0], "offset in the parameters")
		case memspace.Const:
			assert.Equal(t, uint64(4), a.Addr[31], "offset in the constant bank")
		case memspace.Local:
			// Thread offset o of lane l at base + (o/4)*128 + 4l + o%4.
			o := uint64(4)
			if a.Size == 8 {
				o = 8
			}
			for lane := 0; lane < 32; lane++ {
				assert.Equal(t, memspace.LocalPhysical(2, int(warp), lane, o), a.Addr[lane])
			}
			base := memspace.LocalPhysBase + 2*memspace.LocalSMStride + uint64(warp)*memspace.LocalWarpStride
			assert.Equal(t, base+o/4*128+5*4, a.Addr[5])
			assert.Equal(t, memspace.LocalWordStride, a.WordStride)
		default:
			assert.Zero(t, a.WordStride)
		}
	}
	ld := got[2]
	assert.Equal(t, memspace.CacheCS, ld.Cache)
	assert.Equal(t, memspace.EvictLast, ld.L2Evict)
	gen := got[6:8]
	assert.Equal(t, uint32(0xffff0000), gen[0].Mask, "global lanes of the generic load")
	assert.Equal(t, uint32(0x0000ffff), gen[1].Mask, "shared lanes")
	assert.Equal(t, uint64(vm.SharedReserved+5*4), gen[1].Addr[5], "a shared address, not a generic one")
	assert.Equal(t, got[2].Addr[20], gen[0].Addr[20])
}

// TestTextureAccessReportsTexels: a texture fetch reaches the observer with
// the texels its filter read, not the texture's base.
func TestTextureAccessReportsTexels(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [p0];
	ld.param.u64 	%rd2, [p1];
	mov.u32 	%r1, %tid.x;
	cvt.rn.f32.u32 	%f1, %r1;
	add.f32 	%f2, %f1, 0f3F400000;
	tex.2d.v4.f32.f32 	{%f4, %f5, %f6, %f7}, [%rd1, {%f2, %f2}];
	tex.2d.v4.f32.f32 	{%f4, %f5, %f6, %f7}, [%rd2, {%f2, %f2}];
	tld4.r.2d.v4.f32.f32 	{%f4, %f5, %f6, %f7}, [%rd1, {%f2, %f2}];
	ret;
}`
	var base uint64
	all, _, _ := observeKernel(t, src, 8, func(dev *vm.Device) [][]byte {
		var err error
		base, err = dev.Malloc(8*8*4, "texels")
		require.NoError(t, err)
		data := make([]byte, 8*8*4)
		point, err := dev.CreateTexture(vm.TextureDesc{Dims: []int{8, 8}, Format: "f32", Data: data, Base: base})
		require.NoError(t, err)
		linear, err := dev.CreateTexture(vm.TextureDesc{Dims: []int{8, 8}, Format: "f32", Data: data, Base: base, FilterLin: true})
		require.NoError(t, err)
		return [][]byte{u64arg(point), u64arg(linear)}
	})
	var got []memspace.Access
	for _, a := range all {
		if a.Space != memspace.Param {
			got = append(got, a)
		}
	}
	require.Len(t, got, 3)
	at := func(x, y int) uint64 { return base + uint64((min(y, 7)*8+min(x, 7))*4) }
	for _, a := range got {
		require.Equal(t, memspace.Texture, a.Space)
		require.NotNil(t, a.Tex)
		assert.EqualValues(t, 4, a.Tex.TexelSize)
		assert.False(t, a.Tex.Linear, "CUDA arrays, not linear memory")
	}
	for l := 0; l < 8; l++ {
		// Point sampling at (l+0.75, l+0.75): texel (l, l).
		require.EqualValues(t, 1, got[0].Tex.Count[l])
		assert.Equal(t, at(l, l), got[0].Tex.Addr[l][0])
		assert.Equal(t, at(l, l), got[0].Addr[l])
		// Bilinear: the 2×2 footprint from (l, l), clamped at the edge.
		require.EqualValues(t, 4, got[1].Tex.Count[l])
		assert.Equal(t, []uint64{at(l, l), at(l+1, l), at(l, l+1), at(l+1, l+1)}, got[1].Tex.Addr[l][:4])
		// tld4: the same four, in its own order.
		require.EqualValues(t, 4, got[2].Tex.Count[l])
		assert.Equal(t, []uint64{at(l, l+1), at(l+1, l+1), at(l+1, l), at(l, l)}, got[2].Tex.Addr[l][:4])
	}
}

// TestStepReportsAccessAndOutcome: Step returns the access an instruction
// made and the observer's answer; without an observer it still returns the
// access. A faulting access reaches no observer.
func TestStepReportsAccessAndOutcome(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<4>;
	ld.param.u64 	%rd1, [p0];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd2, %r1, 8;
	add.s64 	%rd3, %rd1, %rd2;
	red.global.add.v2.f32 	[%rd3], {%f1, %f1};
	st.global.u32 	[%rd3+4096], %r1;
	ret;
}`
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+src))
	require.NoError(t, err)
	buf, err := dev.Malloc(256, "buf")
	require.NoError(t, err)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}, [][]byte{u64arg(buf)})
	require.NoError(t, err)
	for _, withObserver := range []bool{false, true} {
		sm := l.NewSM(0)
		rec := &recorder{}
		if withObserver {
			sm.Observer = rec
		}
		c, err := sm.Admit(0)
		require.NoError(t, err)
		w := c.Warps()[0]
		var st vm.Step
		for {
			info, _ := w.Next()
			if info.Class == vm.ClassAtomic {
				break
			}
			require.NoError(t, sm.Step(w, &st))
			if !info.Class.Memory() {
				require.Empty(t, st.Accesses, "%s", info.Class)
			}
		}
		require.NoError(t, sm.Step(w, &st))
		require.Len(t, st.Accesses, 1)
		a := st.Accesses[0]
		assert.Equal(t, memspace.Reduction, a.Kind)
		assert.EqualValues(t, 8, a.Size, "both elements of the vector")
		assert.Equal(t, buf+8*7, a.Addr[7])
		if withObserver {
			require.Len(t, rec.got, 2, "the parameter load and the reduction")
			assert.Equal(t, a, rec.got[1])
			assert.EqualValues(t, 12, st.Outcome.Latency)
		} else {
			assert.Zero(t, st.Outcome.Latency)
		}
		// The store runs past the buffer: a fault, and nothing observed.
		err = sm.Step(w, &st)
		var f *vm.Fault
		require.ErrorAs(t, err, &f)
		assert.Empty(t, st.Accesses)
		if withObserver {
			assert.Len(t, rec.got, 2)
		}
	}
}
