package vm_test

import (
	"fmt"
	"io/fs"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// The operand sets of InstInfo are checked by running every conformance form
// and every nvcc corpus launch twice in lockstep, on two devices prepared
// alike. Before an instruction is checked (the first checksPerInst times
// each static instruction executes), run B's frame is made a copy of run
// A's with every register, predicate and the carry flag outside the
// instruction's read set replaced by random bits. After both step:
//
//   - in run A, nothing outside the write set changed (any lane);
//   - run B's write set holds what run A's does, in the lanes that executed.
//
// Run B's frame is then made a copy of A's again, so that the runs stay
// identical. Only block 0 of each launch runs, and at most maxStepsPerLaunch
// warp instructions of it.
const (
	checksPerInst     = 3
	maxStepsPerLaunch = 100_000
)

// coverage counts what the operand-set tests checked.
type coverage struct {
	launches, insts, checks int
	static                  int      // static instructions of the kernels run
	capped                  []string // launches stopped at maxStepsPerLaunch
	classes                 map[vm.Class]int
}

func TestOperandSets(t *testing.T) {
	// Which registers an approximate instruction uses does not depend on
	// which approximation computes it; decoding the SFU tables costs seconds.
	t.Cleanup(vm.ComputedApproximations())
	t.Cleanup(vm.WithoutLayout()) // the test reads and poisons registers by index
	t.Run("conformance", func(t *testing.T) {
		t.Parallel()
		cov := checkCorpus(t, "../testdata/conformance/cases")
		require.GreaterOrEqual(t, cov.launches, 1952, "every conformance form")
		t.Logf("%d forms: %d of %d static instructions checked, %d checks; by class %v; stopped at %d steps: %v",
			cov.launches, cov.insts, cov.static, cov.checks, cov.classes, maxStepsPerLaunch, cov.capped)
	})
	t.Run("nvcc", func(t *testing.T) {
		t.Parallel()
		cov := checkCorpus(t, "../testdata/nvcc/cases")
		require.GreaterOrEqual(t, cov.launches, 222, "every nvcc launch")
		t.Logf("%d launches: %d of %d static instructions checked, %d checks; by class %v; stopped at %d steps: %v",
			cov.launches, cov.insts, cov.static, cov.checks, cov.classes, maxStepsPerLaunch, cov.capped)
	})
	t.Run("apps", func(t *testing.T) {
		t.Parallel()
		cov := checkCorpus(t, "../testdata/apps/cases")
		require.GreaterOrEqual(t, cov.launches, 248, "every application launch, four builds")
		t.Logf("%d launches: %d of %d static instructions checked, %d checks; by class %v; stopped at %d steps: %v",
			cov.launches, cov.insts, cov.static, cov.checks, cov.classes, maxStepsPerLaunch, cov.capped)
	})
	t.Run("issue7", func(t *testing.T) {
		t.Parallel()
		cov := checkCorpus(t, "../testdata/conformance/issue7/cases")
		require.GreaterOrEqual(t, cov.launches, 670, "every issue-7 form")
		t.Logf("%d forms: %d of %d static instructions checked, %d checks; by class %v; stopped at %d steps: %v",
			cov.launches, cov.insts, cov.static, cov.checks, cov.classes, maxStepsPerLaunch, cov.capped)
	})
}

func checkCorpus(t *testing.T, root string) *coverage {
	var specs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "spec.json" {
			specs = append(specs, p)
		}
		return err
	})
	require.NoError(t, err)
	require.NotEmpty(t, specs)
	sort.Strings(specs)
	cache := spec.NewModuleCache()
	cov := &coverage{classes: map[vm.Class]int{}}
	for _, p := range specs {
		name, _ := filepath.Rel(root, filepath.Dir(p))
		sp, err := spec.Load(p)
		require.NoError(t, err, name)
		// A case the GPU could not finish (expected/ERROR "hang") may end
		// in a deadlock here too.
		recorded, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "expected", "ERROR"))
		checkLaunch(t, name, sp, cache, cov, strings.HasPrefix(string(recorded), "hang"))
		if t.Failed() {
			break // the first failing case says enough
		}
	}
	require.Equal(t, len(specs), cov.launches, "every case under %s", root)
	return cov
}

// checkLaunch runs block 0 of a spec twice in lockstep and checks the
// operand sets of the instructions it executes.
func checkLaunch(t *testing.T, name string, sp *spec.Spec, cache *spec.ModuleCache, cov *coverage, hang bool) {
	prep := func() *vm.Launch {
		p, err := sp.Prepare(vm.NewDevice(), cache)
		require.NoError(t, err, name)
		return p.Launch
	}
	la, lb := prep(), prep()
	sa, sb := la.NewSM(0), lb.NewSM(0)
	ca, err := sa.Admit(0)
	require.NoError(t, err, name)
	cb, err := sb.Admit(0)
	require.NoError(t, err, name)
	cov.launches++
	cov.static += len(la.Kernel.Insts)
	seen := map[int32]int{}
	defer func() {
		if !ca.Done() && !t.Failed() {
			cov.capped = append(cov.capped, name)
		}
	}()
	rng := rand.New(rand.NewPCG(uint64(len(name)), 1))
	var sta, stb vm.Step
	var before []uint64
	var beforeP []uint32
	next := 0
	for steps := 0; steps < maxStepsPerLaunch && !ca.Done(); steps++ {
		// Round robin over the ready warps, the same in both runs.
		wi := -1
		for k := range ca.Warps() {
			i := (next + k) % len(ca.Warps())
			if ca.Warps()[i].State() == vm.WarpReady {
				wi = i
				break
			}
		}
		if wi < 0 {
			if hang {
				require.ErrorIs(t, ca.Deadlock(), vm.ErrDeadlock, name)
				return // the GPU hung too
			}
			require.NoError(t, ca.Deadlock(), name)
			require.Fail(t, "no warp ready", name)
			return
		}
		next = wi + 1
		wa, wb := ca.Warps()[wi], cb.Warps()[wi]
		info, _ := wa.Next()
		infoB, _ := wb.Next()
		if info.ID != infoB.ID {
			require.Fail(t, "the runs diverged", name)
		}
		check := seen[info.ID] < checksPerInst
		var ra, rb []uint64
		var pa, pb []uint32
		if check {
			ra, pa = wa.FrameForTest()
			rb, pb = wb.FrameForTest()
			before = append(before[:0], ra...)
			beforeP = append(beforeP[:0], pa...)
			copy(rb, ra)
			copy(pb, pa)
			poison(rng, rb, pb, &info.Reads)
		}
		errA := sa.Step(wa, &sta)
		errB := sb.Step(wb, &stb)
		where := func() string {
			in := info.Inst()
			return fmt.Sprintf("%s: %s (pc %d of %s, PTX line %d, class %s)", name, in.Op, info.PC, info.Func.Name, info.Line, info.Class)
		}
		if errA != nil || errB != nil {
			// A fault the spec expects; both runs must agree.
			require.Equal(t, errA, errB, where())
			return
		}
		if sta.Exec != stb.Exec || sta.Active != stb.Active || len(sta.Accesses) != len(stb.Accesses) {
			require.Failf(t, "the masks depend on registers outside the read set", "%s: exec %#x/%#x, active %#x/%#x", where(), sta.Exec, stb.Exec, sta.Active, stb.Active)
		}
		for i := range sta.Accesses {
			if sta.Accesses[i] != stb.Accesses[i] {
				require.Equal(t, sta.Accesses[i], stb.Accesses[i], "%s: the access depends on registers outside the read set", where())
			}
		}
		if !check {
			continue
		}
		seen[info.ID]++
		if seen[info.ID] == 1 {
			cov.insts++
			cov.classes[info.Class]++
		}
		cov.checks++
		checkWrites(t, where, info, before, beforeP, ra, pa)
		// bar.red delivers its result when the barrier completes, a call
		// its .reg return values when the callee returns.
		if info.Class != vm.ClassBarrier && info.Class != vm.ClassCall {
			checkReads(t, where, info, sta.Exec, ra, pa, rb, pb)
		}
		copy(rb, ra)
		copy(pb, pa)
	}
}

// poison replaces everything outside the read set with random bits.
func poison(rng *rand.Rand, regs []uint64, preds []uint32, reads *vm.Operands) {
	x, y := rng.Uint64(), rng.Uint64()|1
	for r := 0; r < len(regs)/32; r++ {
		if slices.Contains(reads.Regs, int32(r)) || r == vm.CarryReg && reads.Carry {
			continue
		}
		lanes := regs[r*32 : r*32+32]
		for l := range lanes {
			x += y // a Weyl sequence: every lane of every register differs
			lanes[l] = x ^ x>>29
		}
	}
	for p := range preds {
		if !slices.Contains(reads.Preds, int32(p)) {
			preds[p] = rng.Uint32()
		}
	}
}

// checkWrites: nothing outside the write set changed.
func checkWrites(t *testing.T, where func() string, info *vm.InstInfo, before []uint64, beforeP []uint32, regs []uint64, preds []uint32) {
	w := &info.Writes
	// Take the write set over into before: then the rest compares at once.
	for _, r := range w.Regs {
		copy(before[r*32:r*32+32], regs[r*32:r*32+32])
	}
	if w.Carry {
		copy(before[vm.CarryReg*32:vm.CarryReg*32+32], regs[vm.CarryReg*32:])
	}
	if slices.Equal(before, regs) && slices.Equal(beforeP[:len(preds)], preds) {
		return
	}
	for r := 0; r < len(regs)/32; r++ {
		if slices.Contains(w.Regs, int32(r)) || r == vm.CarryReg && w.Carry {
			continue
		}
		if !slices.Equal(before[r*32:r*32+32], regs[r*32:r*32+32]) {
			what := fmt.Sprintf("register %d", r)
			if r == vm.CarryReg {
				what = "the carry flag"
			}
			require.Failf(t, "write outside the write set", "%s writes %s, which its write set %v lacks", where(), what, w.Regs)
		}
	}
	for p := range preds {
		if !slices.Contains(w.Preds, int32(p)) && beforeP[p] != preds[p] {
			require.Failf(t, "write outside the write set", "%s writes predicate %d, which its write set %v lacks", where(), p, w.Preds)
		}
	}
}

// checkReads: with everything outside the read set poisoned, the write set
// holds the same values in the lanes that executed.
func checkReads(t *testing.T, where func() string, info *vm.InstInfo, exec uint32, ra []uint64, pa []uint32, rb []uint64, pb []uint32) {
	w := &info.Writes
	regs := w.Regs
	if w.Carry {
		regs = append(slices.Clone(regs), int32(vm.CarryReg))
	}
	for _, r := range regs {
		for x := exec; x != 0; x &= x - 1 {
			l := int(r)*32 + bits.TrailingZeros32(x)
			if ra[l] != rb[l] {
				require.Failf(t, "read outside the read set", "%s: register %d, lane %d is %#x, or %#x when registers outside the read set %v (preds %v, carry %v) are poisoned",
					where(), r, bits.TrailingZeros32(x), ra[l], rb[l], info.Reads.Regs, info.Reads.Preds, info.Reads.Carry)
			}
		}
	}
	for _, p := range w.Preds {
		if (pa[p]^pb[p])&exec != 0 {
			require.Failf(t, "read outside the read set", "%s: predicate %d is %#08x, or %#08x when registers outside the read set are poisoned (lanes %#08x)",
				where(), p, pa[p], pb[p], exec)
		}
	}
}

// TestInstInfo checks the metadata lowering computes on a few forms.
func TestInstInfo(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<3>;
	.loc 1 7 3
	ld.param.u64 	%rd1, [p0];
	ld.global.cg.L1::evict_last.L2::evict_first.u32 	%r1, [%rd1];
	ld.global.nc.v2.f32 	{%f1, %f2}, [%rd1+8];
	add.cc.u32 	%r2, %r1, 1;
	addc.u32 	%r3, %r1, %r2;
	setp.lt.and.f32 	%p1|%p2, %f1, %f2, %p1;
	@%p2 st.global.wt.u32 	[%rd1], %r3;
	ldu.global.u32 	%r4, [%rd1];
	mov.u32 	%r5, %tid.x;
	ret;
}`
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+".file 1 \"k.cu\"\n"+src))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err)
	require.Len(t, k.Insts, 11, "10 instructions and the implicit exit")
	for id, info := range k.Insts {
		require.EqualValues(t, id, info.ID)
		require.Same(t, info, &info.Func.Info[info.PC])
	}
	ld := k.Insts[1]
	assert.Equal(t, vm.ClassLSUGlobal, ld.Class)
	assert.Equal(t, "cg", ld.Cache.String())
	assert.Equal(t, "evict_last", ld.L1Evict.String())
	assert.Equal(t, "evict_first", ld.L2Evict.String())
	assert.False(t, ld.NonCoherent)
	assert.EqualValues(t, 14, ld.Line)
	loc, ok := ld.Source()
	require.True(t, ok)
	assert.Equal(t, "k.cu:7:3", loc.String())
	assert.True(t, k.Insts[2].NonCoherent, "ld.global.nc")
	assert.Len(t, k.Insts[2].Writes.Regs, 2, "both elements of the vector")
	assert.True(t, k.Insts[3].Writes.Carry, "add.cc writes the carry")
	assert.False(t, k.Insts[3].Reads.Carry)
	assert.True(t, k.Insts[4].Reads.Carry, "addc reads it")
	assert.False(t, k.Insts[4].Writes.Carry)
	setp := k.Insts[5]
	assert.Equal(t, vm.ClassFP32, setp.Class)
	assert.Len(t, setp.Writes.Preds, 2, "p and q")
	assert.Len(t, setp.Reads.Preds, 1, "the combined predicate")
	st := k.Insts[6]
	assert.Equal(t, "wt", st.Cache.String())
	assert.Len(t, st.Reads.Preds, 1, "the guard")
	assert.Empty(t, st.Writes.Regs)
	assert.True(t, k.Insts[7].NonCoherent, "ldu")
	assert.Equal(t, vm.ClassInt, k.Insts[8].Class)
	assert.Len(t, k.Insts[8].Reads.Regs, 1, "the register %tid.x is filled into")
	assert.Equal(t, "exit", k.Insts[9].Inst().Op.String())
	assert.Equal(t, "setp", setp.Inst().Op.String())
	assert.Equal(t, "lsu-global", ld.Class.String())
}
