package vm

import (
	"slices"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Lowering of the asynchronous copies (cp.async and its groups), the
// matrix loads, stores and moves (ldmatrix, stmatrix, movmatrix) and the
// mbarrier instructions. Execution is in exec_async.go, exec_matrix.go and
// exec_mbarrier.go.

// CpWaitAll is the Imm of an OpCpAsyncWait lowered from cp.async.wait_all
// (commit the open group, then wait for every group).
const CpWaitAll = ^uint64(0)

// The mbarrier operations (Inst.Mbar).
const (
	MbarInit       uint64 = iota // mbarrier.init [a], B (count)
	MbarInval                    // mbarrier.inval [a]
	MbarArrive                   // mbarrier.arrive D, [a], B (count); with MbarExpectTx also C (txCount) first
	MbarArriveDrop               // mbarrier.arrive_drop D, [a], B (count); with MbarExpectTx also C
	MbarExpectTx                 // mbarrier.expect_tx [a], C
	MbarCompleteTx               // mbarrier.complete_tx [a], C
	MbarTestWait                 // mbarrier.test_wait / try_wait D (predicate), [a], B (state, or parity with MbarParity)
	MbarCpAsync                  // cp.async.mbarrier.arrive[.noinc] [a]
)

// Bits of Inst.Imm of an OpMbarrier above the operation.
const (
	mbarOpMask   = 0xff
	MbarParity   = 1 << 8  // test_wait/try_wait .parity: B is a phase parity, not a state
	MbarWithTx   = 1 << 9  // arrive.expect_tx / arrive_drop.expect_tx: C is a tx-count to expect first
	MbarNoInc    = 1 << 10 // cp.async.mbarrier.arrive.noinc: the copies' completion is an arrival
	MbarTryWait  = 1 << 11 // try_wait rather than test_wait (the same here: see exec_mbarrier.go)
	mbarOpsKnown = MbarParity | MbarWithTx | MbarNoInc | MbarTryWait | mbarOpMask
)

// Mbar returns the mbarrier operation of an OpMbarrier (MbarInit ...) and
// its flag bits (MbarParity ...).
func (in *Inst) Mbar() (op, flags uint64) { return in.Imm & mbarOpMask, in.Imm &^ mbarOpMask }

// hasMod reports whether the instruction's modifiers include w.
func hasMod(pi *ptx.Instruction, w string) bool { return slices.Contains(pi.Mods, w) }

// lowerCp lowers the cp family: cp.async (copies, commit_group,
// wait_group, wait_all, mbarrier.arrive) and the bulk copies (lower_bulk.go).
func (l *fnLower) lowerCp(pi *ptx.Instruction, in *Inst, m *mods) bool {
	ops := pi.Operands
	reduce := m.take(".reduce")
	if !m.take(".async") {
		l.errorf(pi.Pos, "unsupported instruction cp%s (only cp.async is)", joinMods(pi.Mods))
		return false
	}
	if m.take(".bulk") {
		return l.lowerBulk(pi, in, m, reduce)
	}
	if reduce {
		l.errorf(pi.Pos, "unsupported instruction cp%s (cp.reduce is cp.reduce.async.bulk)", joinMods(pi.Mods))
		return false
	}
	switch {
	case m.take(".commit_group"):
		in.Op = OpCpAsyncCommit
		return l.noOperands(pi)
	case m.take(".wait_group"):
		in.Op = OpCpAsyncWait
		if len(ops) != 1 || ops[0].Kind != ptx.OpInt || ops[0].Int < 0 {
			l.errorf(pi.Pos, "cp.async.wait_group takes one non-negative integer constant")
			return false
		}
		in.Imm = uint64(ops[0].Int)
		return true
	case m.take(".wait_all"):
		in.Op, in.Imm = OpCpAsyncWait, CpWaitAll
		return l.noOperands(pi)
	case m.take(".mbarrier"):
		if !m.take(".arrive") {
			l.errorf(pi.Pos, "cp.async.mbarrier needs .arrive")
			return false
		}
		in.Op, in.Imm = OpMbarrier, MbarCpAsync
		if m.take(".noinc") {
			in.Imm |= MbarNoInc
		}
		m.types = nil // .b64
		if len(ops) != 1 {
			l.errorf(pi.Pos, "cp.async.mbarrier.arrive takes 1 operand ([addr]), found %d", len(ops))
			return false
		}
		l.mbarAddr(ops[0], m, in)
		return true
	}
	return l.lowerCpAsync(pi, in, m)
}

// lowerCpAsync lowers cp.async.{ca,cg}.shared{::cta}.global[.L2::cache_hint]
// [.L2::{64,128,256}B] [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}.
func (l *fnLower) lowerCpAsync(pi *ptx.Instruction, in *Inst, m *mods) bool {
	ops := pi.Operands
	in.Op = OpCpAsync
	if m.mem.cache != memspace.CacheCA && m.mem.cache != memspace.CacheCG {
		l.errorf(pi.Pos, "cp.async needs .ca or .cg")
		return false
	}
	// The spaces are fixed: the parsed space is the last one named (.global).
	if !hasMod(pi, ".global") || !(hasMod(pi, ".shared") || hasMod(pi, ".shared::cta")) {
		l.errorf(pi.Pos, "cp.async copies .global to .shared (write cp.async.%s.shared.global)", m.mem.cache)
		return false
	}
	if m.cacheHint {
		if len(ops) < 4 {
			l.errorf(pi.Pos, "cp.async.%s.L2::cache_hint needs a cache-policy operand", m.mem.cache)
			return false
		}
		ops = ops[:len(ops)-1] // the cache policy: a hint
	}
	if len(ops) != 3 && len(ops) != 4 {
		l.errorf(pi.Pos, "cp.async takes [dst], [src], cp-size and optionally src-size or ignore-src, found %d operands", len(ops))
		return false
	}
	size := ops[2]
	if size.Kind != ptx.OpInt || size.Int != 4 && size.Int != 8 && size.Int != 16 {
		l.errorf(size.Pos, "cp.async cp-size must be 4, 8 or 16")
		return false
	}
	if m.mem.cache == memspace.CacheCG && size.Int != 16 {
		l.errorf(size.Pos, "cp.async.cg copies 16 bytes")
		return false
	}
	in.Vec = uint8(size.Int)
	in.Space = memspace.Global
	l.address(ops[0], memspace.Shared, in) // the destination: A, Off, FAddr32/FAbsAddr
	var src Inst
	src = newInst(OpNop)
	if sp := l.address64(ops[1], memspace.Global, &src); sp != memspace.Global {
		l.errorf(ops[1].Pos, "cp.async reads .global memory")
		return false
	}
	switch {
	case src.Flags&FAbsAddr != 0:
		in.B, in.Imm = l.constReg(uint64(src.Off)), 0
	case src.Flags&FLocalRel != 0:
		l.errorf(ops[1].Pos, "cp.async reads .global memory")
		return false
	default:
		in.B, in.Imm = src.A, uint64(src.Off)
	}
	if len(ops) == 4 {
		o := ops[3]
		if r, ok := l.reg(o.Name); o.Kind == ptx.OpName && ok && r.pred {
			p, neg := l.predSrc(o)
			in.V[0] = p
			if neg {
				in.Flags |= FNeg2
			}
		} else {
			in.C = l.src(o, U32)
		}
	}
	return true
}

// noOperands reports an instruction written with operands it does not take.
func (l *fnLower) noOperands(pi *ptx.Instruction) bool {
	if len(pi.Operands) != 0 {
		l.errorf(pi.Pos, "%s%s takes no operands", pi.Opcode, joinMods(pi.Mods))
		return false
	}
	return true
}

func joinMods(ms []string) string {
	n := 0
	for _, s := range ms {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, s := range ms {
		b = append(b, s...)
	}
	return string(b)
}

// matrixShape checks the .m8n8 .b16 shape of ldmatrix/stmatrix/movmatrix
// (the 8-bit shapes are sm_100a's) and takes .sync .aligned.
func (l *fnLower) matrixShape(pi *ptx.Instruction, m *mods) bool {
	if !m.take(".sync") || m.flags&FAligned == 0 { // (.aligned is parsed into the flags)
		l.errorf(pi.Pos, "%s needs .sync.aligned", pi.Opcode)
		return false
	}
	if !m.take(".m8n8") {
		l.errorf(pi.Pos, "%s: only the .m8n8 shape is supported (.m16n16, .m8n16 and .m16n8 are sm_100a's)", pi.Opcode)
		return false
	}
	if t := m.typ(0); t != B16 || len(m.types) != 1 {
		l.errorf(pi.Pos, "%s.m8n8 needs the type .b16", pi.Opcode)
		return false
	}
	return true
}

// lowerMatrix lowers ldmatrix and stmatrix.
func (l *fnLower) lowerMatrix(pi *ptx.Instruction, in *Inst, m *mods, load bool) bool {
	if !l.matrixShape(pi, m) {
		return false
	}
	switch {
	case m.take(".x1"):
		in.Vec = 1
	case m.take(".x2"):
		in.Vec = 2
	case m.take(".x4"):
		in.Vec = 4
	default:
		l.errorf(pi.Pos, "%s needs .x1, .x2 or .x4", pi.Opcode)
		return false
	}
	if m.take(".trans") {
		in.Flags |= FTrans
	}
	sp := memspace.Generic
	if m.hasSpace {
		sp = m.space
		if sp != memspace.Shared {
			l.errorf(pi.Pos, "%s accesses .shared memory", pi.Opcode)
			return false
		}
	}
	ops := pi.Operands
	if len(ops) != 2 {
		l.errorf(pi.Pos, "%s takes 2 operands, found %d", pi.Opcode, len(ops))
		return false
	}
	regs, addr := ops[0], ops[1]
	in.Op = OpLdmatrix
	if !load {
		in.Op = OpStmatrix
		regs, addr = ops[1], ops[0]
	}
	in.T = B32
	in.Space = l.address(addr, sp, in)
	elems := []*ptx.Operand{regs}
	if regs.Kind == ptx.OpVector {
		elems = regs.Elems
	} else if ve := l.vectorElems(regs); ve != nil {
		elems = ve
	}
	if len(elems) != int(in.Vec) {
		l.errorf(regs.Pos, "%s.x%d needs %d registers, found %d", pi.Opcode, in.Vec, in.Vec, len(elems))
		return false
	}
	for i, e := range elems {
		if load {
			in.V[i] = l.dst(e)
		} else {
			in.V[i] = l.src(e, B32)
		}
	}
	return true
}

// lowerMovmatrix lowers movmatrix.sync.aligned.m8n8.trans.b16 d, a.
func (l *fnLower) lowerMovmatrix(pi *ptx.Instruction, in *Inst, m *mods) bool {
	if !l.matrixShape(pi, m) {
		return false
	}
	if !m.take(".trans") {
		l.errorf(pi.Pos, "movmatrix needs .trans")
		return false
	}
	if len(pi.Operands) != 2 {
		l.errorf(pi.Pos, "movmatrix takes 2 operands, found %d", len(pi.Operands))
		return false
	}
	in.Op, in.T = OpMovmatrix, B32
	in.D = l.dst(pi.Operands[0])
	in.A = l.src(pi.Operands[1], B32)
	return true
}

// mbarAddr lowers the address of an mbarrier object: .shared, .shared::cta,
// .shared::cluster (the block's own shared memory: clusters of one block)
// or generic.
func (l *fnLower) mbarAddr(o *ptx.Operand, m *mods, in *Inst) {
	sp := memspace.Generic
	if m.hasSpace {
		sp = m.space
		if sp != memspace.Shared {
			l.errorf(o.Pos, "an mbarrier object is in .shared memory")
		}
	}
	in.Space = l.address(o, sp, in)
}

// lowerMbarrier lowers the mbarrier instructions.
func (l *fnLower) lowerMbarrier(pi *ptx.Instruction, in *Inst, m *mods) bool {
	ops := pi.Operands
	m.take(".noComplete") // the caller promises the arrival does not complete the phase
	m.take(".expect_tx")  // (re-taken below where it is a modifier of arrive)
	withTx := hasMod(pi, ".expect_tx")
	if t := m.typ(0); t != B64 && !(t == TNone && hasMod(pi, ".pending_count")) {
		l.errorf(pi.Pos, "mbarrier needs the type .b64")
		return false
	}
	need := func(n ...int) bool {
		if !slices.Contains(n, len(ops)) {
			l.errorf(pi.Pos, "mbarrier%s takes %d operands, found %d", joinMods(pi.Mods), n[0], len(ops))
			return false
		}
		return true
	}
	in.Op = OpMbarrier
	one := func() int32 { return l.constReg(1) }
	state := func(o *ptx.Operand) int32 {
		if o.Kind == ptx.OpName && o.Name == "_" {
			return NoReg
		}
		return l.dst(o)
	}
	switch {
	case m.take(".init"):
		if !need(2) {
			return false
		}
		in.Imm = MbarInit
		l.mbarAddr(ops[0], m, in)
		in.B = l.src(ops[1], U32)
	case m.take(".inval"):
		if !need(1) {
			return false
		}
		in.Imm = MbarInval
		l.mbarAddr(ops[0], m, in)
	case m.take(".arrive"), m.take(".arrive_drop"):
		in.Imm = MbarArrive
		if hasMod(pi, ".arrive_drop") {
			in.Imm = MbarArriveDrop
		}
		if withTx {
			// arrive.expect_tx state, [a], txCount
			if !need(3) {
				return false
			}
			in.Imm |= MbarWithTx
			in.C = l.src(ops[2], U32)
			in.B = one()
		} else {
			if !need(2, 3) {
				return false
			}
			in.B = one()
			if len(ops) == 3 {
				in.B = l.src(ops[2], U32)
			}
		}
		in.D = state(ops[0])
		l.mbarAddr(ops[1], m, in)
	case withTx || hasMod(pi, ".complete_tx"):
		in.Imm = MbarExpectTx
		if m.take(".complete_tx") {
			in.Imm = MbarCompleteTx
		}
		if !need(2) {
			return false
		}
		l.mbarAddr(ops[0], m, in)
		in.C = l.src(ops[1], U32)
	case m.take(".test_wait"), m.take(".try_wait"):
		in.Imm = MbarTestWait
		if hasMod(pi, ".try_wait") {
			in.Imm |= MbarTryWait
		}
		if m.take(".parity") {
			in.Imm |= MbarParity
		}
		if !need(3, 4) { // try_wait's suspend-time hint: a hint
			return false
		}
		in.D = l.predDst(ops[0])
		l.mbarAddr(ops[1], m, in)
		if in.Imm&MbarParity != 0 {
			in.B = l.src(ops[2], U32)
		} else {
			in.B = l.src(ops[2], B64)
		}
		if len(ops) == 4 {
			l.src(ops[3], U32)
		}
	case m.take(".pending_count"):
		if !need(2) {
			return false
		}
		in.Op = OpMbarPendingCount
		in.D = l.dst(ops[0])
		in.A = l.src(ops[1], B64)
	default:
		l.errorf(pi.Pos, "unsupported instruction mbarrier%s", joinMods(pi.Mods))
		return false
	}
	m.types = nil
	return true
}
