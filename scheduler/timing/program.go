package timing

import (
	"math"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
	"github.com/ptxvm/ptxvm/vm"
)

// What an instruction is, for the cycle loop.
const (
	kindPlain   uint8 = iota
	kindMem           // accesses memory: queue, data path, latency from the hierarchy
	kindBranch        // bra, brx, call, ret: branch_resolving after it
	kindBarrier       // bar.sync/red/arrive
	kindMembar        // membar/fence
	kindExit
)

// Queues an instruction enters.
const (
	qNone uint8 = iota
	qMIO
	qLSU
	qTex
)

// inst is one kernel instruction as the cycle loop costs it, computed once
// per launch.
type inst struct {
	info  *vm.InstInfo
	id    int32  // info.ID
	slots uint32 // machine instructions per execution, in 1/256
	round uint32 // machine instructions per further round of an atomic's lanes on one address, in 1/256
	pipe  sasscost.Pipe
	sb    Stall  // what waiting for its results is (Wait, ShortScoreboard, LongScoreboard)
	lat   uint32 // cycles from its (first) issue to its results
	gap   uint32 // cycles between its machine instructions when it has several
	kind  uint8
	queue uint8
	// mixed: only its first machine instruction issues to pipe; the others
	// go to other units (a call's return-address moves and frame stores, a
	// return's frame loads), so they do not hold pipe.
	mixed bool
	// lastAt, if not 0, is the cycles from its first machine instruction
	// until its last may issue: a return (RET) waits for the load of the
	// return address from its frame, the first of its frame loads.
	lastAt uint32
	data   bool // occupies the SM's L1/shared data path (per wavefront)
	// simple: a plain instruction on a pipe without a queue, which none of
	// issueFirst's other cases touch (finish): issuePlain issues it.
	simple bool
	// sharedOp: a pooled shared-memory load or store with none of
	// issueFirst's other cases (finish): issuePooled issues it.
	sharedOp bool
	// stepRare: what step must look at after the VM's step (a barrier
	// crossing, an if-converted instruction, a control instruction).
	stepRare bool
	// rw, when not negative, is the word of a warp's sbMask that every
	// register of regs falls in (all below sbRegs), and rm their bits in
	// it: look tests the scoreboard through them (finish). pm has the
	// bits of preds when pok (every one below 64: a warp's predMask).
	rw     int8
	pok    bool
	rm     uint64
	pm     uint64
	regs   []int32
	nread  int32 // regs[:nread] are read, regs[nread:] written (WAW hazards wait too)
	npread int32
	preds  []int32
	// wregs and wpreds are regs[nread:] and preds[npread:], what it writes
	// (writeback's loops, without slicing at each).
	wregs, wpreds []int32
	// guard is the predicate that guards it (its own @p, or the branch
	// ptxas if-converted into it), -1 if none: a guard is read at issue,
	// timing.guard_cycles after the predicate is ready as an operand.
	guard  int32
	carryR bool
	carryW bool
	folded bool // dropped by ptxas (an if-converted branch): issues nothing
	// ifConv: predicated in place of the branch over it (ifConvert); a
	// lane whose guard is false did not execute it in the PTX.
	ifConv bool
	form   string
	// cross: for a barrier that holds its lanes, the instructions the
	// list scheduler moved across it (barrierCrossings).
	cross []crossing
	// vecReg is, for a load ptxas merged into a vector load issued before
	// it (four ld.shared.b32 at offsets 0, 4, 8, 12 become one LDS.128),
	// the register the vector load writes first: this one issues nothing
	// and its value is ready with that register's. -1 otherwise.
	vecReg int32
	// paramReg: for a parameter load, the register it writes (a miss in
	// the SM's constant cache holds the warp until it is ready: ImcMiss);
	// -1 otherwise.
	paramReg int32
	// line and lineEnd are the instruction-cache lines its machine code
	// spans (layOut).
	line, lineEnd uint32
	vecN          uint8 // for the first load of such a vector load: its 32-bit words
	// pooled: a shared-memory load or store that waits for the data path
	// in the SM's pool, served in round robin over warps
	// (gpu.Timing.SharedOrder; poolShared, datapath.go).
	pooled bool
	// agg: an atomic ptxas warp-aggregates (sasscost.Aggregates): the
	// memory system sees only its lowest executing lane.
	agg bool
	// cas: a shared atomic ptxas makes a compare-and-store loop on words
	// of this many bits (sasscost.CASLoop; casloop.go); 0 otherwise.
	cas uint8
	// nativeCAS: atom.shared.cas (ATOMS.CAS; gpu.SharedCAS.CASCycles).
	nativeCAS bool
	// popc: a shared add of 1 ptxas makes ATOMS.POPC.INC
	// (sasscost.PopcInc): lanes on one word are one update.
	popc bool
	// cpAsync: a cp.async (LDGSTS), whose landing the warp's
	// cp.async.wait_group (asyncWait: DEPBAR) waits for.
	cpAsync, asyncWait bool
	// asyncCommit: cp.async.commit_group (LDGDEPBAR) closes the warp's
	// open group of copies; asyncKeep: the groups a wait_group lets stay
	// in flight (its N; -1: wait_all, every copy).
	asyncCommit bool
	// rare: asyncWait, carryR or carryW (finish), which look tests
	// together.
	rare bool
	// rounds: an atomic, whose lanes on one address take rounds, or a
	// compare-and-store loop (finish; issue's rounds).
	rounds bool
	// cluster: barrier.cluster.arrive or .wait (its phase is the
	// cluster's, its release reaches the warps of every block).
	cluster   bool
	asyncKeep int32
	// 256 bytes: s.insts is indexed by a shift, not a multiply.
	_ [8]byte
}

// program is a kernel's instructions by kernel-wide id.
type program struct {
	insts []inst
	// guardCycles is timing.guard_cycles: how much later a guard may be
	// read than an operand (the cycle loop and the list scheduler).
	guardCycles uint32
	maxRegs     int
	maxPreds    int
	// agg says, by kernel-wide id, which instructions are warp-aggregated
	// atomics (nil if none).
	agg []bool
	// lines is how many instruction-cache lines the kernel's code spans,
	// entryLine the line of its first instruction (0 lines: no fetch
	// model). lastLine[l] says whether line l is the last of a function.
	lines     int
	entryLine uint32
	lastLine  []bool
}

// A call or return of a function with a stack frame (sasscost.FrameSaves)
// issues the frame's machine instructions too: the callee's prologue
// stores at the call, its epilogue loads at the return, whose RET waits
// frameLoad cycles for the return address (local loads of a frame hit L1:
// Nsight Compute's L1 sector hit rate is 99% for the corpus's recursion).
func newProgram(k *vm.Kernel, cfg *gpu.Timing, tab *sasscost.Table, frameLoad uint32) *program {
	// Debug code waits after every machine instruction, the expansions'
	// too.
	minGap := uint32(1)
	if sasscost.Debug(k) {
		minGap = uint32(cfg.DebugIssueCycles + 0.5)
	}
	p := &program{insts: make([]inst, len(k.Insts)), guardCycles: uint32(cfg.GuardCycles)}
	ro := map[*vm.Func]*sasscost.Facts{}
	type uniformity struct {
		v    vm.Varying
		read []bool
	}
	uni := map[*vm.Func]*uniformity{}
	for _, f := range k.Funcs {
		ro[f] = sasscost.NewFacts(f)
		p.maxRegs = max(p.maxRegs, sbSize(f))
		p.maxPreds = max(p.maxPreds, int(f.NumPred))
	}
	debug := sasscost.Debug(k)
	save := tab.Frame(debug)
	frames := map[*vm.Func]int{}
	frame := func(f *vm.Func) int {
		n, ok := frames[f]
		if !ok {
			n = sasscost.FrameSaves(f, debug)
			frames[f] = n
		}
		return n
	}
	for id, info := range k.Insts {
		c, form := tab.Lookup(info, ro[info.Func], debug)
		// The frame's stores issue at the call, its loads at the return.
		saves := 0
		switch info.Inst().Op {
		case vm.OpCall:
			if cs := info.Inst().CallSite(info.Func); cs != nil && cs.Callee != nil {
				saves = frame(cs.Callee)
			}
		case vm.OpRet:
			saves = frame(info.Func)
		}
		if saves > 0 {
			c.Slots += float64(saves) * save.Slots / 2
		}
		in := &p.insts[id]
		in.info, in.id, in.form, in.vecReg, in.guard = info, int32(id), form, -1, -1
		in.slots = uint32(c.Slots*256 + 0.5)
		if info.Class == vm.ClassAtomic {
			in.round = uint32(c.PerRound*256 + 0.5)
			if cfg.SharedCAS.RoundCycles32 > 0 {
				in.cas = uint8(sasscost.CASLoop(info))
			}
			x := info.Inst()
			in.nativeCAS = x.Op == vm.OpAtom && x.AtomOp() == vm.AtomCas && info.Space == memspace.Shared
		}
		in.pipe = c.Pipe
		pc := cfg.Pipes[c.Pipe.String()]
		in.lat = uint32(pc.Latency)
		if c.Latency > 0 {
			in.lat = uint32(c.Latency)
		}
		n := max(1, in.slots>>8)
		in.gap = max(minGap, in.lat/(n+1))
		if n == 1 {
			in.gap = minGap
		}
		switch c.Pipe.Scoreboard() {
		case sasscost.Short:
			in.sb = ShortScoreboard
		case sasscost.Long:
			in.sb = LongScoreboard
		default:
			in.sb = Wait
		}
		switch c.Pipe {
		case sasscost.PipeSFU, sasscost.PipeConv, sasscost.PipeMIO:
			in.queue = qMIO
		}
		cl := info.Class
		switch {
		case cl.Memory():
			in.kind = kindMem
			switch {
			case cl == vm.ClassTexture:
				in.queue, in.sb = qTex, LongScoreboard
			case cl == vm.ClassLSUShared || cl == vm.ClassAtomic && info.Space == memspace.Shared:
				in.queue, in.sb, in.data = qMIO, ShortScoreboard, true
			case cl == vm.ClassLSUConst || cl == vm.ClassLSUParam:
				in.queue, in.sb = qMIO, ShortScoreboard
			default: // global, local, generic, global atomics
				in.queue, in.sb, in.data = qLSU, LongScoreboard, true
			}
		case cl == vm.ClassBranch || cl == vm.ClassCall:
			in.kind = kindBranch
			if op := info.Inst().Op; op == vm.OpCall || op == vm.OpRet {
				in.mixed = true
				if op == vm.OpRet && saves > 0 && in.slots >= 2*256 {
					in.lastAt = frameLoad
				}
			}
		case cl == vm.ClassBarrier:
			in.kind = kindBarrier
			in.cluster = info.Inst().Op == vm.OpBarCluster
		case cl == vm.ClassExit:
			in.kind = kindExit
		case cl == vm.ClassNop && in.slots > 0:
			switch info.Inst().Op {
			case vm.OpCpAsyncWait:
				// DEPBAR: waits for the warp's copies to land
				// (timing.async_copy_cycles after their loads), and
				// holds it no longer (the tensor probe: a 16-byte
				// cp.async.ca and its wait, 112 cycles on the GPU; as a
				// memory barrier, 440 in the model before). It waits
				// for every copy, where wait_group N lets N groups go on.
				in.asyncWait = true
				in.asyncKeep = int32(min(info.Inst().Imm, 1<<20))
				if info.Inst().Imm == vm.CpWaitAll {
					in.asyncKeep = -1
				}
			case vm.OpCpAsyncCommit:
			default:
				if info.Inst().Imm != vm.NopAsyncGroup { // (wgmma and bulk-copy groups: no barrier)
					in.kind = kindMembar
				}
			}
		}
		in.cpAsync = info.Inst().Op == vm.OpCpAsync
		in.asyncCommit = info.Inst().Op == vm.OpCpAsyncCommit
		// The scoreboard is kept by the frame slot a register is stored
		// in (vm's layout: registers that share one are never live at
		// once), so that a warp's is as small as its frame.
		in.regs = make([]int32, 0, len(info.Reads.Regs)+len(info.Writes.Regs))
		for _, r := range append(info.Reads.Regs[:len(info.Reads.Regs):len(info.Reads.Regs)], info.Writes.Regs...) {
			in.regs = append(in.regs, sbIndex(info.Func, r))
		}
		in.nread = int32(len(info.Reads.Regs))
		in.preds = append(append([]int32(nil), info.Reads.Preds...), info.Writes.Preds...)
		in.npread = int32(len(info.Reads.Preds))
		in.wregs, in.wpreds = in.regs[in.nread:], in.preds[in.npread:]
		if g := info.Inst().Guard; g != vm.NoReg {
			in.guard = g
		}
		in.carryR, in.carryW = info.Reads.Carry, info.Writes.Carry
		if cl == vm.ClassAtomic {
			u := uni[info.Func]
			if u == nil {
				u = &uniformity{v: info.Func.Varying(), read: sasscost.ReadRegs(info.Func)}
				uni[info.Func] = u
			}
			in.popc = !debug && sasscost.PopcInc(info.Func, int(info.PC), u.read)
			if sasscost.Aggregates(info.Func, int(info.PC), &u.v, u.read, debug) {
				in.agg = true
				if p.agg == nil {
					p.agg = make([]bool, len(k.Insts))
				}
				p.agg[id] = true
			}
		}
		in.paramReg = -1
		if cl == vm.ClassLSUParam && len(in.regs) > int(in.nread) {
			in.paramReg = in.regs[in.nread]
		}
	}
	if cfg.Fetch.LineBytes > 0 {
		p.layOut(k, cfg.Fetch.LineBytes)
	}
	p.finish()
	return p
}

// layOut places the kernel's machine code as ptxas does: the entry, then
// the functions it calls, each starting on a line; each PTX instruction
// takes 16 bytes per machine instruction the SASS table gives it, in PTX
// order.
func (p *program) layOut(k *vm.Kernel, lineBytes int) {
	const instBytes = 16
	bytes := func(in *inst) float64 { return float64(in.slots) * instBytes / 256 }
	size := map[*vm.Func]float64{}
	for id, info := range k.Insts {
		size[info.Func] += bytes(&p.insts[id])
	}
	// Each function starts on a line: its first line, and how many.
	first, nlines := map[*vm.Func]int{}, 0
	place := func(f *vm.Func) {
		if _, ok := first[f]; ok || f == nil {
			return
		}
		first[f] = nlines
		nlines += int(math.Ceil(max(size[f], instBytes) / float64(lineBytes)))
		p.lastLine = append(p.lastLine, make([]bool, nlines-len(p.lastLine))...)
		p.lastLine[nlines-1] = true
	}
	place(k.Entry)
	for _, info := range k.Insts {
		place(info.Func)
	}
	at := map[*vm.Func]float64{} // bytes into each function
	for id, info := range k.Insts {
		in := &p.insts[id]
		a := float64(first[info.Func]*lineBytes) + at[info.Func]
		at[info.Func] += bytes(in)
		in.line = uint32(a / float64(lineBytes))
		in.lineEnd = uint32((a + max(bytes(in), 1) - 1) / float64(lineBytes))
		if info.Class == vm.ClassExit {
			// ptxas makes a branch to an exit a predicated EXIT where the
			// branch is (if (i >= n) return;): the warps that leave early
			// do not fetch the kernel's last line.
			in.line, in.lineEnd = atHand, atHand
		}
	}
	// One line more, never read: the next line of the last one.
	p.lastLine = append(p.lastLine, false)
	p.lines = len(p.lastLine)
	p.entryLine = uint32(first[k.Entry])
}

// atHand is the line of an instruction that needs no fetch.
const atHand = ^uint32(0) - 1

// fold makes instruction id one that issues nothing: a branch ptxas
// if-converted away (ifConvert).
func (p *program) fold(id int32) {
	in := &p.insts[id]
	*in = inst{info: in.info, id: in.id, form: in.form, folded: true, vecReg: -1, guard: -1, line: in.line, lineEnd: in.lineEnd}
}

// finish sets what the instructions' other fields imply, once they are
// final (after fold, merge and poolShared).
func (p *program) finish() {
	for i := range p.insts {
		in := &p.insts[i]
		in.rare = in.asyncWait || in.carryR || in.carryW
		in.rounds = in.cas != 0 || in.info != nil && in.info.Class == vm.ClassAtomic
		in.stepRare = in.cross != nil || in.ifConv || in.kind > kindMem
		in.sharedOp = in.pooled && in.kind == kindMem && in.queue == qMIO && in.data && in.vecN <= 1 && !in.rounds &&
			!in.cluster && !in.asyncCommit && !in.asyncWait && !in.cpAsync && in.cas == 0 && in.lastAt == 0 && in.paramReg < 0
		in.simple = in.kind == kindPlain && in.queue == qNone && !in.rounds && !in.cluster &&
			!in.asyncCommit && !in.asyncWait && in.cas == 0 && in.lastAt == 0
		in.rw, in.rm = -1, 0
		if len(in.regs) == 0 {
			in.rw = 0
		} else if r0 := in.regs[0]; r0 >= 0 && r0 < sbRegs {
			in.rw = int8(r0 >> 6)
			for _, r := range in.regs {
				if r < 0 || r >= sbRegs || r>>6 != r0>>6 {
					in.rw, in.rm = -1, 0
					break
				}
				in.rm |= 1 << (r & 63)
			}
		}
		in.pok, in.pm = true, 0
		for _, p := range in.preds {
			if p < 0 || p >= 64 {
				in.pok, in.pm = false, 0
				break
			}
			in.pm |= 1 << p
		}
	}
}

// poolShared marks the instructions that wait for the data path in the
// SM's pool when it serves shared memory in round robin: the shared-memory
// loads and stores, but not atomics nor the first of a vector load ptxas
// merged (its merged loads take their readiness from its register when
// they run, so it is served in arrival order). After merge.
func (p *program) poolShared() {
	for i := range p.insts {
		in := &p.insts[i]
		in.pooled = in.data && in.queue == qMIO && in.info.Class == vm.ClassLSUShared && in.vecN <= 1
	}
}

// scoreboardBySlot keeps a warp's scoreboard by the frame slot a register
// is stored in (vm.Func.Slot) rather than by virtual register: the same
// waits in a smaller table (TestScoreboardBySlot holds the two equal).
var scoreboardBySlot = true

// sbIndex is register r's entry in a warp's scoreboard.
func sbIndex(f *vm.Func, r int32) int32 {
	if scoreboardBySlot {
		return f.Slot(r)
	}
	return r
}

// sbSize is how many scoreboard entries a frame of f needs.
func sbSize(f *vm.Func) int {
	if scoreboardBySlot {
		return f.Slots()
	}
	return int(f.NumRegs)
}

// merge makes instruction id a load merged into the vector load that
// writes register reg (mergeLoads): it issues nothing, takes no queue or
// data-path slot, and its value is ready with reg's.
func (p *program) merge(id, lead, reg int32) {
	p.insts[lead].vecN = max(p.insts[lead].vecN, 1) + 1
	in := &p.insts[id]
	*in = inst{info: in.info, id: in.id, form: in.form, folded: true, vecReg: sbIndex(in.info.Func, reg), guard: -1, regs: in.regs, nread: in.nread, preds: in.preds, npread: in.npread,
		wregs: in.wregs, wpreds: in.wpreds, line: in.line, lineEnd: in.lineEnd}
}
