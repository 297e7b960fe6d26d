package vm

import "math/bits"

// Register storage by liveness
//
// PTX from nvcc names a new virtual register for nearly every value (the
// tiled matmul declares 128; ptxas gives it 32 machine registers), and the
// lowering keeps one [32]uint64 of a frame per virtual register. A warp's
// frame is then mostly storage that holds dead values, and a run that
// moves between many warps (the cycle loop steps 64 warps per SM, one
// instruction at a time, and every SM of the GPU each window) touches a
// new cache line for nearly every operand. A layout shares one slot of
// the frame among virtual registers whose values are never live at once,
// so that a warp's frame is about as large as the registers it really
// needs.
//
// The layout is storage only: instructions keep their virtual register
// offsets, InstInfo lists them, and the register-pressure estimate and
// reports see the code as written. The frame maps an offset to its slot
// (frame.r); nothing else reads the register file. The timing model keeps
// its scoreboard by slot (Func.Slot): registers that share one are never
// live at once, so its waits are the same.
//
// Which registers share:
//   - Only those every instruction that names them reads or writes lane by
//     lane (sharesStorage: arithmetic, moves, compares, conversions, loads
//     and stores). A register a warp-wide instruction reads (shfl reads
//     other lanes' values, mma a fragment across the warp), an asynchronous
//     unit writes later (wgmma, cp.async), a call passes, or the frame fills
//     at its start (constants, special registers, shared addresses, the
//     zero, sink and carry registers) keeps a slot of its own.
//   - Liveness is per thread over the function's control flow (each lane
//     has its own PC and its own slot of every register, and an
//     instruction writes only the lanes that run it). A guarded write may
//     leave a lane's old value in place, so it does not end the old
//     value's life.
//   - Two registers interfere where one is written while the other is
//     live after the instruction, and every register an instruction writes
//     interferes with every other register it reads or writes: no lane
//     loop ever has a destination that is another operand's storage.
//   - A register written where nothing reads it after (a vector load's
//     unused element) keeps a slot of its own: its write may still be in
//     flight when another register's lands there.
//   - Greedy colouring in register order.
//
// Only kernel entries are laid out (a callee's return values are read by
// the call, not by an instruction of the callee), and only functions small
// enough that the analysis stays cheap (maxLayoutRegs, maxLayoutWork).

// layout says where a function's registers live in a frame.
type layout struct {
	code  *Inst        // &Func.Code[0] of the code it was computed for
	slot  []int32      // slot[v]: the frame slot of virtual register v
	init  [][32]uint64 // the frame template in this layout
	slots int          // frame slots used
	// chains are the plans of the code's FuseLdLdFmaChain heads in this
	// layout, in pc order.
	chains []chainPlan
	// runs is the code's run table in this layout (runPlans), for the
	// code at runsCode.
	runs     []runOp
	runsCode *Inst
	npred    int32 // the predicates the run table's indexes were checked against
}

// Limits of the analysis: registers that may share, and instructions ×
// 64-register words of the liveness sets (8 MiB of them at most). Over the
// 3,096 kernels of the corpora the layout takes 84,065 slots for 217,303
// registers and adds a tenth to lowering (1.19–1.25 → 1.34–1.36 s).
const (
	maxLayoutRegs = 4096
	maxLayoutWork = 1 << 20
)

// noLayout turns shared storage off (tests that poison or inspect the
// register file by virtual register).
var noLayout bool

// identityLayout is one slot per register: the layout when none is
// computed, or when the function's code changed after it was.
func identityLayout(f *Func) *layout {
	n := len(f.init)
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	l := &layout{slot: s, init: f.init, slots: n, chains: chainPlans(f.Code, s)}
	l.setRuns(f)
	return l
}

// frameLayout returns the layout a new frame of f uses.
func (f *Func) frameLayout() *layout {
	if l := f.lay; l != nil && len(f.Code) > 0 && l.code == &f.Code[0] {
		return l
	}
	return f.ident
}

// Slot returns the frame slot register r (an index, as InstInfo lists
// registers) is stored in; registers that share a slot are never live at
// once on any thread's path.
func (f *Func) Slot(r int32) int32 {
	if l := f.frameLayout(); l != nil && r >= 0 && int(r) < len(l.slot) {
		return l.slot[r]
	}
	return r
}

// Slots returns how many slots a frame of f has.
func (f *Func) Slots() int {
	if l := f.frameLayout(); l != nil {
		return l.slots
	}
	return int(f.NumRegs)
}

// Relayout computes the storage layout for f's code as it is now. A
// timing model that reorders a copy of a function's code (Func.Code
// replaced) calls it before the copy runs; until then the copy keeps one
// slot per register.
func (f *Func) Relayout() {
	f.lay = computeLayout(f)
}

// sharesStorage reports whether the registers in's operands name may share
// storage with others: every lane that runs in reads its own lanes of its
// sources and writes the whole of each destination in its own lanes.
func sharesStorage(in *Inst) bool {
	switch in.Op {
	case OpMov, OpPack, OpUnpack, OpMovVec, OpSelp, OpSlct, OpSet, OpSetp,
		OpPAnd, OpPOr, OpPXor, OpPNot, OpPMov,
		OpAdd, OpSub, OpMulLo, OpMulHi, OpMulWide, OpMadLo, OpMadHi, OpMadWide, OpMul24, OpMad24, OpSad,
		OpDiv, OpRem, OpAbs, OpNeg, OpMin, OpMax, OpPopc, OpClz, OpBfind, OpBrev, OpBfe, OpBfi, OpPrmt,
		OpShl, OpShr, OpShf, OpAnd, OpOr, OpXor, OpNot, OpCnot, OpLop3, OpDp4a, OpDp2a, OpBmsk, OpSzext,
		OpFAdd, OpFSub, OpFMul, OpFFma, OpFMulKeep, OpFDivKeep, OpFDiv, OpFRcp, OpFSqrt, OpFRsqrt,
		OpFSin, OpFCos, OpFLg2, OpFEx2, OpFTanh, OpFMin, OpFMax, OpFAbs, OpFNeg, OpFCopysign, OpTestp,
		OpCvt, OpCvta, OpIsspacep, OpNop, OpBra, OpExit, OpRet:
		return true
	case OpLd, OpSt:
		// Not the asynchronous or bulk forms (other ops), nor a vector
		// wider than four (a register list).
		return in.Vec <= 4
	}
	return false
}

// computeLayout returns f's layout, or its identity layout where f is not
// laid out.
func computeLayout(f *Func) *layout {
	n := len(f.init)
	if noLayout || !f.Entry || len(f.Code) == 0 || n == 0 {
		return f.ident
	}
	// Registers that keep a slot of their own.
	fixed := make([]bool, n)
	for r := 0; r < n && r <= int(ccReg>>5); r++ {
		fixed[r] = true // zero, sink, carry
	}
	for r := range f.init { // constants (0 is register 0)
		for _, v := range f.init[r] {
			if v != 0 {
				fixed[r] = true
				break
			}
		}
	}
	for _, u := range f.sregs {
		fixed[u.reg>>5] = true
	}
	for _, u := range f.sharedSyms {
		fixed[u.reg>>5] = true
	}
	reads := make([]Operands, len(f.Code))
	writes := make([]Operands, len(f.Code))
	for pc := range f.Code {
		in := &f.Code[pc]
		reads[pc], writes[pc] = operandSets(in, f)
		if !sharesStorage(in) || reads[pc].Carry || writes[pc].Carry {
			for _, r := range reads[pc].Regs {
				fixed[r] = true
			}
			for _, r := range writes[pc].Regs {
				fixed[r] = true
			}
		}
	}
	// Dense indices of the registers that may share.
	dense := make([]int32, n)
	var shared []int32
	for r := range n {
		dense[r] = -1
		if !fixed[r] {
			dense[r] = int32(len(shared))
			shared = append(shared, int32(r))
		}
	}
	m := len(shared)
	words := (m + 63) / 64
	if m == 0 || m > maxLayoutRegs || len(f.Code)*words > maxLayoutWork {
		return f.ident
	}
	// Successors: the next instruction unless the instruction always goes
	// elsewhere; a branch's target; a brx.idx table's targets.
	succ := make([][]int32, len(f.Code))
	for pc := range f.Code {
		in := &f.Code[pc]
		next := pc+1 < len(f.Code)
		var s []int32
		switch in.Op {
		case OpBra:
			s = append(s, in.Target)
			next = next && in.Guard != NoReg
		case OpBrx:
			if int(in.Imm) < len(f.BrxTables) {
				s = append(s, f.BrxTables[in.Imm]...)
			}
			next = next && in.Guard != NoReg
		case OpExit, OpRet:
			next = next && in.Guard != NoReg
		}
		if next {
			s = append(s, int32(pc+1))
		}
		for _, t := range s {
			if t < 0 || int(t) >= len(f.Code) {
				return f.ident // a target outside the code: do not guess
			}
		}
		succ[pc] = s
	}
	// Live-out sets by instruction, to a fixed point (backwards).
	live := make([]uint64, len(f.Code)*words)
	out := make([]uint64, words)
	set := func(b []uint64, r int32) {
		if d := dense[r]; d >= 0 {
			b[d>>6] |= 1 << (d & 63)
		}
	}
	for changed := true; changed; {
		changed = false
		for pc := len(f.Code) - 1; pc >= 0; pc-- {
			clear(out)
			for _, s := range succ[pc] {
				in := live[int(s)*words : int(s)*words+words]
				// live[s] holds s's live-in (computed below).
				for i := range out {
					out[i] |= in[i]
				}
			}
			// Live-in = reads ∪ (out − definite writes).
			if f.Code[pc].Guard == NoReg {
				for _, r := range writes[pc].Regs {
					if d := dense[r]; d >= 0 {
						out[d>>6] &^= 1 << (d & 63)
					}
				}
			}
			for _, r := range reads[pc].Regs {
				set(out, r)
			}
			cur := live[pc*words : pc*words+words]
			for i := range cur {
				if cur[i] != out[i] {
					cur[i] = out[i]
					changed = true
				}
			}
		}
	}
	// Interference: each register written interferes with what is live
	// after the instruction and with the instruction's other operands. A
	// register some instruction writes and nothing reads after (a vector
	// load's unused element) keeps a colour of its own: its write may
	// still be in flight when another register's would land (a timing
	// model's scoreboard keeps pending writes by slot).
	adj := make([]uint64, m*words)
	dead := make([]bool, m)
	edge := func(a, b int32) {
		if a != b {
			adj[int(a)*words+int(b>>6)] |= 1 << (b & 63)
			adj[int(b)*words+int(a>>6)] |= 1 << (a & 63)
		}
	}
	for pc := range f.Code {
		clear(out)
		for _, s := range succ[pc] {
			in := live[int(s)*words : int(s)*words+words]
			for i := range out {
				out[i] |= in[i]
			}
		}
		for _, r := range writes[pc].Regs {
			if d := dense[r]; d >= 0 && out[d>>6]&(1<<(d&63)) == 0 {
				dead[d] = true
			}
		}
		for _, r := range reads[pc].Regs {
			set(out, r)
		}
		for _, r := range writes[pc].Regs {
			set(out, r)
		}
		for _, r := range writes[pc].Regs {
			d := dense[r]
			if d < 0 {
				continue
			}
			for i, w := range out {
				for ; w != 0; w &= w - 1 {
					edge(d, int32(i*64+bits.TrailingZeros64(w)))
				}
			}
		}
	}
	// Greedy colouring in register order.
	color := make([]int32, m)
	used := make([]bool, m+1)
	own := make([]bool, m+1) // colours of dead-written registers
	ncolors := int32(0)
	for v := range m {
		if dead[v] {
			color[v], own[ncolors] = ncolors, true
			ncolors++
			continue
		}
		copy(used[:ncolors+1], own[:ncolors+1])
		row := adj[v*words : v*words+words]
		for i, w := range row {
			for ; w != 0; w &= w - 1 {
				if u := i*64 + bits.TrailingZeros64(w); u < v {
					used[color[u]] = true
				}
			}
		}
		c := int32(0)
		for used[c] {
			c++
		}
		color[v] = c
		ncolors = max(ncolors, c+1)
	}
	// Slots: the fixed registers first, in order, then the colours.
	l := &layout{code: &f.Code[0], slot: make([]int32, n)}
	nfixed := int32(0)
	for r := range n {
		if fixed[r] {
			l.slot[r] = nfixed
			nfixed++
		}
	}
	for d, r := range shared {
		l.slot[r] = nfixed + color[d]
	}
	l.slots = int(nfixed + ncolors)
	l.init = make([][32]uint64, l.slots)
	for r := range n {
		if fixed[r] {
			l.init[l.slot[r]] = f.init[r]
		}
	}
	l.chains = chainPlans(f.Code, l.slot)
	l.setRuns(f)
	return l
}

// setRuns builds the run table of f's code as it is now in l.
func (l *layout) setRuns(f *Func) {
	l.runs, l.runsCode, l.npred = nil, nil, f.NumPred
	if len(f.Code) > 0 {
		l.runs, l.runsCode = runPlans(f.Code, l.slot, l.slots, int(f.NumPred)), &f.Code[0]
	}
}

// runTable is l's run table if it was built for code and a frame of regs
// register slots and preds predicates, else nil.
func (l *layout) runTable(code []Inst, regs, preds int) []runOp {
	if len(code) == 0 || l.runsCode != &code[0] || len(l.runs) != len(code) || regs != l.slots || preds != int(l.npred) {
		return nil
	}
	return l.runs
}
