package sasscost

import (
	"slices"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// Aggregates says whether ptxas warp-aggregates atomic instruction pc of
// function f, whose registers' uniformity is v (vm.Func.Varying) and whose
// registers read anywhere are read: at -O3, an atom or red on global or
// shared memory whose address is the same in every lane (a uniform
// register), whose result nothing reads, of a 32-bit integer add, and, or,
// xor, min or max, becomes a reduction of the lanes' values in the uniform
// datapath (VOTEU.ANY, UFLO, REDUX) and one atomic by the lowest executing
// lane (@P REDG, @P ATOMS). The memory system then sees one lane where the
// PTX has the warp's.
//
// Read off the corpus's SASS (testdata/nvcc/sass/atomics.O3.sass,
// atomic_contended and atomic_shared_ops): every such atomic is aggregated,
// and no other: 64-bit ones, inc, dec, exch, CAS and float atomics reach
// memory with all their lanes; debug code (-G) aggregates nothing.
func Aggregates(f *vm.Func, pc int, v *vm.Varying, read []bool, debug bool) bool {
	in := &f.Code[pc]
	if debug || in.Op != vm.OpAtom || in.Vec > 1 || in.T.Float() || in.T.Size() != 4 {
		return false
	}
	if in.Space != memspace.Global && in.Space != memspace.Shared {
		return false
	}
	switch in.AtomOp() {
	case vm.AtomAdd, vm.AtomAnd, vm.AtomOr, vm.AtomXor, vm.AtomMin, vm.AtomMax:
	default:
		return false
	}
	if in.D != vm.NoReg && int(in.D/32) < len(read) && read[in.D/32] {
		return false // the returned value is used
	}
	return v.UniformAddress(f, pc)
}

// ReadRegs returns, for function f, which registers some instruction
// reads.
func ReadRegs(f *vm.Func) []bool {
	read := make([]bool, f.NumRegs)
	for i := range f.Info {
		for _, r := range f.Info[i].Reads.Regs {
			if int(r) < len(read) {
				read[r] = true
			}
		}
	}
	return read
}

// CASLoop says whether ptxas makes shared-memory atomic instruction info a
// compare-and-store loop (LDS, the operation, ATOMS.CAST.SPIN, a test, a
// branch back), and on words of how many bits: 32 or 64, 0 for a native
// ATOMS. The H100's ATOMS has 32-bit integer add, min, max, inc, dec, and,
// or, xor, exch and cas, and 64-bit exch and cas; every other shared
// atomic is a loop: floating-point adds (f32, f64, f16x2, bf16x2) and the
// 64-bit integer operations. Verified from SASS for add.f32, add.f64 and
// add.u64 (testdata/perf/micro/sched/casspin.sass.gz, atomics.sass.gz;
// testdata/perf/sass/smem.O3.sass), and for the 64-bit add, and, or, xor,
// min and max (signed and unsigned) and the f32 and f64 adds from the debug
// build of the corpus's atomics, whose generic-address helpers run
// ATOMS.CAST.SPIN(.64) when the address is shared
// (testdata/nvcc/sass/atomics.G.sass: __ullAtomicAdd ... __ullAtomicXor,
// __illAtomicMin, __illAtomicMax, __fAtomicAdd, __dAtomicAdd). The f16x2
// and bf16x2 adds are taken to be loops too (no native form is known);
// not verified from SASS.
func CASLoop(info *vm.InstInfo) int {
	in := info.Inst()
	if in.Op != vm.OpAtom || info.Space != memspace.Shared {
		return 0
	}
	op := in.AtomOp()
	if op == vm.AtomCas || op == vm.AtomExch {
		return 0
	}
	switch in.T {
	case vm.F32, vm.F16, vm.F16x2, vm.BF16, vm.BF16x2:
		return 32
	case vm.F64:
		return 64
	}
	if in.T.Size() == 8 {
		return 64
	}
	return 0
}

// PopcInc says whether ptxas makes shared atomic instruction pc of function
// f an ATOMS.POPC.INC: a 32-bit integer add of the constant 1 whose result
// nothing reads (read: which registers some instruction reads). The
// hardware counts the lanes on each word and adds their number once, so
// lanes on one word cost one update. Read off the SASS: the corpus's
// histograms (atom.shared.add.u32 of 1, result unused:
// testdata/nvcc/sass/atomics.O3.sass, testdata/perf/sass/calib.O3.sass,
// testdata/apps/sass/prims.O3.sass.gz) and the atomics probe's red of a
// register holding 1 (testdata/perf/micro/sched/atomics.sass.gz) are
// POPC.INC; an add of 2 or of a value per lane is ATOMS.ADD
// (casspin.sass.gz), as is an add of 1 whose result is used.
func PopcInc(f *vm.Func, pc int, read []bool) bool {
	in := &f.Code[pc]
	if in.Op != vm.OpAtom || in.Space != memspace.Shared || in.AtomOp() != vm.AtomAdd || in.Vec > 1 {
		return false
	}
	if in.T.Float() || in.T.Size() != 4 {
		return false
	}
	if in.D != vm.NoReg && int(in.D/32) < len(read) && read[in.D/32] {
		return false // the returned value is used
	}
	return constOne(f, in.B/32)
}

// constOne says whether register r of f holds 1 where it is read: a
// constant register of 1 that no instruction writes, or one whose every
// write in f moves such a constant into it (nvcc hoists the mov of a loop's
// constant out of the loop).
func constOne(f *vm.Func, r int32) bool {
	writes := 0
	for q := range f.Code {
		if !slices.Contains(f.Info[q].Writes.Regs, r) {
			continue
		}
		writes++
		c := &f.Code[q]
		if c.Op != vm.OpMov || len(f.Info[q].Reads.Regs) != 1 {
			return false
		}
		if src := f.Info[q].Reads.Regs[0]; written(f, src) || f.InitValue(src) != 1 {
			return false
		}
	}
	return writes > 0 || f.InitValue(r) == 1
}

// written says whether some instruction of f writes register r.
func written(f *vm.Func, r int32) bool {
	for i := range f.Info {
		if slices.Contains(f.Info[i].Writes.Regs, r) {
			return true
		}
	}
	return false
}
