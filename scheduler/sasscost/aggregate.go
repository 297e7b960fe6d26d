package sasscost

import (
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
