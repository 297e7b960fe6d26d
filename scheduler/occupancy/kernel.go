package occupancy

import (
	"github.com/ptxvm/ptxvm/vm"
)

// NamedBarriers is the number of hardware barriers a block may use
// (bar.sync 0 to 15).
const NamedBarriers = 16

// Barriers returns the hardware barriers a block of kernel k needs, as
// ptxas reserves them (ncu's launch__barrier_count): one more than the
// highest barrier number its code names, or all 16 when some barrier
// number is a register; 0 for a kernel without bar/barrier instructions
// (bar.warp.sync is not a barrier).
func Barriers(k *vm.Kernel) int {
	n := 0
	for _, f := range k.Funcs {
		for i := range f.Code {
			in := &f.Code[i]
			if in.Op != vm.OpBar {
				continue
			}
			if in.A != vm.NoReg {
				return NamedBarriers
			}
			n = max(n, in.BarrierID()+1)
		}
	}
	return n
}

// RegisterSource says where a register count came from.
type RegisterSource string

const (
	// RegistersGiven: the user gave the count (the spec's "registers" field
	// or --regs), e.g. from ptxas -v or ncu.
	RegistersGiven RegisterSource = "given"
	// RegistersDeclared: the registers the PTX declares, converted to
	// 32-bit registers and capped at the GPU's per-thread maximum. nvcc
	// declares one virtual register per value, so this is an upper bound,
	// often far above what ptxas allocates (it can also fall short of a
	// kernel that spills nothing but needs ptxas's temporaries).
	RegistersDeclared RegisterSource = "declared"
	// RegistersEstimated: estimated from the PTX's liveness (package
	// scheduler/regs), fitted on the corpus's ptxas -v reports.
	RegistersEstimated RegisterSource = "estimated"
)

// DeclaredRegisters returns the 32-bit registers the PTX of kernel k
// declares (its entry and every function it can call; 64-bit registers
// count twice, predicates not at all), at most maxRegs.
//
// The run takes the liveness estimate of package scheduler/regs instead;
// callers that have a count from ptxas or ncu pass it as Input.Registers.
func DeclaredRegisters(k *vm.Kernel, maxRegs int) int {
	n := 0
	for _, f := range k.Funcs {
		for t, c := range f.RegCount {
			if t == vm.Pred {
				continue
			}
			n += c * max(1, (t.Bits()+31)/32)
		}
	}
	return min(n, maxRegs)
}
