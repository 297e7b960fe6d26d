package vm

// Floating-point contraction: what ptxas does to mul + add/sub.
//
// The PTX ISA lets the code generator fuse mul/add/sub that carry no
// rounding modifier, and ptxas does: the GPU computes such a pair with one
// rounding (FFMA, DFMA, HFMA2). nvcc leaves pairs in the PTX it writes (and
// the cuda_fp16 headers write mul.f16/add.f16 in inline assembly, which
// -fmad=false does not touch), so the result a user sees depends on this
// rule. It was read off the SASS ptxas 13 produced for the contraction
// probes of testdata/conformance/issue7 (fma_f32, fma_f64, fma_half: every
// arrangement below in f32, f64, f16, bf16, f16x2 and bf16x2) and checked on
// the application and nvcc corpora:
//
//   - The product is a mul with no rounding modifier and no .sat, not
//     predicated. Its uses are followed through mov (a copy) and neg (a sign;
//     neg with the mul's .ftz): each use reached must be an add or sub of
//     the same type with no rounding modifier and the mul's .ftz (.sat on
//     the add is kept: FFMA.SAT), reading the product in exactly one
//     operand. Any other use (a store, a compare, max, abs, a mul, t + t)
//     and the product is not fused anywhere.
//   - Every use must be in the product's basic block, where blocks joined by
//     an edge that is the only way out of one and the only way into the
//     other count as one (a bra.uni to a label nothing else reaches); the
//     product must not be live where the block ends. Then every use is
//     fused: a product used by two adds becomes two FMAs.
//   - sub d, c, t is fma(-a, b, c); sub d, t, c is fma(a, b, -c); a neg of
//     the product flips the product's sign.
//   - An add of two fusable products fuses the one in its first operand.
//   - div.approx.f32 and div.full.f32 end in an FMUL of the scaled dividend
//     and the divisor's reciprocal (MUFU.RCP): that FMUL is contracted by
//     the same rule (srad_coeff and adam_step of the application corpus at
//     --use_fast_math: div.approx.ftz then sub is FFMA.FTZ -R0, R9, R11).
//
// Forms with .rn/.rz/.rm/.rp (what -fmad=false writes) are never fused,
// and nothing is fused in a module whose target says debug (nvcc -G): the
// driver compiles those without optimisation, and every -G launch of the
// corpora computes each mul and add with its own rounding.

// noContraction turns contraction off (for tests that measure what it
// changes; see export_test.go).
var noContraction bool

// debugTarget reports whether the module's .target names debug.
func (m *Module) debugTarget() bool {
	for _, t := range m.AST.Target {
		if t == "debug" {
			return true
		}
	}
	return false
}

// fmaNegProduct and fmaNegAddend are Inst.Imm bits of an OpFFma that
// lowering contracted from mul + sub or neg: the product (a*b) or the
// addend (c) enters with its sign flipped.
const (
	fmaNegProduct uint64 = 1 << iota
	fmaNegAddend
)

// contractLeaf is an add or sub a product can be fused into.
type contractLeaf struct {
	pc      int32
	operand int  // 0: the product is the add's A, 1: its B
	neg     bool // the product reaches it negated (through neg)
}

// contractCand is a mul whose every use is a leaf.
type contractCand struct {
	pc     int32
	leaves []contractLeaf
	save   bool // a or b is overwritten before some leaf: keep copies
	ok     bool
}

// cfg is the basic-block structure of a function, as contraction needs it.
type cfg struct {
	start, end []int32   // block b covers pcs [start[b], end[b])
	succ       [][]int32 // successor blocks
	pred       []int     // number of distinct predecessor blocks
	block      []int32   // pc -> block
	next       []int32   // the block merged after b (single edge), or -1
}

func buildCFG(f *Func) *cfg {
	n := int32(len(f.Code))
	leader := make([]bool, n+1)
	leader[0] = true
	term := func(in *Inst) bool {
		switch in.Op {
		case OpBra, OpBrx, OpRet, OpExit, OpTrap:
			return true
		}
		return false
	}
	for pc := int32(0); pc < n; pc++ {
		in := &f.Code[pc]
		switch in.Op {
		case OpBra:
			leader[in.Target] = true
		case OpBrx:
			for _, t := range f.BrxTables[in.Imm] {
				leader[t] = true
			}
		}
		if term(in) {
			leader[pc+1] = true
		}
	}
	g := &cfg{block: make([]int32, n)}
	for pc := int32(0); pc < n; pc++ {
		if leader[pc] {
			if len(g.start) > 0 {
				g.end = append(g.end, pc)
			}
			g.start = append(g.start, pc)
		}
		g.block[pc] = int32(len(g.start) - 1)
	}
	g.end = append(g.end, n)
	nb := len(g.start)
	g.succ = make([][]int32, nb)
	g.pred = make([]int, nb)
	g.next = make([]int32, nb)
	for b := 0; b < nb; b++ {
		g.next[b] = -1
		last := &f.Code[g.end[b]-1]
		add := func(pc int32) {
			if pc >= n {
				return
			}
			t := g.block[pc]
			for _, s := range g.succ[b] {
				if s == t {
					return
				}
			}
			g.succ[b] = append(g.succ[b], t)
		}
		fall := true
		switch last.Op {
		case OpBra:
			add(last.Target)
			fall = last.Guard != NoReg
		case OpBrx:
			for _, t := range f.BrxTables[last.Imm] {
				add(t)
			}
			fall = false
		case OpRet, OpExit, OpTrap:
			fall = last.Guard != NoReg
		}
		if fall {
			add(g.end[b])
		}
	}
	for b := range g.succ {
		for _, s := range g.succ[b] {
			g.pred[s]++
		}
	}
	for b := range g.succ {
		if len(g.succ[b]) == 1 {
			s := g.succ[b][0]
			if s != 0 && int(s) != b && g.pred[s] == 1 {
				g.next[b] = s
			}
		}
	}
	return g
}

// liveAt reports whether register r (an index) may be read, before being
// overwritten, on some path starting at block b.
func (g *cfg) liveAt(f *Func, sets []instSets, r int32, b int32) bool {
	seen := make(map[int32]bool)
	stack := []int32{b}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		killed := false
		for pc := g.start[b]; pc < g.end[b]; pc++ {
			if has(sets[pc].reads.Regs, r) {
				return true
			}
			if f.Code[pc].Guard == NoReg && has(sets[pc].writes.Regs, r) {
				killed = true
				break
			}
		}
		if !killed {
			stack = append(stack, g.succ[b]...)
		}
	}
	return false
}

type instSets struct{ reads, writes Operands }

func has(l []int32, x int32) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}

// contract fuses mul + add/sub pairs as ptxas does (see the top of this
// file). plain[pc] says the instruction at pc was written without a
// rounding modifier.
func (l *fnLower) contract(plain map[int32]bool) {
	f := l.f
	var cands []*contractCand
	for pc := range f.Code {
		in := &f.Code[pc]
		switch {
		case in.Op == OpFMul && plain[int32(pc)] && in.Guard == NoReg && in.Flags&FSat == 0 && fusableType(in.T):
			cands = append(cands, &contractCand{pc: int32(pc)})
		case in.Op == OpFDiv && in.T == F32 && in.Flags&(FApprox|FFull) != 0 && in.Guard == NoReg:
			// div.approx/div.full end in an FMUL (scaled dividend times
			// the reciprocal), which ptxas contracts as any plain mul.
			cands = append(cands, &contractCand{pc: int32(pc), save: true})
		}
	}
	if len(cands) == 0 {
		return
	}
	g := buildCFG(f)
	sets := make([]instSets, len(f.Code))
	for pc := range f.Code {
		sets[pc].reads, sets[pc].writes = operandSets(&f.Code[pc], f)
	}
	for _, c := range cands {
		l.contractUses(g, sets, plain, c)
	}
	// Resolve adds claimed by two products: the first operand's wins; a
	// product that loses a use is not fused at all.
	for changed := true; changed; {
		changed = false
		claims := map[int32]*contractCand{}
		for _, c := range cands {
			if !c.ok {
				continue
			}
			for _, lf := range c.leaves {
				o := claims[lf.pc]
				if o == nil {
					claims[lf.pc] = c
					continue
				}
				loser := c
				if lf.operand == 0 {
					loser = o
					claims[lf.pc] = c
				}
				loser.ok = false
				changed = true
			}
		}
	}
	for _, c := range cands {
		if !c.ok {
			continue
		}
		mul := f.Code[c.pc]
		a, b := mul.A, mul.B
		if c.save {
			// The mul's sources change before a use (the fused adds read
			// copies it takes: what ptxas's renaming keeps alive), or it is
			// a division (they read its final multiply's factors).
			in := &f.Code[c.pc]
			in.Op = OpFMulKeep
			if mul.Op == OpFDiv {
				in.Op = OpFDivKeep
			}
			in.V[0], in.V[1] = l.newReg(), l.newReg()
			a, b = in.V[0], in.V[1]
		}
		for _, lf := range c.leaves {
			add := &f.Code[lf.pc]
			fused := *add
			fused.Op = OpFFma
			fused.Flags = add.Flags & (FFtz | FSat)
			fused.Rnd = rndN
			fused.Imm = 0
			fused.A, fused.B = a, b
			neg := lf.neg
			if lf.operand == 0 {
				fused.C = add.B
				if add.Op == OpFSub { // t - c
					fused.Imm |= fmaNegAddend
				}
			} else {
				fused.C = add.A
				if add.Op == OpFSub { // c - t
					neg = !neg
				}
			}
			if neg {
				fused.Imm |= fmaNegProduct
			}
			*add = fused
		}
	}
}

// fusableType reports whether ptxas contracts mul + add of type t.
func fusableType(t Type) bool {
	switch t {
	case F32, F64, F16, BF16, F16x2, BF16x2:
		return true
	}
	return false
}

// contractUses follows the product of mul c through its block and records
// whether every use is a leaf.
func (l *fnLower) contractUses(g *cfg, sets []instSets, plain map[int32]bool, c *contractCand) {
	f := l.f
	mul := &f.Code[c.pc]
	ftz := mul.Flags & FFtz
	a, b := mul.A/32, mul.B/32
	// alias: registers (indices) holding the product, with its sign.
	alias := map[int32]bool{mul.D / 32: false}
	poisoned := map[int32]bool{}
	clobbered := has(sets[c.pc].writes.Regs, a) || has(sets[c.pc].writes.Regs, b)
	blk := g.block[c.pc]
	pc := c.pc + 1
	for {
		if pc >= g.end[blk] {
			nb := g.next[blk]
			if nb < 0 {
				break
			}
			blk, pc = nb, g.start[nb]
			continue
		}
		in := &f.Code[pc]
		rs, ws := sets[pc].reads, sets[pc].writes
		var used []int32
		for _, r := range rs.Regs {
			if poisoned[r] {
				return
			}
			if _, ok := alias[r]; ok {
				used = append(used, r)
			}
		}
		var newAlias int32 = -1
		var newNeg bool
		if len(used) > 0 {
			if len(used) > 1 {
				return
			}
			r := used[0]
			neg := alias[r]
			switch {
			case in.Op == OpMov && in.Guard == NoReg && in.A/32 == r:
				newAlias, newNeg = in.D/32, neg
			case in.Op == OpFNeg && in.Guard == NoReg && in.T == mul.T && in.Flags&FFtz == ftz && in.A/32 == r:
				newAlias, newNeg = in.D/32, !neg
			case (in.Op == OpFAdd || in.Op == OpFSub) && plain[pc] && in.T == mul.T && in.Flags&FFtz == ftz &&
				(in.A/32 == r) != (in.B/32 == r):
				op := 0
				if in.B/32 == r {
					op = 1
				}
				if clobbered {
					c.save = true
				}
				c.leaves = append(c.leaves, contractLeaf{pc: pc, operand: op, neg: neg})
			default:
				return
			}
		}
		for _, r := range ws.Regs {
			if r == a || r == b {
				clobbered = true
			}
			if in.Guard == NoReg {
				delete(alias, r)
				delete(poisoned, r)
			} else if _, ok := alias[r]; ok {
				poisoned[r] = true
			}
		}
		if newAlias >= 0 {
			alias[newAlias] = newNeg
			delete(poisoned, newAlias)
		}
		pc++
	}
	// The product must be dead where its block ends.
	for r := range alias {
		for _, s := range g.succ[blk] {
			if g.liveAt(f, sets, r, s) {
				return
			}
		}
	}
	for r := range poisoned {
		for _, s := range g.succ[blk] {
			if g.liveAt(f, sets, r, s) {
				return
			}
		}
	}
	c.ok = len(c.leaves) > 0
}
