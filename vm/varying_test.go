package vm_test

import (
	"io/fs"
	"math/bits"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestVaryingIsSound runs block 0 of every launch of the nvcc and apps
// corpora and checks, after each instruction, that every register and
// predicate it wrote that Func.Varying calls uniform holds one value in all
// the lanes that executed it. It also counts what the analysis finds
// uniform, so that an analysis that called everything varying would fail.
func TestVaryingIsSound(t *testing.T) {
	t.Cleanup(vm.ComputedApproximations())
	t.Cleanup(vm.WithoutLayout()) // the test reads and poisons registers by index
	var specs []string
	for _, root := range []string{"../testdata/nvcc/cases", "../testdata/apps/cases"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "spec.json" && filepath.Base(filepath.Dir(p)) == "O3" {
				specs = append(specs, p)
			}
			return err
		})
		require.NoError(t, err)
	}
	sort.Strings(specs)
	require.NotEmpty(t, specs)
	cache := spec.NewModuleCache()
	var checked, uniformWrites int
	for _, p := range specs {
		sp, err := spec.Load(p)
		require.NoError(t, err)
		pr, err := sp.Prepare(vm.NewDevice(), cache)
		require.NoError(t, err, p)
		l := pr.Launch
		vary := map[*vm.Func]vm.Varying{}
		for _, f := range l.Kernel.Funcs {
			vary[f] = f.Varying()
		}
		sm := l.NewSM(0)
		cta, err := sm.Admit(0)
		require.NoError(t, err, p)
		var st vm.Step
		next := 0
		for steps := 0; steps < 20000 && !cta.Done(); steps++ {
			wi := -1
			for k := range cta.Warps() {
				i := (next + k) % len(cta.Warps())
				if cta.Warps()[i].State() == vm.WarpReady {
					wi = i
					break
				}
			}
			if wi < 0 {
				break // a barrier deadlock the spec expects, or a fault
			}
			next = wi + 1
			w := cta.Warps()[wi]
			info, _ := w.Next()
			if err := sm.Step(w, &st); err != nil {
				break
			}
			v := vary[info.Func]
			if info.Class == vm.ClassCall || info.Class == vm.ClassBarrier || st.Exec == 0 {
				continue // results delivered later
			}
			regs, preds := w.FrameForTest()
			if info.Func != nil && len(regs) < int(info.Func.NumRegs)*32 {
				continue // the warp is now in another frame
			}
			for _, r := range info.Writes.Regs {
				if int(r) >= len(v.Regs) || v.Regs[r] {
					continue
				}
				uniformWrites++
				first := bits.TrailingZeros32(st.Exec)
				want := regs[int(r)*32+first]
				for m := st.Exec; m != 0; m &= m - 1 {
					lane := bits.TrailingZeros32(m)
					if regs[int(r)*32+lane] != want {
						require.Failf(t, "a uniform register differs between lanes", "%s: %s (PTX line %d): register %d lane %d %#x, lane %d %#x",
							p, info.Inst().Op, info.Line, r, first, want, lane, regs[int(r)*32+lane])
					}
				}
			}
			for _, q := range info.Writes.Preds {
				if int(q) >= len(v.Preds) || v.Preds[q] {
					continue
				}
				if m := preds[q] & st.Exec; m != 0 && m != st.Exec {
					require.Failf(t, "a uniform predicate differs between lanes", "%s: %s (PTX line %d): predicate %d is %#x of %#x",
						p, info.Inst().Op, info.Line, q, m, st.Exec)
				}
			}
			checked++
		}
	}
	t.Logf("%d launches, %d instructions checked, %d writes of uniform registers", len(specs), checked, uniformWrites)
	require.Greater(t, uniformWrites, checked/20, "the analysis finds some values uniform")
}
