package timing

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
	"github.com/ptxvm/ptxvm/vm"
)

// tileLoads is the shape of the tiled matmul's loop body in PTX (nvcc -O3):
// each tile element is loaded under a bounds check that branches around
// the load, then stored to shared memory. ptxas predicates both loads and
// issues them before the first STS (testdata/perf/sass/matmul.O3.sass:
// @!P1 LDG, @!P0 LDG, STS, STS).
var tileLoads = outKernel(`	mov.u32 %r1, %tid.x;
	mov.u32 %r2, tile;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	setp.ge.u32 %p1, %r1, 16;
	mov.f32 %f1, 0f00000000;
	@%p1 bra L1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
L1:
	st.shared.f32 [%r4], %f1;
	setp.ge.u32 %p2, %r1, 24;
	mov.f32 %f2, 0f00000000;
	@%p2 bra L2;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd2, %rd5;
	ld.global.f32 %f2, [%rd6+512];
L2:
	st.shared.f32 [%r4+128], %f2;
	bar.sync 0;
	ld.shared.f32 %f3, [%r4+4];
	add.f32 %f3, %f3, %f1;
	add.f32 %f3, %f3, %f2;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd7, %rd2, %rd7;
	st.global.f32 [%rd7+2048], %f3;
	ret;
`, ".reg .f32 %f<4>;", ".shared .align 4 .b8 tile[1024];")

// scheduled is launch l's kernel as the timed run schedules it for the
// H100 (schedule), with the instructions it folds and merges.
func scheduled(t *testing.T, l *vm.Launch) (*vm.Kernel, []int32, []merged) {
	t.Helper()
	prof := gpu.MustLookup("h100")
	cfg, err := Resolve(prof)
	require.NoError(t, err)
	tab, err := sasscost.Load(cfg.SASS)
	require.NoError(t, err)
	return schedule(l.Kernel, newProgram(l.Kernel, cfg, tab, prof.Memory.Latency.L1Hit), 0, 1)
}

// If-conversion predicates the instructions a short forward branch skips
// and drops the branch, so both loads move above the first shared store;
// the kernel computes the same bytes as in functional mode.
func TestIfConversionHoistsGuardedLoads(t *testing.T) {
	l, dev, buf := ptxLaunch(t, tileLoads, 1, 32, 4096)
	prof := gpu.MustLookup("h100")
	k, folded, _ := scheduled(t, l)
	assert.Len(t, folded, 2, "both bounds checks are converted")
	f := k.Entry
	var loads, firstSTS int = 0, -1
	for pc, in := range f.Code {
		if in.Op == vm.OpLd && in.Space == 0 && firstSTS < 0 {
			loads++
			assert.NotEqual(t, vm.NoReg, in.Guard, "the load at %d is predicated", pc)
		}
		if in.Op == vm.OpSt && in.Space == 1 && firstSTS < 0 {
			firstSTS = pc
		}
		assert.NotEqual(t, vm.OpBra, in.Op, "no branch is left")
	}
	assert.Equal(t, 2, loads, "both global loads issue before the first shared store")

	// What the kernel computes, from its inputs: tile[t] = t < 16 ?
	// in[t] : 0, tile[32+t] = t < 24 ? in[128+t] : 0, out[512+t] =
	// tile[t+1] + tile[t] + tile[32+t].
	in := make([]byte, 4096)
	val := func(i int) float32 { return float32(i%97) + 0.5 }
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(val(i)))
	}
	require.NoError(t, dev.MemcpyHtoD(buf, in))
	_, err := Run(context.Background(), l, prof, Options{})
	require.NoError(t, err)
	out := make([]byte, 4096)
	require.NoError(t, dev.MemcpyDtoH(out, buf))
	var tile [64]float32
	for i := 0; i < 32; i++ {
		if i < 16 {
			tile[i] = val(i)
		}
		if i < 24 {
			tile[32+i] = val(128 + i)
		}
	}
	for i := 0; i < 32; i++ {
		want := tile[i+1] + tile[i] + tile[32+i]
		assert.Equal(t, want, math.Float32frombits(binary.LittleEndian.Uint32(out[4*(512+i):])), "thread %d", i)
	}
}

// Four 32-bit shared loads from one base at offsets 0, 4, 8 and 12 are one
// LDS.128 (the tiled matmul's A-tile row); loads at offsets 16 and 20 a
// second, LDS.64 when only two follow; a load after a write to the base
// starts again.
func TestMergeLoads(t *testing.T) {
	src := `
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<10>;
	.shared .align 16 .b8 s[256];
	mov.u32 %r1, s;
	ld.shared.f32 %f1, [%r1];
	ld.shared.f32 %f2, [%r1+4];
	ld.shared.f32 %f3, [%r1+8];
	ld.shared.f32 %f4, [%r1+12];
	ld.shared.f32 %f5, [%r1+16];
	ld.shared.f32 %f6, [%r1+20];
	add.s32 %r1, %r1, 64;
	ld.shared.f32 %f7, [%r1+4];
	ld.shared.f32 %f8, [%r1+8];
	ret;
}`
	l, _, _ := ptxLaunch(t, src, 1, 32, 64)
	f := l.Kernel.Entry
	got := mergeLoads(f, nil)
	id := func(pc int) int32 { return f.Info[pc].ID }
	reg := func(pc int) int32 { return f.Info[pc].Writes.Regs[0] }
	// PCs: 0 mov, 1..6 the loads at 0..20, 7 add, 8 and 9 the last two.
	want := []merged{{id(2), id(1), reg(1)}, {id(3), id(1), reg(1)}, {id(4), id(1), reg(1)}, {id(6), id(5), reg(5)}}
	assert.Equal(t, want, got)
}

// Within ptxas's 32 registers a block of sixteen loads into sixteen live
// sums keeps only a few loads in flight (kmeans_update's SASS: two or
// three); with registers to spare the list scheduler hoists them all.
func TestScheduleKeepsRegisterPressure(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<40>;\n\t.reg .b64 %rd<40>;\n")
	b.WriteString("\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&b, "\tld.global.f32 %%f%d, [%%rd4+%d];\n", i, 4*i)
	}
	b.WriteString("\tbar.sync 0;\n") // the sums are live into the block below
	for i := 0; i < 16; i++ {        // each load computes its address, as in kmeans_update
		fmt.Fprintf(&b, "\tadd.s32 %%r%d, %%r1, %d;\n\tmul.wide.u32 %%rd%d, %%r%d, 4;\n\tadd.s64 %%rd%d, %%rd2, %%rd%d;\n", 4+i, 64+i, 5+i, 4+i, 21+i, 5+i)
		fmt.Fprintf(&b, "\tld.global.f32 %%f%d, [%%rd%d];\n\tadd.f32 %%f%d, %%f%d, %%f%d;\n", 16+i, 21+i, i, i, 16+i)
	}
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&b, "\tst.global.f32 [%%rd4+%d], %%f%d;\n", 1024+4*i, i)
	}
	b.WriteString("\tret;\n}\n")
	l, _, _ := ptxLaunch(t, b.String(), 1, 32, 4096)
	prof := gpu.MustLookup("h100")
	cfg, err := Resolve(prof)
	require.NoError(t, err)
	tab, err := sasscost.Load(cfg.SASS)
	require.NoError(t, err)
	prog := newProgram(l.Kernel, cfg, tab, prof.Memory.Latency.L1Hit)
	// Loads issued in the second block before its first add.
	ahead := func(registers int) int {
		k, _, _ := schedule(l.Kernel, prog, registers, 1)
		n, bar := 0, false
		for _, in := range k.Entry.Code {
			switch {
			case in.Op == vm.OpBar:
				bar = true
			case bar && in.Op == vm.OpLd:
				n++
			case bar && in.Op == vm.OpFAdd:
				return n
			}
		}
		return n
	}
	assert.Equal(t, 16, ahead(128), "128 registers: every load first")
	assert.LessOrEqual(t, ahead(32), 8, "32 registers: a few loads ahead of the sums")
	assert.GreaterOrEqual(t, ahead(32), 1)
	assert.Equal(t, ahead(32), ahead(0), "no count: 32")
	assert.Equal(t, ahead(32), ahead(16), "fewer registers than 32: 32")
}

// ptxas issues what only computes in registers ahead of a barrier it does
// not depend on (the tree of latency.cu's level probe computes the next
// step's addresses before the BAR.SYNC); memory stays on its side. In
// tileLoads the output address after bar.sync (mul.wide, add.s64) moves
// above it, the shared load and what uses it stay below.
func TestScheduleMovesArithmeticAboveBarrier(t *testing.T) {
	l, _, _ := ptxLaunch(t, tileLoads, 1, 32, 4096)
	k, _, _ := scheduled(t, l)
	bar := -1
	var after []string
	for pc, in := range k.Entry.Code {
		switch {
		case in.Op == vm.OpBar:
			bar = pc
		case bar >= 0 && in.Op != vm.OpRet && in.Op != vm.OpExit && in.Op != vm.OpNop:
			after = append(after, in.Op.String())
		}
	}
	require.GreaterOrEqual(t, bar, 0)
	assert.Equal(t, []string{"ld", "add.f", "add.f", "st"}, after, "after the barrier: the shared load, the sums and the store")
}

// The test of the branch that ends a block goes first, as soon as its
// operands allow: the branch waits timing.guard_cycles for its guard, and
// ptxas computes a loop's exit test early (floyd_block's ISETPs stand
// eight and more instructions before their BRA).
func TestScheduleHoistsBranchTest(t *testing.T) {
	src := outKernel(`	mov.u32 %r1, %tid.x;
	mov.u32 %r6, 0;
	mov.u32 %r7, 0;
$loop:
	ld.global.u32 %r3, [%rd2];
	mul.lo.s32 %r4, %r3, %r3;
	add.s32 %r5, %r4, %r1;
	mul.lo.s32 %r6, %r5, %r6;
	add.s32 %r7, %r7, 1;
	setp.lt.u32 %p1, %r7, 8;
	@%p1 bra $loop;
	st.global.u32 [%rd2], %r6;
	ret;
`)
	l, _, _ := ptxLaunch(t, src, 1, 32, 4)
	k, _, _ := scheduled(t, l)
	setp, load := -1, -1
	for pc, in := range k.Entry.Code {
		switch {
		case in.Op == vm.OpSetp:
			setp = pc
		case in.Op == vm.OpLd && in.Space == memspace.Global:
			load = pc
		}
	}
	require.True(t, setp >= 0 && load >= 0)
	assert.Less(t, setp, load, "the branch's test before the load's chain")
}
