package timing

import (
	"slices"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/scheduler/regs"
	"github.com/ptxvm/ptxvm/vm"
)

// The machine code ptxas emits is scheduled: within a basic block it
// issues loads early and their consumers late, so that a warp does not
// wait on each load in turn (the tiled matmul's inner loop issues seven
// LDS before its first FFMA). PTX from nvcc is in source order. So that the
// cycle loop issues instructions in an order like the machine code's,
// schedule reorders the instructions of each basic block of a kernel by a
// list scheduler over their dependencies (registers, predicates, the carry
// flag, memory order), longest latency path first, and the timed run
// executes that kernel. Reordering within dependencies does not change
// what the kernel computes; control flow, calls, warp-wide instructions and
// clock reads stay where they are and delimit the blocks, so that every
// branch target and reconvergence point keeps its PC. A barrier orders
// memory only: what computes in registers moves across it, and it is
// placed after everything ready before it (ptxas computes a loop's next
// addresses and its test before the BAR.SYNC its warps wait at).

// fence reports whether in must keep its place (it delimits blocks).
func fence(in *vm.Inst, info *vm.InstInfo) bool {
	switch in.Op {
	case vm.OpBra, vm.OpBrx, vm.OpCall, vm.OpRet, vm.OpExit, vm.OpTrap, vm.OpBar, vm.OpBarCluster, vm.OpClock, vm.OpNop:
		return true
	}
	return info.Class == vm.ClassWarpSync
}

// Memory domains that can alias among themselves only.
const (
	domGlobal = iota // global memory, textures and surfaces over it
	domShared
	domLocal
	domReadOnly // constant and parameter space
	numDomains
)

// memDomain returns the domains [lo, hi) a memory instruction may touch:
// its state space's, or all of them for a generic address.
func memDomain(in *vm.Inst) (lo, hi int) {
	d := domGlobal
	switch in.Space {
	case memspace.Shared:
		d = domShared
	case memspace.Local, memspace.FParam:
		d = domLocal
	case memspace.Const, memspace.Param:
		d = domReadOnly
	case memspace.Generic:
		if in.Op != vm.OpTex && in.Op != vm.OpTxq {
			return 0, numDomains
		}
	}
	return d, d + 1
}

// memKind says how an instruction touches memory: 0 not, 1 reads, 2
// writes (stores, atomics, reductions).
func memKind(in *vm.Inst) uint8 {
	switch in.Op {
	case vm.OpLd, vm.OpTex, vm.OpTxq, vm.OpSuld, vm.OpSuq:
		return 1
	case vm.OpSt, vm.OpAtom, vm.OpSust, vm.OpSured:
		return 2
	}
	return 0
}

// memOrder returns the memory domains an instruction reads and writes (bit
// d: domain d), for the order the list scheduler keeps: memKind's
// instructions in their memDomain, and the matrix and asynchronous ones
// (whose fragments ptxas loads and stores with LDSM, LDG, STG, LDGSTS and
// which it never moves across the barrier that guards their data).
func memOrder(in *vm.Inst) (reads, writes uint8) {
	lo, hi := memDomain(in)
	m := uint8(1<<hi - 1<<lo)
	switch in.Op {
	case vm.OpLdmatrix, vm.OpWmmaLoad:
		return m, 0
	case vm.OpStmatrix, vm.OpWmmaStore, vm.OpMbarrier:
		return 0, m
	case vm.OpWgmma:
		return 1 << domShared, 0 // its matrices' descriptors
	case vm.OpCpAsync:
		return 1 << domGlobal, 1 << domShared
	case vm.OpBulk:
		return 0, 1<<numDomains - 1
	}
	switch memKind(in) {
	case 1:
		return m, 0
	case 2:
		return 0, m
	}
	return 0, 0
}

// schedule returns a copy of kernel k whose basic blocks are list
// scheduled with the latencies of prog (indexed by kernel-wide id). The
// copy shares everything but the functions' code and instruction
// metadata; instruction ids are kept.
func schedule(k *vm.Kernel, prog *program, registers int, scale float64) (*vm.Kernel, []int32, []merged) {
	nk := *k
	clone := map[*vm.Func]*vm.Func{}
	nk.Funcs = make([]*vm.Func, len(k.Funcs))
	for i, f := range k.Funcs {
		nf := *f
		nk.Funcs[i] = &nf
		clone[f] = &nf
	}
	nk.Entry = clone[k.Entry]
	nk.Insts = make([]*vm.InstInfo, len(k.Insts))
	var folded []int32
	var vec []merged
	for i, f := range k.Funcs {
		nf := nk.Funcs[i]
		cf := *f
		cf.Code = append([]vm.Inst(nil), f.Code...)
		cf.Info = append([]vm.InstInfo(nil), f.Info...)
		conv := ifConvert(&cf)
		for pc, c := range conv {
			if c {
				folded = append(folded, cf.Info[pc].ID)
			}
		}
		// Liveness of the code before if-conversion: a predicated write
		// does not end its register's old value, so after it every
		// converted load's register would look live from the entry on.
		lv := regs.Liveness(f)
		order := scheduleFunc(&cf, conv, prog, &lv, int(float64(slotBudget(max(registers, freeRegisters)))*max(scale, 1)))
		nf.Code = make([]vm.Inst, len(f.Code))
		nf.Info = make([]vm.InstInfo, len(f.Info))
		for pc, from := range order {
			nf.Code[pc] = cf.Code[from]
			nf.Info[pc] = cf.Info[from]
			nf.Info[pc].Func = nf
			nf.Info[pc].PC = int32(pc)
		}
		nf.Calls = append([]vm.CallSite(nil), f.Calls...)
		for j := range nf.Calls {
			if c := clone[nf.Calls[j].Callee]; c != nil {
				nf.Calls[j].Callee = c
			}
		}
		for pc := range nf.Info {
			nk.Insts[nf.Info[pc].ID] = &nf.Info[pc]
		}
		nf.Relayout() // the registers' storage for the reordered code
		vec = mergeLoads(nf, vec)
	}
	return &nk, folded, vec
}

// merged is a load ptxas merges into a vector load: its id, and the
// register the vector load writes first.
type merged struct{ id, lead, reg int32 }

// mergeLoads appends to out the shared-memory loads of f that ptxas
// merges into the vector load of an earlier one: 32-bit loads from one
// base register at consecutive offsets, from an offset that is a multiple
// of 16 (up to four: LDS.128) or of 8 (two: LDS.64), with no write to the
// base, shared store or control flow between them. The tiled matmul's
// sixteen loads of a row of its A tile, at [%r9], [%r9+4], ..., [%r9+60],
// are four LDS.128 in its SASS.
func mergeLoads(f *vm.Func, out []merged) []merged {
	type group struct {
		off       int64
		n, most   int
		reg, lead int32
	}
	open := map[int32]*group{}
	for pc := range f.Code {
		in, info := &f.Code[pc], &f.Info[pc]
		if fence(in, info) || in.Op == vm.OpSt || in.Op == vm.OpAtom {
			clear(open)
			continue
		}
		for _, r := range info.Writes.Regs {
			delete(open, r)
		}
		if in.Op != vm.OpLd || in.Space != memspace.Shared || in.Vec > 1 || in.T.Size() != 4 || in.Guard != vm.NoReg || in.A == vm.NoReg || len(info.Writes.Regs) != 1 || info.Writes.Regs[0] == in.A {
			continue
		}
		if g := open[in.A]; g != nil && g.n < g.most && in.Off == g.off+4*int64(g.n) {
			out = append(out, merged{info.ID, g.lead, g.reg})
			g.n++
			continue
		}
		switch {
		case in.Off%16 == 0:
			open[in.A] = &group{off: in.Off, n: 1, most: 4, reg: info.Writes.Regs[0], lead: info.ID}
		case in.Off%8 == 0:
			open[in.A] = &group{off: in.Off, n: 1, most: 2, reg: info.Writes.Regs[0], lead: info.ID}
		}
	}
	return out
}

// freeRegisters is the allocation ptxas may take without costing
// occupancy (64 warps of 32 threads at 32 registers fill the register
// file); every kernel of the corpus with fewer live values than that is
// allocated at most 32 by ptxas -O3, however many loads it hoists.
const freeRegisters = 32

// slotBudget is the register slots, as the liveness pass counts them in
// PTX, that fit in registers allocated by ptxas: the inverse of package
// regs' fit of ptxas's count against the PTX's pressure (4.82 + 0.791
// slots), so that 32 registers hold about 34 slots.
func slotBudget(registers int) int { return max(1, int((float64(registers)-4.82)/0.791)) }

// pressure tracks the register slots live while a block is scheduled.
type pressure struct {
	f    *vm.Func
	lv   *regs.Live
	now  []uint64 // registers live
	out  []uint64 // live after the block
	left map[int32]int
	live int
}

func newPressure(f *vm.Func, lv *regs.Live, b, e int) *pressure {
	p := &pressure{f: f, lv: lv, now: append([]uint64(nil), lv.In[b]...), left: map[int32]int{}}
	if e < len(f.Code) {
		p.out = lv.In[e]
	}
	for pc := b; pc < e; pc++ {
		for _, r := range f.Info[pc].Reads.Regs {
			p.left[r]++
		}
	}
	p.live = lv.Slots(p.now)
	return p
}

func has(set []uint64, r int32) bool { return set != nil && set[r/64]&(1<<(uint(r)%64)) != 0 }

// delta is how many slots placing the instruction at pc changes the live
// registers by.
func (p *pressure) delta(pc int) int {
	d := 0
	info := &p.f.Info[pc]
	for _, r := range info.Reads.Regs {
		if p.left[r] == 1 && has(p.now, r) && !has(p.out, r) {
			d -= int(p.lv.Width[r])
		}
	}
	for _, r := range info.Writes.Regs {
		if !has(p.now, r) && (p.left[r] > 0 || has(p.out, r)) {
			d += int(p.lv.Width[r])
		}
	}
	return d
}

// place records that the instruction at pc is scheduled.
func (p *pressure) place(pc int) {
	p.live += p.delta(pc)
	info := &p.f.Info[pc]
	for _, r := range info.Reads.Regs {
		p.left[r]--
		if p.left[r] == 0 && !has(p.out, r) {
			p.now[r/64] &^= 1 << (uint(r) % 64)
		}
	}
	for _, r := range info.Writes.Regs {
		if p.left[r] > 0 || has(p.out, r) {
			p.now[r/64] |= 1 << (uint(r) % 64)
		}
	}
}

// maxHammock is the most instructions a forward branch may skip for
// ifConvert to predicate them.
const maxHammock = 12

// ifConvert does what ptxas does to a short forward conditional branch
// over straight-line code (a bounds check around a load, say): it
// predicates the skipped instructions with the branch's negated guard and
// drops the branch, so that they join the surrounding basic block and the
// list scheduler can hoist them (the tiled matmul's SASS issues both tiles'
// predicated LDG before either STS; in PTX order each STS waits for its
// load in turn). It converts a branch when its target is at most
// maxHammock instructions ahead and no skipped instruction is a fence, is
// guarded already, writes the guard or is another branch's target. The
// branch becomes a nop that issues nothing; it returns which PCs those
// are. What the kernel computes does not change: a lane that branched
// over an instruction now executes it with a false guard.
func ifConvert(f *vm.Func) []bool {
	n := len(f.Code)
	conv := make([]bool, n)
	target := make([]int, n+1) // branches that target each PC
	for pc := range f.Code {
		in := &f.Code[pc]
		switch in.Op {
		case vm.OpBra:
			if t := int(in.Target); t >= 0 && t <= n {
				target[t]++
			}
		case vm.OpBrx:
			for _, t := range in.BrxTable(f) {
				if t >= 0 && int(t) <= n {
					target[t] = 2 // never converted
				}
			}
		}
	}
	for pc := 0; pc < n; pc++ {
		br := &f.Code[pc]
		t := int(br.Target)
		if br.Op != vm.OpBra || br.Guard == vm.NoReg || br.Flags&vm.FUni != 0 || t <= pc+1 || t > pc+1+maxHammock || t > n {
			continue
		}
		ok := true
		for j := pc + 1; j < t && ok; j++ {
			in, info := &f.Code[j], &f.Info[j]
			ok = !fence(in, info) && in.Op != vm.OpBrx && in.Guard == vm.NoReg && target[j] == 0 && !slices.Contains(info.Writes.Preds, br.Guard)
		}
		if !ok {
			continue
		}
		for j := pc + 1; j < t; j++ {
			in, info := &f.Code[j], &f.Info[j]
			in.Guard, in.GuardNeg = br.Guard, !br.GuardNeg
			info.Reads.Preds = append(slices.Clip(info.Reads.Preds), br.Guard)
		}
		target[t]--
		nop := f.Code[pc]
		nop.Op, nop.Guard, nop.GuardNeg, nop.Target = vm.OpNop, vm.NoReg, false, 0
		f.Code[pc] = nop
		f.Info[pc].Reads, f.Info[pc].Writes = vm.Operands{}, vm.Operands{}
		conv[pc] = true
		pc = t - 1
	}
	return conv
}

// ifConverted returns the ids of the instructions that ifConvert
// predicated in k's schedule nk: unguarded in k, guarded in nk.
func ifConverted(k, nk *vm.Kernel) []int32 {
	var ids []int32
	for id, info := range k.Insts {
		if id < len(nk.Insts) && info.Inst().Guard == vm.NoReg && nk.Insts[id].Inst().Guard != vm.NoReg {
			ids = append(ids, int32(id))
		}
	}
	return ids
}

// crossing is an instruction the list scheduler moved across a barrier
// that holds its lanes (bar.sync, bar.red) in the same basic block: up
// from after it to before it, or down from before it to after it.
type crossing struct {
	id int32
	up bool
}

// barrierCrossings returns, by the id of each barrier instruction that
// holds its lanes, the instructions that k's schedule nk moved across it.
// Lanes of a warp that arrive at a barrier in separate groups resume
// after it as one: an instruction moved up runs once per group where the
// PTX runs it once, one moved down once where the PTX runs it per group.
// (Blocks keep their order and are permuted within themselves, so an
// instruction has crossed a barrier exactly when their order flipped.)
func barrierCrossings(k, nk *vm.Kernel) map[int32][]crossing {
	var out map[int32][]crossing
	for _, b := range nk.Insts {
		if in := b.Inst(); in.Op != vm.OpBar || in.Flags&vm.FArrive != 0 {
			continue
		}
		ob := k.Insts[b.ID].PC
		for pc := range b.Func.Info {
			x := &b.Func.Info[pc]
			if x.ID == b.ID {
				continue
			}
			before, now := k.Insts[x.ID].PC < ob, x.PC < b.PC
			if before == now {
				continue
			}
			if out == nil {
				out = map[int32][]crossing{}
			}
			out[b.ID] = append(out[b.ID], crossing{id: x.ID, up: now})
		}
	}
	return out
}

// scheduleFunc returns the new order of f's instructions: order[pc] is the
// old pc of the instruction now at pc.
func scheduleFunc(f *vm.Func, conv []bool, prog *program, lv *regs.Live, budget int) []int {
	n := len(f.Code)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	leader := make([]bool, n+1)
	leader[0] = true
	for pc := range f.Code {
		in := &f.Code[pc]
		if fence(in, &f.Info[pc]) && !conv[pc] && in.Op != vm.OpBar {
			leader[pc], leader[pc+1] = true, true
		}
		switch in.Op {
		case vm.OpBra:
			if t := int(in.Target); t >= 0 && t < n {
				leader[t] = true
			}
		case vm.OpBrx:
			for _, t := range in.BrxTable(f) {
				if t >= 0 && int(t) < n {
					leader[t] = true
				}
			}
		}
	}
	for b := 0; b < n; {
		e := b + 1
		for e < n && !leader[e] {
			e++
		}
		if e-b > 2 {
			listSchedule(f, prog, lv, budget, b, e, order[b:e])
		}
		b = e
	}
	return order
}

// listSchedule orders the instructions [b, e) of f into out: among the
// instructions whose predecessors are placed, the one with the longest
// latency path to the block's end first, then the earliest.
//
// With liveness lv it keeps the register slots live in the block within
// budget as ptxas keeps them within its allocation: while the registers
// live are at the budget, the ready instruction that adds the fewest live
// slots goes first (ptxas keeps two or three of kmeans_update's sixteen
// predicated loads in flight at 32 registers, where hoisting all of them
// needs more).
func listSchedule(f *vm.Func, prog *program, lv *regs.Live, budget int, b, e int, out []int) {
	n := e - b
	if n > 512 {
		return // very long blocks (unrolled -G code) keep their order
	}
	succ := make([][]int, n)
	npred := make([]int, n)
	type loc struct {
		kind uint8 // 0 reg, 1 pred, 2 carry
		idx  int32
	}
	lastW := map[loc]int{}
	reads := map[loc][]int{}
	// Memory order per domain (memDomain): an explicit state space cannot
	// alias another, so ptxas moves a global load above a shared store
	// (the tiled matmul issues both tiles' LDG before their STS).
	var lastStore [numDomains]int
	var lastMem [numDomains][]int
	for d := range lastStore {
		lastStore[d] = -1
	}
	edge := func(from, to int) {
		if from < 0 || from == to {
			return
		}
		for _, s := range succ[from] {
			if s == to {
				return
			}
		}
		succ[from] = append(succ[from], to)
		npred[to]++
	}
	for i := 0; i < n; i++ {
		pc := b + i
		info, in := &f.Info[pc], &f.Code[pc]
		var rs, ws []loc
		for _, r := range info.Reads.Regs {
			rs = append(rs, loc{0, r})
		}
		for _, p := range info.Reads.Preds {
			rs = append(rs, loc{1, p})
		}
		if info.Reads.Carry {
			rs = append(rs, loc{2, 0})
		}
		for _, r := range info.Writes.Regs {
			ws = append(ws, loc{0, r})
		}
		for _, p := range info.Writes.Preds {
			ws = append(ws, loc{1, p})
		}
		if info.Writes.Carry {
			ws = append(ws, loc{2, 0})
		}
		for _, x := range rs {
			if w, ok := lastW[x]; ok {
				edge(w, i) // read after write
			}
		}
		for _, x := range ws {
			if w, ok := lastW[x]; ok {
				edge(w, i) // write after write
			}
			for _, r := range reads[x] {
				edge(r, i) // write after read
			}
		}
		for _, x := range rs {
			reads[x] = append(reads[x], i)
		}
		for _, x := range ws {
			lastW[x] = i
			reads[x] = reads[x][:0]
		}
		fence := in.Op == vm.OpBar || in.Op == vm.OpCpAsyncCommit || in.Op == vm.OpCpAsyncWait
		if rd, wr := memOrder(in); rd|wr != 0 || fence {
			// A barrier orders memory (every domain) as a store does;
			// what only computes in registers moves across it. So do
			// cp.async's commit and wait (LDGDEPBAR, DEPBAR: ptxas keeps
			// the copies of one group between them).
			if fence {
				wr = 1<<numDomains - 1
			}
			for d := 0; d < numDomains; d++ {
				if (rd|wr)&(1<<d) == 0 {
					continue
				}
				edge(lastStore[d], i)
				if wr&(1<<d) == 0 {
					lastMem[d] = append(lastMem[d], i)
					continue
				}
				for _, m := range lastMem[d] {
					edge(m, i)
				}
				lastStore[d] = i
				lastMem[d] = lastMem[d][:0]
			}
		}
	}
	// Heights: latency to the block's end along dependencies.
	// A predicate that guards a successor is needed guard_cycles sooner.
	// The branch that ends the block (outside it) needs its guard at the
	// block's end: the last instruction that writes it goes first, as soon
	// as its operands allow (ptxas computes a loop's exit test early), a
	// path longer than any other in the block.
	term := vm.NoReg
	if e < len(f.Code) && f.Code[e].Op == vm.OpBra {
		term = f.Code[e].Guard
	}
	last := -1
	for i := n - 1; i >= 0 && term != vm.NoReg && last < 0; i-- {
		if slices.Contains(f.Info[b+i].Writes.Preds, term) {
			last = i
		}
	}
	height := make([]uint32, n)
	heights := func(extra uint32) uint32 {
		var top uint32
		for i := n - 1; i >= 0; i-- {
			var h uint32
			for _, s := range succ[i] {
				hs := height[s]
				if g := f.Code[b+s].Guard; g != vm.NoReg && slices.Contains(f.Info[b+i].Writes.Preds, g) {
					hs += prog.guardCycles
				}
				h = max(h, hs)
			}
			if i == last {
				h = max(h, extra)
			}
			height[i] = h + schedLatency(&prog.insts[f.Info[b+i].ID])
			top = max(top, height[i])
		}
		return top
	}
	if top := heights(0); last >= 0 {
		heights(top + prog.guardCycles)
	}
	ready := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if npred[i] == 0 {
			ready = append(ready, i)
		}
	}
	// A barrier goes after every instruction that is ready before it: its
	// warps wait there, and ptxas issues the work that does not depend on
	// it first (address arithmetic, the loop's test).
	bar := func(i int) bool { return f.Code[b+i].Op == vm.OpBar }
	before := func(x, y int) bool {
		if bar(x) != bar(y) {
			return bar(y)
		}
		return height[x] > height[y] || height[x] == height[y] && x < y
	}
	var ps *pressure
	if lv != nil {
		ps = newPressure(f, lv, b, e)
	}
	for k := 0; k < n; k++ {
		tight := ps != nil && ps.live >= budget
		best, bestD := 0, 0
		if tight {
			bestD = ps.delta(b + ready[0])
		}
		for j := 1; j < len(ready); j++ {
			x, y := ready[j], ready[best]
			if tight {
				d := ps.delta(b + x)
				if d < bestD || d == bestD && before(x, y) {
					best, bestD = j, d
				}
				continue
			}
			if before(x, y) {
				best = j
			}
		}
		i := ready[best]
		if ps != nil {
			ps.place(b + i)
		}
		ready = append(ready[:best], ready[best+1:]...)
		out[k] = b + i
		for _, s := range succ[i] {
			npred[s]--
			if npred[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
}

// schedLatency is the latency the list scheduler assumes for an
// instruction: its pipe's, and for memory what ptxas plans for (an L1 hit
// for global and local loads, shared memory's).
func schedLatency(in *inst) uint32 {
	switch in.queue {
	case qLSU, qTex:
		if memKind(in.info.Inst()) == 1 {
			return 32
		}
		return 1
	case qMIO:
		if in.kind == kindMem && memKind(in.info.Inst()) != 1 {
			return 1
		}
		return max(in.lat, 20)
	}
	if in.slots == 0 {
		return 0
	}
	return max(in.lat, 1)
}
