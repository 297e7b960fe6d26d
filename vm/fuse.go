package vm

import "github.com/ptxvm/ptxvm/memspace"

// Fuse names a superinstruction: a run of consecutive instructions that the
// functional interpreter executes in one lane loop (one dispatch, one pass
// over the lanes, the registers of a lane read and written in program
// order). Lowering marks where one starts (markFused); the interpreter runs
// it only for a full warp with nothing watching its accesses and no
// reconvergence point inside it, and otherwise steps through the
// instructions as written. What each instruction computes and writes is
// unchanged.
type Fuse uint8

const (
	// FuseNone: no superinstruction starts here.
	FuseNone Fuse = iota
	// FuseLdLdFma: ld.shared.{b,u,f}32 d1, [a1+o1]; ld.shared.{b,u,f}32
	// d2, [a2+o2]; fma.rn.f32 d, x, y, z — the inner loop of a multiply
	// from shared tiles (48 of the tiled matmul's 76 loop instructions).
	// a1 and a2 are neither d1 nor d2, so every address can be checked
	// before a register is written.
	FuseLdLdFma
)

var fuseNames = [...]string{FuseNone: "none", FuseLdLdFma: "ld.shared+ld.shared+fma.rn.f32"}

// String names the superinstruction by the instructions it runs.
func (u Fuse) String() string {
	if int(u) < len(fuseNames) {
		return fuseNames[u]
	}
	return "fuse(" + itoa(int(u)) + ")"
}

// markFused marks the superinstructions of code (Inst.Fuse). Branch targets
// need no care: a jump into the middle of one runs the rest unfused, and
// the interpreter checks at run time that no waiting lanes rejoin inside
// it.
func markFused(code []Inst) {
	for pc := 0; pc+2 < len(code); pc++ {
		a, b, c := &code[pc], &code[pc+1], &code[pc+2]
		if sharedLoad32(a) && sharedLoad32(b) && plainFma32(c) &&
			a.A != a.V[0] && a.A != b.V[0] && b.A != a.V[0] && b.A != b.V[0] {
			a.Fuse = FuseLdLdFma
			pc += 2
		}
	}
}

// sharedLoad32 reports whether in is an unguarded ld.shared of one 32-bit
// unsigned or untyped value from [register+offset] in the 32-bit shared
// window: the form memspace.View.LoadShared32Regs loads.
func sharedLoad32(in *Inst) bool {
	return in.Op == OpLd && in.Guard == NoReg && in.Space == memspace.Shared && in.Vec == 1 &&
		in.T.Size() == 4 && !in.T.Signed() && in.Flags&(FAbsAddr|FLocalRel|FAddr32) == FAddr32 &&
		in.A != NoReg && in.V[0] != NoReg
}

// plainFma32 reports whether in is an unguarded fma.rn.f32 without .ftz or
// .sat: the form fpu.FmaRN32Fast computes.
func plainFma32(in *Inst) bool {
	return in.Op == OpFFma && in.Guard == NoReg && in.T == F32 && in.Flags&(FFtz|FSat) == 0 &&
		in.Rnd == rndN && in.Imm == 0
}
