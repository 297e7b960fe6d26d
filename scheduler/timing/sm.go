package timing

import (
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
	"github.com/ptxvm/ptxvm/vm"
)

const never = math.MaxUint64

// ring is a FIFO queue in front of a unit: the cycles its last entries
// leave it (nondecreasing). An instruction may enter when fewer than depth
// entries are still in it.
type ring struct {
	t     [maxQueue]uint64
	head  int // next slot to write
	depth int
}

// room returns the cycle from which the queue has room (<= now: room now).
// (maxQueue is a power of two: the masks are the modulo.)
func (q *ring) room() uint64 { return q.t[uint(q.head-q.depth)%maxQueue] }

func (q *ring) push(leave uint64) {
	if p := q.t[uint(q.head-1)%maxQueue]; leave < p {
		leave = p // FIFO: no entry leaves before the one ahead of it
	}
	q.t[uint(q.head)%maxQueue] = leave
	q.head = int(uint(q.head+1) % maxQueue)
}

// hold keeps the last entry in the queue until leave at least.
func (q *ring) hold(leave uint64) {
	if i := uint(q.head-1) % maxQueue; q.t[i] < leave {
		q.t[i] = leave
	}
}

// maxQueue must be a power of two (ring's masks).
var _ [0]struct{} = [maxQueue & (maxQueue - 1)]struct{}{}

// part is one SM sub-partition: a warp scheduler, its pipes and queues.
type part struct {
	wake uint64 // nothing to do before this cycle (see cycle)
	// ws are the resident warps, oldest first, each with its key: a cycle
	// before which trying it can only report that it waits until then
	// (never: it has exited); blk[i] is ws[i]'s block and bend[i] whether
	// it is the last of its block's warps here (a block's warps are
	// together, in the order admit gave them): the scan reads keys and
	// bend instead of the warps (most tries find the warp waiting, and
	// each warp read missed the host's caches), and a key and its warp
	// share a cache line. A warp's key is set after each try and issue of
	// it (rekey); whatever else lets it go on earlier (a barrier's
	// release, a memory completion, the data path's service) sets it to 0
	// (unkey).
	ws       []wslot
	blk      []*cta
	bend     []bool
	dead     bool   // some warps of warps have exited
	last     *warp  // the warp that issued last
	lastIss  uint64 // its issued: 1 + the cycle it issued
	pipeFree [sasscost.NumPipes]float64
	// q are the queues in front of the units, by queue (qMIO, qLSU,
	// qTex; q[qNone] is not used).
	q [4]ring
}

// wslot is a resident warp of a sub-partition and its key (part.ws).
type wslot struct {
	key uint64
	w   *warp
}

// warp is the cycle loop's state of one warp slot. The fields the
// sub-partition's scan and try read come first, on one cache line (warps
// are allocated one by one, in a size class of whole lines), then those
// look reads.
type warp struct {
	next      *inst  // the instruction it would issue (nil: look again)
	eligAt    uint64 // when it can issue next (never: waits for an event)
	issued    uint64 // 1 + the cycle of its last issue (0: none yet)
	part      *part
	idx       int32  // its index in part.ws
	slotsLeft uint32 // machine instructions of the current PTX instruction still to issue
	frac      uint32 // fractional slots carried (1/256)
	live      bool
	why       Stall // why it waits until eligAt
	readyW    Stall
	tailWhy   Stall  // for this reason (a branch's target, a memory barrier)
	readyAt   uint64 // its own constraint: issue gap, branch, barrier release
	mark      uint64 // stall cycles are attributed up to here

	w *vm.Warp
	// sbMask has a bit for each register below sbRegs that may be ready
	// later than what look can ignore; a clear bit says its ready cycle is
	// at most a cycle look has already passed (its thr, which does not
	// decrease over the warp's life), which no look can tell from 0. look
	// reads reg only where the bit is set (or the register is beyond
	// sbRegs): most operands were written long ago, and reading their
	// ready cycles missed the host's caches (the state of 132 SMs streams
	// through them each window). A write sets the bit; look clears it when
	// it reads an operand ready by its thr.
	sbMask [sbRegs / 64]uint64
	// predMask is sbMask for the predicates below 64: a clear bit says
	// the predicate was ready by a thr look has passed, read as a guard
	// too.
	predMask uint64
	reg      []regReady // when each register's pending value is ready
	pred     []uint64
	predSB   []Stall
	cause    int32 // instruction whose result it waits for, or -1
	waitID   int32 // instruction the stall cycles are attributed to
	lanes    uint64
	// imc is the register a parameter load that missed the constant cache
	// writes, or -1: the warp issues nothing until it is ready (ImcMiss).
	imc int32
	// parked says that look last found the VM's warp with nothing to run
	// (its lanes held at a barrier or a warp-synchronous instruction):
	// until a barrier of its block or cluster completes, looking again
	// finds the same (see rekey and unpark).
	parked bool
	// fline is the last instruction-cache line the warp read, fready when
	// it arrived (fetched).
	fline   uint32
	fready  uint64
	gap     uint32
	gapFrac uint32 // fractional issue gap carried (1/256)
	tail    uint64 // after its last machine instruction, the warp waits this long
	carry   uint64

	cta   *cta
	age   uint64
	start uint64 // cycle its block started
	first uint64 // cycle the current PTX instruction's first machine instruction issued
	// async is when the copies of the warp's open cp.async group have
	// landed (never: a load is still in flight); asyncGrp when each
	// committed group's have, by sequence number modulo its size;
	// asyncSeq the groups committed, asyncDone those a wait_group has
	// waited for. cp.async.wait_group N waits for the groups before the
	// N most recent.
	async               uint64
	asyncGrp            [asyncRing]uint64
	asyncSeq, asyncDone uint32
	// A size of whole cache lines (448 bytes, a size class of Go's
	// allocator) keeps every warp's first line the one its scan reads.
	_ [20]byte
}

// regReady is when a register's pending value is ready, what kind of wait
// that is, and which instruction produces it: one entry, so that an
// instruction's write touches one cache line per register, not three.
type regReady struct {
	at  uint64
	src int32
	sb  Stall
}

// sbRegs is how many registers a warp's sbMask covers.
const sbRegs = 256

// asyncRing is how many committed cp.async groups a warp's timing keeps
// apart; older ones count as landed.
const asyncRing = 16

// asyncCommit closes w's open cp.async group.
func (w *warp) asyncCommit() {
	if w.asyncSeq-w.asyncDone == asyncRing {
		w.asyncDone++
	}
	w.asyncGrp[w.asyncSeq%asyncRing] = w.async
	w.asyncSeq++
	w.async = 0
}

// asyncUntil returns the cp.async groups a wait_group letting keep groups
// stay in flight waits for: [asyncDone, end).
func (w *warp) asyncUntil(keep int32) uint32 {
	if keep < 0 {
		return w.asyncSeq
	}
	if uint32(keep) >= w.asyncSeq-w.asyncDone {
		return w.asyncDone
	}
	return w.asyncSeq - uint32(keep)
}

// asyncDue is when the copies a wait_group (keep as asyncUntil) waits for
// have landed.
func (w *warp) asyncDue(keep int32) uint64 {
	var due uint64
	for g := w.asyncDone; g != w.asyncUntil(keep); g++ {
		due = max(due, w.asyncGrp[g%asyncRing])
	}
	if keep < 0 {
		due = max(due, w.async)
	}
	return due
}

// asyncBook does the bookkeeping of a cp.async commit or wait as it issues.
func (w *warp) asyncBook(in *inst) {
	switch {
	case in.asyncCommit:
		w.asyncCommit()
	case in.asyncWait:
		w.asyncDone = w.asyncUntil(in.asyncKeep)
		if in.asyncKeep < 0 {
			w.async = 0
		}
	}
}

// asyncLanded records that a cp.async of group g (a sequence number: the
// open group's is asyncSeq) whose load was in flight landed at at.
func (w *warp) asyncLanded(g uint32, at uint64) {
	switch {
	case g == w.asyncSeq:
		if w.async == never {
			w.async = at
		}
	case w.asyncSeq-g <= asyncRing && w.asyncGrp[g%asyncRing] == never:
		w.asyncGrp[g%asyncRing] = at
	}
}

// cta is a block resident on an SM.
type cta struct {
	c     *vm.CTA
	warps []*warp
	left  int // warps that have not exited
	start uint64
	bars  uint64 // c.BarriersCompleted() when last looked at
	// seen and clSeen are the block's and its cluster's completed
	// barriers when its parked warps were last let go (step).
	seen, clSeen uint64
}

// pending is an instruction whose results wait for L2 (windowed mode).
type pending struct {
	group uint64
	w     *warp
	in    *inst
	async uint32 // a cp.async's group (warp.asyncSeq when it issued)
}

// sm is one SM of the cycle loop. It belongs to one goroutine at a time.
type sm struct {
	id    int
	r     *run
	vm    *vm.SM
	hs    *hier.SM
	parts []*part
	slots []*warp // by warp slot
	ctas  []*cta
	// queued are the blocks Run has given the SM that it admits at the
	// start of its next advance (queue).
	queued []queued
	next   uint64 // earliest cycle something can happen (after a window)
	clock  uint64 // what %clock reads: the cycle of the instruction executing

	dataFree float64 // L1/shared data path busy until
	// storeFree: the SM's port from the L1 to the crossbar, which global
	// stores' lines leave by, busy until (gpu.Timing.StoreCyclesPerLine).
	storeFree float64
	// dataEst is when the data path would be free if the pooled
	// operations had taken it in arrival order: when a queue entry is
	// taken to leave (round robin).
	dataEst  float64
	dpool    []dataOp // shared-memory operations waiting for the data path (round robin)
	dbase    []dataOp // dpool's array from its start (datapath.go)
	poolAt   uint64   // poolNext, kept as dpool and dataFree change
	rr       int      // the warp slot the data path serves next, or after
	barFree  float64  // barrier unit busy until
	texFree  float64
	lastSet  uint64 // last cycle given to the hierarchy
	pend     []pending
	pendHead int
	freed    []uint64 // cycles at which blocks retired in this window
	age      uint64
	// rot is the sub-partition the next block's first warp goes to
	// (smspOf).
	rot int
	// code is, per instruction-cache line of the kernel, 1 + the cycle it
	// is (or will be) in the SM's instruction cache; 0: not asked for. Nil
	// without a fetch model.
	code []uint64
	// resident lists the lines in the instruction cache in the order they
	// came (a ring: nextOut is its oldest once it holds capLines), when the
	// cache is smaller than the kernel's code.
	resident []int32
	nextOut  int
	capLines int
	// settled is, per line, code[l] if it and the line after it (unless
	// it is its function's last) are in the cache or asked for, else 0
	// (settle): a fetch of an instruction on such lines asks for nothing.
	settled []uint64
	st      vm.Step
	err     error
	// insts, lastLine and perInst are r.prog.insts, r.prog.lastLine and
	// acc.perInst, read at every look and issue.
	insts       []inst
	lastLine    []bool
	perInst     []instTally
	guardCycles uint32 // r.prog.guardCycles
	// casWords are the shared-memory words compare-and-store loops hold
	// or will hold (casloop.go).
	casWords  []casWord
	casIndex  map[casKey]int32 // casWords by block and address
	casPruned float64          // casPrune's next cycle
	casWf     int              // the wavefronts of the loop casLoop ran last

	// occupancy
	warpCycles uint64      // sum over warps of the cycles they were resident
	spans      [][2]uint64 // each block's [start, end)
	first, end uint64      // first block start, last block end
	wake       uint64      // earliest cycle a barrier release lets a warp go on

	// acc is the tally of the worker advancing the SM (Run sets it before
	// each advance: a window's groups go to whichever worker is free).
	acc *tally
	tr  *smTrace
}

// tally is what SMs count, per worker (sums do not depend on the order,
// nor on which worker advanced which SM).
type tally struct {
	// stalls are the cycles of waits attributed to no instruction: Run
	// adds perInst's stalls (and counts the machine instructions issued
	// from perInst's issued), so that accounting and issue write one
	// count, not two.
	stalls    Stalls
	threadIss uint64
	perInst   []instTally
	// The workers' tallies are allocated one after another and written at
	// every issue: without this, one worker's threadIss and perInst shared
	// a cache line with the next worker's stalls[Selected].
	_ [64]byte
}

// instTally is one instruction's counts.
type instTally struct {
	execs, threads uint64 // warp and thread executions (InstStats.Execs)
	// skipped and skippedThreads are the warp and thread executions the
	// PTX does not make: of an if-converted instruction, the warp
	// executions with no lane enabled and the lanes whose guard is false
	// (in the PTX they branched past it); of one moved up across a
	// barrier, an execution per group of a warp's lanes that arrived at
	// the barrier after the first (in the PTX they run it together).
	// missed is the warp executions the PTX makes that the timed program
	// does not: of one moved down across a barrier, one per such group.
	skipped, skippedThreads, missed uint64
	rounds                          uint64 // further rounds of atomics' lanes on shared addresses
	issued                          uint64 // machine instructions issued
	stalls                          Stalls // cycles warps waited to issue it (and issued it)
	caused                          Stalls // cycles warps waited for its results
}

// smspOf is the sub-partition of a block's warp i when the SM's rotation
// stands at rot: the H100 gives a block's warps to its sub-partitions in
// turn, starting where the rotation stands (testdata/perf/micro/sched:
// %warpid % 4 is the sub-partition, two SFU-bound warps with equal
// %warpid % 4 take twice as long, and warp i of a block has %warpid % 4 =
// (rot + i) % 4 on every SM and for every block shape recorded).
func smspOf(rot, i, parts int) int { return (rot + i) % parts }

// nextRot is the rotation after a block of n warps: it moves on by n, and
// by one more when n is a multiple of the sub-partitions, so that blocks of
// 4, 8 or 32 warps do not all start on the same one (blocks of 1, 2, 3 and
// 5 warps move it by 1, 2, 3 and 1; blocks of 8 and 32 by 1).
func nextRot(rot, n, parts int) int {
	rot += n
	if n%parts == 0 {
		rot++
	}
	return rot % parts
}

// queued is a block given to an SM, to be made resident from cycle start.
type queued struct {
	index int
	start uint64
}

// queue gives block index to the SM from cycle start: the SM admits it at
// the start of its next advance, on its worker's goroutine (admitting a
// block sets up its warps' state in the VM, most of the time Run spent
// alone dispatching the first wave). The SM's next cycle counts it now.
func (s *sm) queue(index int, start uint64) {
	s.queued = append(s.queued, queued{index, start})
	s.next = min(s.next, start)
}

// admitQueued admits the queued blocks in the order they were given.
func (s *sm) admitQueued() {
	for _, q := range s.queued {
		if err := s.admit(q.index, q.start); err != nil {
			s.err = err
			break
		}
	}
	s.queued = s.queued[:0]
}

// admit makes block index resident from cycle start.
func (s *sm) admit(index int, start uint64) error {
	c, err := s.vm.Admit(index)
	if err != nil {
		return err
	}
	b := &cta{c: c, start: start, seen: c.BarriersCompleted()}
	if cl := c.Cluster(); cl != nil {
		b.clSeen = cl.BarriersCompleted()
	}
	ws := c.Warps()
	for i, vw := range ws {
		slot := vw.Slot()
		for len(s.slots) <= slot {
			s.slots = append(s.slots, &warp{})
		}
		w := s.slots[slot]
		p := s.parts[smspOf(s.rot, i, len(s.parts))]
		pr := s.r.prog
		*w = warp{w: vw, cta: b, part: p, age: s.age, live: true, reg: w.reg, pred: w.pred, predSB: w.predSB,
			fline: noLine}
		s.age++
		w.reg = resizeR(w.reg, pr.maxRegs)
		w.pred = resize(w.pred, pr.maxPreds)
		w.predSB = resizeS(w.predSB, pr.maxPreds)
		w.readyAt, w.readyW = start, NoInstruction
		w.mark, w.eligAt, w.why = start, start, NoInstruction
		w.cause, w.waitID, w.imc = -1, -1, -1
		w.start = start
		b.warps = append(b.warps, w)
		w.idx = int32(len(p.ws))
		p.ws = append(p.ws, wslot{0, w})
		if n := len(p.blk); n > 0 && p.blk[n-1] == b {
			p.bend[n-1] = false
		}
		p.blk = append(p.blk, b)
		p.bend = append(p.bend, true)
		p.wake = min(p.wake, start)
		b.left++
	}
	s.rot = nextRot(s.rot, len(ws), len(s.parts))
	s.ctas = append(s.ctas, b)
	if s.tr != nil {
		s.tr.ctaStart(b, start)
	}
	s.first = min(s.first, start)
	s.next = min(s.next, start)
	return nil
}

func resize(a []uint64, n int) []uint64 {
	if cap(a) < n {
		return make([]uint64, n)
	}
	a = a[:n]
	clear(a)
	return a
}

func resizeS(a []Stall, n int) []Stall {
	if cap(a) < n {
		return make([]Stall, n)
	}
	return a[:n]
}

func resizeR(a []regReady, n int) []regReady {
	if cap(a) < n {
		return make([]regReady, n)
	}
	a = a[:n]
	clear(a)
	return a
}

// account attributes the warp's cycles [mark, t) to its wait reason (until
// eligAt) and to not_selected (after), to the instruction it waits to issue.
func (s *sm) account(w *warp, t uint64) {
	if t > w.mark {
		s.accountSpan(w, t)
	}
}

// accountSpan is account for t past w.mark.
func (s *sm) accountSpan(w *warp, t uint64) {
	e := min(max(w.eligAt, w.mark), t)
	var it *instTally
	if w.waitID >= 0 {
		it = &s.perInst[w.waitID]
	}
	if d := e - w.mark; d > 0 {
		if it != nil {
			it.stalls[w.why] += d
		} else {
			s.acc.stalls[w.why] += d
		}
		if w.cause >= 0 {
			s.perInst[w.cause].caused[w.why] += d
		}
		if s.tr != nil {
			s.tr.stall(w, w.why, w.mark, e)
		}
	}
	if d := t - e; d > 0 {
		if it != nil {
			it.stalls[NotSelected] += d
		} else {
			s.acc.stalls[NotSelected] += d
		}
	}
	w.mark = t
}

// look finds the warp's next instruction at cycle t and when it can issue
// it. Instructions ptxas folds away (no slot) execute here at once when
// their operands are ready.
func (s *sm) look(w *warp, t uint64) {
	for range 64 {
		info, lanes := w.w.Next()
		if info == nil {
			switch w.w.State() {
			case vm.WarpExited:
				s.exit(w, t)
			case vm.WarpAtBarrier:
				w.eligAt, w.why, w.cause = never, Barrier, -1
				w.parked = true
			default: // lanes wait at a warp-synchronous instruction
				w.eligAt, w.why, w.cause = never, Wait, -1
				w.parked = true
			}
			return
		}
		w.parked = false
		in := &s.insts[info.ID]
		w.next, w.waitID = in, info.ID
		w.lanes = uint64(bits.OnesCount32(lanes))
		// A register ready by thr changes nothing here: when the latest
		// of the operands is ready by then, the warp's wait ends by the
		// cycle its stall cycles are counted to (mark) and by t, whatever
		// its reason, so it can be taken as 0 (its bit cleared in sbMask,
		// for this look and every later one: thr does not decrease). Only
		// the operands' bits are looked at; a whole-mask pass over the
		// pending registers at each look (settle, until 2026-11-29) made
		// the same decisions with more work.
		thr := min(w.mark, t)
		dep, why, cause := uint64(0), Wait, int32(-1)
		if in.rw >= 0 {
			// Every operand in one word of sbMask: only its set bits
			// are looked at, lowest first. The operand with the latest
			// ready cycle is the same in any order, but of two ready
			// the same cycle the loop below takes the first in regs:
			// where they differ in kind or source, it decides.
			m := &w.sbMask[in.rw&3]
			tie := false
			for pend := *m & in.rm; pend != 0; pend &= pend - 1 {
				b := bits.TrailingZeros64(pend)
				e := &w.reg[int(in.rw)<<6|b]
				if e.at <= thr {
					*m &^= 1 << b
					continue
				}
				if e.at > dep {
					dep, why, cause = e.at, e.sb, e.src
				} else if e.at == dep && (e.sb != why || e.src != cause) {
					tie = true
				}
			}
			if tie {
				dep, why, cause = s.regsDep(w, in, thr)
			}
		} else {
			dep, why, cause = s.regsDep(w, in, thr)
		}
		if in.pm&w.predMask != 0 || !in.pok {
			// A predicate whose bit is clear was ready by a thr passed
			// already, as a guard too (writeback sets the bit).
			for i, p := range in.preds {
				v := w.pred[p]
				if p < 64 && v != never && v+uint64(s.guardCycles) <= thr {
					w.predMask &^= 1 << p
					continue
				}
				if p == in.guard && int32(i) < in.npread && v != never {
					v += uint64(s.guardCycles)
				}
				if v > dep {
					dep, why, cause = v, w.predSB[p], -1
				}
			}
		}
		if in.rare {
			if in.asyncWait {
				if a := w.asyncDue(in.asyncKeep); a > dep {
					dep, why, cause = a, LongScoreboard, -1
				}
			}
			if (in.carryR || in.carryW) && w.carry > dep {
				dep, why, cause = w.carry, Wait, -1
			}
		}
		if w.imc >= 0 {
			v := w.reg[w.imc].at
			if v > dep {
				dep, why, cause = v, ImcMiss, -1
			}
			if v <= t {
				w.imc = -1
			}
		}
		if dep > w.readyAt {
			w.eligAt, w.why, w.cause = dep, why, cause
		} else {
			w.eligAt, w.why, w.cause = w.readyAt, w.readyW, -1
		}
		if s.code != nil {
			// fetched's first test here: on the line the warp read last.
			f := w.fready
			if l := in.line; l != w.fline || in.lineEnd != l {
				// fetched's next test here too: one line, settled.
				if st := s.settled; l == in.lineEnd && l < uint32(len(st)) && st[l] != 0 {
					f = st[l] - 1
					w.fline, w.fready = l, f
				} else {
					f = s.fetched(w, in, t)
				}
			}
			if f > w.eligAt {
				w.eligAt, w.why, w.cause = f, NoInstruction, -1
			}
		}
		if in.slots+w.frac >= 256 || w.eligAt > t || in.kind != kindPlain {
			return
		}
		// Folded: no issue slot, results ready when its operands are.
		s.account(w, t)
		w.frac += in.slots
		w.asyncBook(in)
		if err := s.step(w, t); err != nil {
			return
		}
		if in.vecReg >= 0 {
			// A load ptxas merged into the vector load before it: its
			// value comes with that load's.
			e := w.reg[in.vecReg]
			s.writeback(w, in, max(t, e.at), e.sb)
		} else {
			s.writeback(w, in, t, Wait)
		}
		w.next = nil
	}
}

// regsDep is look's test of instruction in's registers for warp w, in the
// order of in.regs: the latest ready cycle after thr, its kind and source.
// A register ready by thr changes nothing here: when the latest of the
// operands is ready by then, the warp's wait ends by the cycle its stall
// cycles are counted to (mark) and by t, whatever its reason, so it can be
// taken as 0 (its bit cleared in sbMask, for this look and every later
// one: thr does not decrease).
func (s *sm) regsDep(w *warp, in *inst, thr uint64) (uint64, Stall, int32) {
	dep, why, cause := uint64(0), Wait, int32(-1)
	for _, r := range in.regs {
		if u := uint32(r); u < sbRegs {
			m := &w.sbMask[u>>6]
			bit := uint64(1) << (u & 63)
			if *m&bit == 0 {
				continue
			}
			if w.reg[r].at <= thr {
				*m &^= bit
				continue
			}
		}
		e := &w.reg[r]
		if e.at > dep {
			dep, why, cause = e.at, e.sb, e.src
		}
	}
	return dep, why, cause
}

// noLine is a warp's fline before it has read any code.
const noLine = ^uint32(0)

// fetched is the cycle warp w, looking at cycle t, has instruction in's
// machine code: at once if it is on the line the warp read last; else each
// line it spans is in the SM's instruction cache, or asked for now (the
// line after one already asked for comes SequentialCycles after it; any
// other MissCycles from now), and reading a line asks for the next one of
// its function (the fetch unit streams within a function; a call or a
// return starts a new stream: Nsight Compute's no_instruction on the -G
// conversion kernels, whose every conversion calls a one-line function).
func (s *sm) fetched(w *warp, in *inst, t uint64) uint64 {
	if in.line == atHand {
		return 0
	}
	if in.line == w.fline && in.lineEnd == w.fline {
		return w.fready
	}
	if a, b := in.line, in.lineEnd; b < uint32(len(s.settled)) {
		// Each line in the cache or asked for, and the next one asked
		// for (or none follows in its function): what the loop below
		// finds, without asking for anything.
		ready := uint64(0)
		for _, r := range s.settled[a : b+1] {
			if r == 0 {
				ready = never
				break
			}
			ready = max(ready, r-1)
		}
		if ready != never {
			w.fline, w.fready = b, ready
			return ready
		}
	}
	f := &s.r.cfg.Fetch
	ready := uint64(0)
	for l := in.line; l <= in.lineEnd; l++ {
		r := s.code[l]
		if r == 0 {
			at := t + uint64(f.MissCycles)
			if l > 0 && !s.lastLine[l-1] && s.code[l-1] != 0 {
				at = max(t, s.code[l-1]-1) + uint64(f.SequentialCycles)
			}
			r = at + 1
			s.code[l] = r
			s.settle(l)
			s.cached(l)
		}
		if n := l + 1; !s.lastLine[l] && s.code[n] == 0 {
			// Asked for now: a warp long stalled has not streamed on.
			s.code[n] = max(r-1, t) + uint64(f.SequentialCycles) + 1
			s.settle(n)
			s.cached(n)
		}
		ready = max(ready, r-1)
	}
	w.fline, w.fready = in.lineEnd, ready
	return ready
}

// settle sets settled for the lines l and l-1 after code[l] changed:
// settled[x] is code[x] when line x is in the cache or asked for and so is
// the next one (or none follows in its function), else 0.
func (s *sm) settle(l uint32) {
	for x := l - 1; x != l+1; x++ {
		if x >= uint32(len(s.settled)) {
			continue // (l-1 when l is 0)
		}
		s.settled[x] = 0
		if r := s.code[x]; r != 0 && (s.lastLine[x] || s.code[x+1] != 0) {
			s.settled[x] = r
		}
	}
}

// cached notes that line l came into the instruction cache: when the
// cache holds capLines lines, the oldest leaves.
func (s *sm) cached(l uint32) {
	if s.capLines <= 0 {
		return
	}
	if len(s.resident) < s.capLines {
		s.resident = append(s.resident, int32(l))
		return
	}
	if old := s.resident[s.nextOut]; uint32(old) != l {
		s.code[old] = 0
		s.settle(uint32(old))
	}
	s.resident[s.nextOut] = int32(l)
	s.nextOut = (s.nextOut + 1) % s.capLines
}

// step executes the warp's next instruction in the VM.
func (s *sm) step(w *warp, t uint64) error {
	in := w.next
	if in == nil || in.stepRare {
		return s.stepAny(w, t)
	}
	// A plain or memory instruction that is not if-converted and that
	// no instruction was moved across: stepAny's tests, none of which
	// applies, left out.
	s.clock = t
	if err := s.vm.Step(w.w, &s.st); err != nil {
		if s.err == nil {
			s.err = err
		}
		return err
	}
	id := s.st.Info.ID
	if in.id != id {
		return s.stepAfter(w, &s.insts[id], false)
	}
	it := &s.perInst[id]
	it.execs++
	it.threads += uint64(bits.OnesCount32(s.st.Active))
	return nil
}

// stepAny is step for any instruction.
func (s *sm) stepAny(w *warp, t uint64) error {
	s.clock = t
	var joins bool // lanes of the warp wait at this barrier already
	if in := w.next; in != nil && in.cross != nil {
		joins = w.w.HeldAt(in.info) != 0
	}
	if err := s.vm.Step(w.w, &s.st); err != nil {
		if s.err == nil {
			s.err = err
		}
		return err
	}
	in := w.next // the instruction the VM ran (look set it)
	if in == nil || in.id != s.st.Info.ID {
		in = &s.insts[s.st.Info.ID]
	}
	return s.stepAfter(w, in, joins)
}

// stepAfter counts the instruction in that the VM has just run for warp
// w, and applies what it did to the cycle loop's state.
func (s *sm) stepAfter(w *warp, in *inst, joins bool) error {
	id := s.st.Info.ID
	it := &s.perInst[id]
	it.execs++
	it.threads += uint64(bits.OnesCount32(s.st.Active))
	// Only barriers and exits complete barriers in the VM (a block's
	// threads exiting can complete the barrier the others wait at);
	// branches, calls and returns are looked at too.
	if b := w.cta; in.kind > kindMem && (b.c.BarriersCompleted() != b.seen || b.c.Cluster() != nil && b.c.Cluster().BarriersCompleted() != b.clSeen) {
		s.unparkAll(b)
	}
	if in.ifConv {
		if s.st.Exec == 0 {
			it.skipped++
			s.vm.Recount(-1) // the budget counts the PTX's instructions
		}
		it.skippedThreads += uint64(bits.OnesCount32(s.st.Active &^ s.st.Exec))
	}
	if joins && s.st.Exec != 0 {
		var d int64
		for _, c := range in.cross {
			if c.up {
				s.acc.perInst[c.id].skipped++
				d--
			} else {
				s.acc.perInst[c.id].missed++
				d++
			}
		}
		if d != 0 {
			s.vm.Recount(d)
		}
	}
	return nil
}

// writeback marks the registers instruction in writes ready at cycle at.
func (s *sm) writeback(w *warp, in *inst, at uint64, sb Stall) {
	id := in.id
	for _, r := range in.wregs {
		w.reg[r] = regReady{at, id, sb}
		if r < sbRegs {
			w.sbMask[r>>6] |= 1 << (r & 63)
		}
	}
	for _, p := range in.wpreds {
		w.pred[p], w.predSB[p] = at, sb
		if p < 64 {
			w.predMask |= 1 << p
		}
	}
	if in.carryW {
		w.carry = at
	}
}

// exit retires a warp that has exited, and its block once every warp has.
func (s *sm) exit(w *warp, t uint64) {
	if !w.live {
		return
	}
	s.account(w, t)
	w.live = false
	w.eligAt, w.next = never, nil
	w.part.dead = true
	s.warpCycles += t - w.start
	b := w.cta
	b.left--
	if s.tr != nil {
		s.tr.warpEnd(w, t)
	}
	if b.left > 0 {
		return
	}
	end := t + uint64(s.r.cfg.CTARetireCycles)
	for i, x := range s.ctas {
		if x == b {
			s.ctas = append(s.ctas[:i], s.ctas[i+1:]...)
			break
		}
	}
	// A cluster's group has room for the next one when its last block
	// retires.
	last := s.r.k == 1 || b.c.Cluster().Resident() == 1
	s.vm.Retire(b.c)
	if s.r.done != nil {
		s.r.done.Add(1)
	}
	if last {
		s.freed = append(s.freed, end)
	}
	s.spans = append(s.spans, [2]uint64{b.start, end})
	s.end = max(s.end, end)
	if s.tr != nil {
		s.tr.ctaEnd(b, end)
	}
}

// issue issues one machine instruction of warp w at cycle t.
func (s *sm) issue(w *warp, t uint64) {
	s.account(w, t)
	w.mark = t + 1
	w.issued = t + 1
	in := w.next
	p := w.part
	p.last, p.lastIss = w, t+1
	s.acc.threadIss += w.lanes
	it := &s.perInst[in.id]
	it.stalls[Selected]++
	it.issued++
	if s.tr != nil {
		s.tr.issue(w, t)
	}
	switch {
	case w.slotsLeft > 0:
		s.issueMore(w, in, t)
	case in.simple:
		s.issuePlain(w, in, t)
	case in.sharedOp:
		s.issuePooled(w, in, t)
	default:
		s.issueFirst(w, in, t)
	}
}

// takeSlots is how many machine instructions warp w issues for in (at
// least one): in.slots and the fraction w carries, in 256ths, with the
// fraction left over kept for the next (an instruction of less than a
// whole slot folds into the ones after it on average; a memory or control
// instruction issues even if folded).
func (w *warp) takeSlots(in *inst) uint32 {
	total := in.slots + w.frac
	if total < 256 {
		w.frac = 0
		return 1
	}
	w.frac = total & 255
	return total >> 8
}

// issuePlain is issueFirst for a simple instruction (inst.simple: plain,
// no queue, no rounds, no cp.async bookkeeping, no tail), about half the
// first machine instructions issued: its cases, without the tests of the
// others.
func (s *sm) issuePlain(w *warp, in *inst, t uint64) {
	p := w.part
	n := w.takeSlots(in)
	p.pipeFree[in.pipe] = atLeast(p.pipeFree[in.pipe], t) + s.r.pipeCycles[in.pipe]
	if err := s.step(w, t); err != nil {
		w.eligAt, w.next = never, nil
		return
	}
	gap := in.gap
	s.writeback(w, in, t+uint64(in.lat)+uint64(n-1)*uint64(gap), in.sb)
	w.slotsLeft, w.gap = n-1, gap
	w.readyAt, w.readyW = t+s.issueGap(w), Wait
	w.tail = 0
	w.first = t
	if n > 1 {
		w.readyAt = t + uint64(gap)
		w.eligAt, w.why, w.cause = w.readyAt, Wait, -1
		w.next = in
		return
	}
	w.next = nil
	s.look(w, t+1)
}

// issueMore issues, at cycle t, the next machine instruction of warp w's
// expanded PTX instruction in.
func (s *sm) issueMore(w *warp, in *inst, t uint64) {
	p := w.part
	pc := s.r.pipeCycles[in.pipe]
	w.slotsLeft--
	if in.queue == qNone && !in.mixed {
		p.pipeFree[in.pipe] = atLeast(p.pipeFree[in.pipe], t) + pc
	}
	w.readyAt, w.readyW = t+uint64(w.gap), Wait
	if in.cas != 0 {
		// A compare-and-store loop's instructions wait on its LDS
		// and ATOMS.CAST results.
		w.readyW = ShortScoreboard
	}
	s.waitLast(w, in)
	w.eligAt, w.why, w.cause = w.readyAt, w.readyW, -1
	if w.slotsLeft == 0 {
		w.next = nil
		w.readyAt = t + s.issueGap(w)
		if w.tail > 0 {
			w.readyAt, w.readyW = t+w.tail, w.tailWhy
		}
		s.look(w, t+1)
	}
}

// issuePooled is issueFirst for a pooled shared-memory load or store
// (inst.sharedOp), with memStart's and memDone's cases for it.
func (s *sm) issuePooled(w *warp, in *inst, t uint64) {
	p := w.part
	n := w.takeSlots(in)
	start := ceilCyc(atLeast(s.dataEst, t))
	s.lastSet = max(s.lastSet, start)
	s.hs.SetCycle(s.lastSet)
	p.q[qMIO].push(start)
	if err := s.step(w, t); err != nil {
		w.eligAt, w.next = never, nil
		return
	}
	w.next = nil
	cfg := s.r.cfg
	if s.r.k > 1 && remoteShared(s.st.Accesses, uint32(w.cta.c.Rank())) {
		s.st.Outcome.Latency += uint32(cfg.ClusterSharedCycles)
	}
	wf := float64(s.hs.Wavefronts())
	if f := cfg.FillCyclesPerSector; f > 0 && cfg.DataCycles > 0 {
		if n := s.hs.FillSectors(); n > 0 { // (none: 0, at most wf, a count)
			if x := float64(n) * f / cfg.DataCycles; x > wf {
				wf = x
			}
		}
	}
	lat := s.st.Outcome.Latency
	if len(s.st.Accesses) == 0 {
		wf, lat = 1, s.r.offLat[qMIO]
	}
	s.pool(w, in, t, wf, uint32(lat))
	w.slotsLeft, w.gap = n-1, in.gap
	w.readyAt, w.readyW = t+s.issueGap(w), Wait
	w.tail = 0
	w.first = t
	if n > 1 {
		w.readyAt = t + uint64(in.gap)
		w.eligAt, w.why, w.cause = w.readyAt, Wait, -1
		w.next = in
		return
	}
	s.look(w, t+1)
}

// issueFirst issues, at cycle t, the first machine instruction of warp w's
// next PTX instruction in: it executes in the VM now.
func (s *sm) issueFirst(w *warp, in *inst, t uint64) {
	p := w.part
	cfg := s.r.cfg
	pc := s.r.pipeCycles[in.pipe]
	w.asyncBook(in)
	n := w.takeSlots(in)
	start := t
	switch in.queue {
	case qNone:
		p.pipeFree[in.pipe] = atLeast(p.pipeFree[in.pipe], t) + pc
	case qMIO:
		if !in.data && in.kind != kindMem {
			f := atLeast(p.pipeFree[in.pipe], t)
			start = ceilCyc(f)
			p.pipeFree[in.pipe] = f + pc // an expansion's other instructions issue to other pipes
		}
	}
	if in.kind == kindMem {
		start = s.memStart(in, p, t)
	}
	if in.kind == kindMem || in.queue != qNone {
		// The queue entry leaves when its unit starts it.
		switch in.queue {
		case qMIO:
			p.q[qMIO].push(start)
		case qLSU:
			p.q[qLSU].push(start)
		case qTex:
			p.q[qTex].push(start)
		}
	}
	var clBefore uint64
	if in.cluster {
		clBefore = w.cta.c.Cluster().BarriersCompleted()
	}
	if err := s.step(w, t); err != nil {
		w.eligAt, w.next = never, nil
		return
	}
	w.next = nil
	var casDone uint64
	gap := in.gap
	if in.rounds {
		n, gap, casDone = s.rounds(w, in, start, t, n)
	}
	lat := uint64(in.lat) + uint64(n-1)*uint64(gap)
	switch in.kind {
	case kindMem:
		s.memDone(w, in, p, start)
		if casDone > 0 {
			s.writeback(w, in, casDone, in.sb)
		}
		// A parameter that missed the constant cache holds the warp
		// (ptxas reads parameters as constant operands).
		if r := in.paramReg; r >= 0 && w.reg[r].at > start+uint64(s.r.offLat[qNone]) {
			w.imc = r
		}
	case kindPlain, kindMembar:
		s.writeback(w, in, start+lat, in.sb)
	}
	w.slotsLeft = n - 1
	w.gap = gap
	w.readyAt, w.readyW = t+s.issueGap(w), Wait
	w.tail = 0
	switch in.kind {
	case kindBranch:
		w.tail, w.tailWhy = uint64(cfg.BranchCycles), BranchResolving
	case kindMembar:
		w.tail, w.tailWhy = uint64(cfg.MembarCycles), Membar
	}
	if last := t + uint64(n-1)*uint64(gap); casDone > last {
		// The loop's last branch waits for its last store's result.
		w.tail, w.tailWhy = casDone-last, ShortScoreboard
	}
	w.first = t
	if n > 1 {
		w.readyAt = t + uint64(gap)
		if in.cas != 0 {
			w.readyW = ShortScoreboard
		}
		s.waitLast(w, in)
	} else if w.tail > 0 {
		w.readyAt, w.readyW = t+w.tail, w.tailWhy
	}
	switch {
	case in.kind == kindBarrier && in.cluster:
		s.clusterBarrier(w, t, clBefore)
	case in.kind == kindBarrier:
		s.barrier(w, t)
	}
	if w.slotsLeft > 0 {
		w.eligAt, w.why, w.cause = w.readyAt, w.readyW, -1
		w.next = in
		return
	}
	s.look(w, t+1)
}

// rounds is, for an atomic (in.rounds) warp w issued at cycle t and its
// unit started at start, its machine instructions n, the cycles between
// them, and for a compare-and-store loop when its last store's result is
// ready (0 otherwise).
func (s *sm) rounds(w *warp, in *inst, start, t uint64, n uint32) (uint32, uint32, uint64) {
	cfg := s.r.cfg
	var casDone uint64
	gap := in.gap
	switch {
	case in.cas != 0 && len(s.st.Accesses) > 0:
		// A compare-and-store loop: its rounds issue their machine
		// instructions (and BSSY, BSYNC around them), spread over the
		// rounds, and the warp waits for the last.
		rounds, done, wf := s.casLoop(in, start)
		s.acc.perInst[in.info.ID].rounds += uint64(rounds - 1)
		slots := cfg.SharedCAS.RoundSlots32
		if in.cas == 64 {
			slots = cfg.SharedCAS.RoundSlots64
		}
		n = max(1, uint32(2+float64(rounds)*slots+0.5))
		gap = uint32(max(1, (done-t)/uint64(n)))
		casDone, s.casWf = done, wf
	case in.info.Class == vm.ClassAtomic:
		r := uint32(atomicRounds(s.st.Accesses)) - 1
		s.acc.perInst[in.info.ID].rounds += uint64(r)
		if in.round > 0 && r > 0 {
			extra := r*in.round + w.frac
			n += extra >> 8
			w.frac = extra & 255
		}
	}
	return n, gap, casDone
}

// waitLast holds the last machine instruction of in until in.lastAt
// cycles after its first (a return waiting for its return address to load
// from the stack frame: long_scoreboard).
func (s *sm) waitLast(w *warp, in *inst) {
	if w.slotsLeft != 1 || in.lastAt == 0 {
		return
	}
	if u := w.first + uint64(in.lastAt); u > w.readyAt {
		w.readyAt, w.readyW = u, LongScoreboard
	}
}

// memStart is when the memory instruction's unit starts it, and tells the
// hierarchy.
func (s *sm) memStart(in *inst, p *part, t uint64) uint64 {
	start := t
	switch {
	case in.queue == qTex:
		start = ceilCyc(atLeast(s.texFree, t))
	case in.pooled:
		start = ceilCyc(atLeast(s.dataEst, t))
	case in.data:
		s.flush(t)
		start = ceilCyc(atLeast(s.dataFree, t))
	}
	s.lastSet = max(s.lastSet, start)
	s.hs.SetCycle(s.lastSet)
	return start
}

// memDone takes what the hierarchy answered for the memory instruction in
// (issued at start) and sets its results' readiness.
func (s *sm) memDone(w *warp, in *inst, p *part, start uint64) {
	cfg := s.r.cfg
	if s.r.k > 1 && remoteShared(s.st.Accesses, uint32(w.cta.c.Rank())) {
		// Another block's shared memory: over the GPC's network.
		s.st.Outcome.Latency += uint32(cfg.ClusterSharedCycles)
	}
	wf := float64(s.hs.Wavefronts())
	if f := cfg.FillCyclesPerSector; f > 0 && in.data && cfg.DataCycles > 0 {
		// The sectors a load fetches from L2 pass the data path as they
		// are written into the L1.
		if n := s.hs.FillSectors(); n > 0 { // (none: 0, at most wf, a count)
			if x := float64(n) * f / cfg.DataCycles; x > wf {
				wf = x
			}
		}
	}
	if f := cfg.StoreCyclesPerLine; f > 0 && in.queue == qLSU && len(s.st.Accesses) > 0 &&
		s.st.Accesses[0].Kind == memspace.Store && s.st.Accesses[0].Space == memspace.Global {
		// A global store's lines leave the SM by the L1's port to the
		// crossbar, one every f cycles: its LSU queue entry stays until
		// the port takes it (lg_throttle behind a busy port).
		ps := atLeast(s.storeFree, start)
		s.storeFree = ps + float64(s.hs.Wavefronts())*f
		p.q[qLSU].hold(ceilCyc(ps))
	}
	if in.cas != 0 && s.casWf > 0 {
		wf, s.casWf = float64(s.casWf), 0
	}
	if in.vecN > 1 {
		// A vector load ptxas made of in and the next loads: half a
		// wavefront per 32-bit word at least (the tiled matmul's LDS.128
		// of two rows: 2.1 wavefronts each in ncu's count).
		wf = max(wf, float64(in.vecN)/2)
	}
	if len(s.st.Accesses) == 0 && in.queue == qMIO && in.data {
		// A shared-memory instruction with its guard false in every lane
		// still passes the data path once: reduce_shared's tree on the
		// H100 has 14.4M l1tex__data_pipe_lsu_wavefronts_mem_shared of
		// which its active loads and stores make 3.1M, and 10.2M
		// predicated-off LDS and STS (smsp__inst_executed_op_shared_* less
		// sass__inst_executed_shared_*) make most of the rest.
		wf = 1
	}
	if in.pooled {
		lat := s.st.Outcome.Latency
		if len(s.st.Accesses) == 0 {
			lat = s.r.offLat[qMIO]
		}
		s.pool(w, in, w.issued-1, wf, uint32(lat)) // issue sets w.issued to its cycle + 1
		return
	}
	var casExtra uint64
	var popcLess uint64
	if in.popc && !in.agg && len(s.st.Accesses) == 1 {
		// ATOMS.POPC.INC: lanes on one word are one update, so only
		// distinct words of a bank take further wavefronts.
		a := &s.st.Accesses[0]
		var key [32]uint8
		for m := a.Mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			key[l] = uint8(a.Addr[l]>>2) & 31
		}
		if merged := float64(casLoadWavefronts(a.Addr[:], &key, a.Mask, 4)); merged < wf {
			popcLess = uint64(wf-merged) * uint64(s.r.perWavefront)
			wf = merged
		}
	}
	if in.nativeCAS && len(s.st.Accesses) > 0 {
		q := &cfg.SharedCAS
		casExtra = uint64(q.CASCycles + q.CASLaneCycles*(wf-1) + 0.5)
		if q.CASDataFactor > 0 {
			wf *= q.CASDataFactor
		}
	}
	switch {
	case in.queue == qTex:
		s.texFree = atLeast(s.texFree, start) + wf*cfg.TexCycles
	case in.data:
		s.dataFree = atLeast(s.dataFree, start) + wf*cfg.DataCycles
		s.dataEst = max(s.dataEst, s.dataFree)
		s.poolAt = s.poolNext()
	}
	if len(s.st.Accesses) == 0 {
		// Guard false in every lane (ptxas's predicated if: reduce_shared's
		// tree, where most warps' LDS are off and the IADD after each
		// waits for it all the same: ncu's short_scoreboard).
		q := in.queue
		if q == qMIO && !in.data {
			q = qNone
		}
		s.writeback(w, in, start+uint64(s.r.offLat[q]), in.sb)
		return
	}
	if s.hs.Waits() {
		s.writeback(w, in, never, in.sb)
		s.pend = append(s.pend, pending{group: s.hs.Group(), w: w, in: in, async: w.asyncSeq})
		if in.cpAsync {
			w.async = never
		}
		return
	}
	s.writeback(w, in, start+uint64(s.st.Outcome.Latency)+casExtra-min(popcLess, uint64(s.st.Outcome.Latency)), in.sb)
	if in.cpAsync {
		w.async = max(w.async, start+uint64(s.st.Outcome.Latency)+uint64(s.r.cfg.AsyncCopyCycles))
	}
}

// barrier handles a warp's arrival at a barrier: if it completed the
// barrier, the waiting warps of the block go on after the barrier latency.
func (s *sm) barrier(w *warp, t uint64) {
	cfg := s.r.cfg
	at := t
	n := w.cta.c.BarriersCompleted()
	completed := n != w.cta.bars
	w.cta.bars = n
	if completed && cfg.BarrierUnitCycles > 0 {
		// The barrier completes: the SM's barrier unit takes
		// BarrierUnitCycles for each barrier it completes, one after
		// another (eight blocks of eight warps in barrier loops: 90.5
		// cycles a barrier on the H100, 28.9 for one block alone).
		at = ceilCyc(max(fcyc(t), s.barFree))
		s.barFree = float64(at) + cfg.BarrierUnitCycles
	}
	rel := at + uint64(cfg.BarrierCycles) + uint64(cfg.BarrierWarpCycles*float64(len(w.cta.warps))+0.5)
	released := false
	for _, x := range w.cta.warps {
		if x == w || !x.live || x.eligAt != never || x.why != Barrier {
			continue
		}
		if x.w.State() == vm.WarpAtBarrier {
			continue
		}
		released = true
		s.account(x, t)
		x.readyAt, x.readyW = rel, Barrier
		x.eligAt, x.why = rel, Barrier
		x.next = nil
		x.unkey()
		x.part.wake = min(x.part.wake, rel)
	}
	if released || w.w.State() != vm.WarpAtBarrier {
		w.readyAt, w.readyW = max(w.readyAt, rel), Barrier
		s.wake = min(s.wake, rel)
	}
}

// clusterBarrier handles a warp's barrier.cluster.arrive or .wait: if the
// arrival completed the cluster barrier's phase (the count was before
// before it), the warps of the cluster's blocks it released, on this SM or
// others of its group, go on after the barrier latency plus
// ClusterBarrierCycles. A warp on an SM that has already advanced past that
// cycle in this window goes on at the next window.
func (s *sm) clusterBarrier(w *warp, t uint64, before uint64) {
	cl := w.cta.c.Cluster()
	if cl == nil || cl.BarriersCompleted() == before {
		return
	}
	cfg := s.r.cfg
	rel := t + uint64(cfg.BarrierCycles) + uint64(cfg.ClusterBarrierCycles)
	for _, c := range cl.CTAs() {
		if c == nil || c.SM() == nil || c.SM().ID >= len(s.r.sms) {
			continue
		}
		o := s.r.sms[c.SM().ID]
		for _, b := range o.ctas {
			if b.c != c {
				continue
			}
			for _, x := range b.warps {
				if !x.live || x.eligAt != never || x.why != Barrier || x.w.State() == vm.WarpAtBarrier {
					continue
				}
				o.account(x, t)
				x.readyAt, x.readyW = rel, Barrier
				x.eligAt, x.why = rel, Barrier
				x.next = nil
				x.unkey()
				x.part.wake = min(x.part.wake, rel)
			}
		}
		o.wake = min(o.wake, rel)
		o.next = min(o.next, rel)
	}
}

// rescue lets go on, from cycle t, the warps held at a barrier that the
// VM has released without the cycle loop seeing it (threads exiting
// completed it); it reports whether there were any.
func (s *sm) rescue(t uint64) bool {
	found := false
	for _, b := range s.ctas {
		for _, x := range b.warps {
			if !x.live || x.eligAt != never || x.why != Barrier || x.w.State() == vm.WarpAtBarrier {
				continue
			}
			s.account(x, t)
			x.readyAt, x.readyW = t, Barrier
			x.eligAt, x.why = t, Barrier
			x.next = nil
			x.unkey()
			x.part.wake = min(x.part.wake, t)
			found = true
		}
	}
	if found {
		s.next = min(s.next, t)
	}
	return found
}

// complete applies the completions of the last Resolve.
func (s *sm) complete() {
	for _, c := range s.hs.Completions() {
		for s.pendHead < len(s.pend) && s.pend[s.pendHead].group < c.Group {
			s.pendHead++
		}
		if s.pendHead == len(s.pend) || s.pend[s.pendHead].group != c.Group {
			continue
		}
		pd := &s.pend[s.pendHead]
		s.pendHead++
		w, in := pd.w, pd.in
		at := c.Cycle
		for _, r := range in.wregs {
			if w.reg[r].at == never {
				w.reg[r].at = at
			}
		}
		if in.cpAsync {
			w.asyncLanded(pd.async, at+uint64(s.r.cfg.AsyncCopyCycles))
		}
		if w.live && w.eligAt == never && (w.why == in.sb || w.why == ImcMiss) {
			w.next = nil
			w.unkey()
			w.part.wake = min(w.part.wake, at)
		}
		s.next = min(s.next, at)
	}
	s.pend = s.pend[:0]
	s.pendHead = 0
}

// tryKeyed reports whether warp w can issue at cycle t; otherwise also
// when it might (never: only an event lets it go on). It rekeys w (the
// cases below set the key rekey would).
func (s *sm) tryKeyed(w *warp, t uint64) (bool, uint64) {
	if w.slotsLeft == 0 && (w.next == nil || w.eligAt <= t && w.next.kind == kindPlain && w.next.slots+w.frac < 256) {
		// Look again, and run what ptxas folded away (no issue slot) now
		// that its operands are ready.
		s.look(w, t)
		if !w.live {
			w.part.ws[w.idx].key = never
			return false, never
		}
	}
	if w.eligAt > t {
		w.rekey()
		return false, w.eligAt
	}
	if w.next == nil {
		// Nothing to issue yet although the warp is eligible (seen with a
		// wgmma of 128 accumulators at -O3: bf16_kk_none_n256 of
		// testdata/tma): try again next cycle. (Before the eligibility
		// test, this spun for ever on a warp no event will wake: a
		// deadlocked cluster barrier.)
		w.rekey()
		return false, t + 1
	}
	// Must its instruction wait for a pipe or a queue: until u, why.
	in, p := w.next, w.part
	var u uint64
	var why Stall
	switch {
	case w.slotsLeft == 0:
		u, why = p.busy(in, t)
	case in.queue == qNone && !in.mixed:
		if f := p.pipeFree[in.pipe]; f > fcyc(t) {
			u, why = ceilCyc(f), MathPipeThrottle
		}
	}
	if u > t {
		s.account(w, t)
		w.eligAt, w.why = u, why
		p.ws[w.idx].key = u
		return false, u
	}
	p.ws[w.idx].key = w.eligAt
	return true, never
}

// busy is until when the queue or the pipe of a warp's next PTX
// instruction in (its first machine instruction) holds it at cycle t (not
// after t: it does not), and why.
func (p *part) busy(in *inst, t uint64) (uint64, Stall) {
	if q := in.queue & 3; q != qNone {
		return p.q[q].room(), queueWhy[q]
	}
	if f := p.pipeFree[in.pipe]; f > fcyc(t) {
		return ceilCyc(f), MathPipeThrottle
	}
	return 0, Selected
}

// queueWhy is the stall reason of a warp held by a full queue, by queue.
var queueWhy = [4]Stall{qMIO: MIOThrottle, qLSU: LGThrottle, qTex: TexThrottle}

// rekey records in w's sub-partition when w next needs trying (its key in part.ws)
// after a try or an issue: never once it has exited; at once when it has
// no instruction in view (try looks again), unless it is parked; else
// when it is eligible.
//
// A parked warp's look finds nothing to run until a barrier of its block
// or its cluster completes (its lanes are held at a barrier, or at a
// warp-synchronous instruction for lanes that are themselves held: the
// VM lets them go only when a barrier completes, or threads exiting
// complete it, in a step of some warp of the block or cluster), and
// finding nothing changes nothing (look sets the same eligAt, why and
// cause; the VM's resume settles nothing new). So it needs no trying
// until then: step lets the parked warps go (unparkAll) as soon as such a
// completion is seen, and until then trying them (every cycle their
// sub-partition was looked at, until 2026-11-29) did nothing.
func (w *warp) rekey() {
	k := w.eligAt
	switch {
	case !w.live:
		k = never
	case w.slotsLeft == 0 && w.next == nil && !w.parked:
		k = 0
	}
	w.part.ws[w.idx].key = k
}

// unparkAll lets the parked warps of block b, and of the other blocks of
// its cluster, be tried again: a barrier of theirs has completed since
// they were parked (rekey).
func (s *sm) unparkAll(b *cta) {
	b.seen = b.c.BarriersCompleted()
	unpark(b)
	cl := b.c.Cluster()
	if cl == nil || cl.BarriersCompleted() == b.clSeen {
		return
	}
	n := cl.BarriersCompleted()
	b.clSeen = n
	if s.r.k == 1 {
		return // a cluster of one block: b itself
	}
	for _, c := range cl.CTAs() {
		if c == nil || c == b.c || c.SM() == nil || c.SM().ID >= len(s.r.sms) {
			continue
		}
		for _, o := range s.r.sms[c.SM().ID].ctas {
			if o.c == c {
				o.clSeen = n
				unpark(o)
			}
		}
	}
}

// unpark lets b's parked warps be tried again.
func unpark(b *cta) {
	for _, x := range b.warps {
		if x.parked && x.live {
			x.unkey()
		}
	}
}

// unkey makes w's sub-partition try w when it next runs.
func (w *warp) unkey() { w.part.ws[w.idx].key = 0 }

// cycle runs sub-partition p's scheduler at cycle t and returns the next
// cycle it may have work. A sub-partition with nothing to issue before
// p.wake is not looked at until then (advance; events from outside its own
// issues lower p.wake: barrier releases, memory completions).
func (s *sm) cycle(p *part, t uint64) uint64 {
	if s.r.gtorr {
		return s.cycleRR(p, t)
	}
	next := uint64(never)
	var pick *warp
	if s.r.lrr {
		n := len(p.ws)
		start := 0
		if p.last != nil {
			for i, e := range p.ws {
				if e.w == p.last {
					start = i + 1
				}
			}
		}
		for i := 0; i < n; i++ {
			if w := p.ws[(start+i)%n].w; w.live {
				ok, u := s.tryKeyed(w, t)
				next = min(next, u)
				if ok {
					pick = w
					break
				}
			}
		}
	} else {
		// Greedy: the last warp again if it can; then the oldest.
		ok := false
		if l := p.last; l != nil && l.live {
			// The scan's key test has not seen it: trying it before its
			// key can only report its key.
			if k := p.ws[l.idx].key; k > t {
				next = min(next, k)
			} else {
				var u uint64
				ok, u = s.tryKeyed(l, t)
				next = min(next, u)
			}
		}
		if ok {
			pick = p.last
		} else {
			for _, e := range p.ws {
				if w := e.w; w != p.last && w.live {
					ok, u := s.tryKeyed(w, t)
					next = min(next, u)
					if ok {
						pick = w
						break
					}
				}
			}
		}
	}
	if pick != nil {
		s.issue(pick, t)
		pick.rekey()
		next = t + 1
	}
	return s.endCycle(p, next)
}

// cycleRR is cycle for the gto_rr scheduler: the warp that issued in the
// cycle before again if it can; else, in the oldest block with a warp that
// can, its least recently issued such warp. It tries the warps the one
// loop of cycle did until 2026-11-29 (ninth pass), in the same order, in
// two: a loop up to the first warp that can issue, which tests no block
// end, and, after it, one over the rest of that warp's block; tryKeyed's
// common case (an instruction in view, held by nothing but its pipe or
// queue) is written out in the first.
func (s *sm) cycleRR(p *part, t uint64) uint64 {
	next := uint64(never)
	if l := p.last; p.lastIss == t && l != nil && l.live {
		// The scan's key test has not seen it: trying it before its key
		// can only report its key.
		if k := p.ws[l.idx].key; k > t {
			next = k
		} else if in := l.inView(t); in != nil {
			// tryKeyed's common case, as in the loop below (most tries of
			// the last warp are of this kind).
			u, why := p.busy(in, t)
			if u <= t {
				s.issue(l, t)
				l.rekey()
				return s.endCycle(p, t+1)
			}
			s.hold(l, u, why, t)
			p.ws[l.idx].key = u
			next = u
		} else {
			ok, u := s.tryKeyed(l, t)
			if ok {
				s.issue(l, t)
				l.rekey()
				return s.endCycle(p, t+1)
			}
			next = u
		}
	}
	// The warps of a block are together, oldest block first: its least
	// recently issued ready warp (testdata/perf/micro/sched: four
	// SFU-bound warps of a block on one sub-partition finish together).
	// A dead warp's key is never (rekey), so the loops need not test
	// live.
	ws := p.ws
	var pick *warp
	i := 0
	for ; i < len(ws); i++ {
		e := &ws[i]
		if e.key > t {
			next = min(next, e.key) // what try would report
			continue
		}
		w := e.w
		if in := w.inView(t); in != nil {
			// tryKeyed's common case written out.
			if u, why := p.busy(in, t); u > t {
				s.hold(w, u, why, t)
				e.key = u
				next = min(next, u)
				continue
			}
			e.key = w.eligAt
			pick = w
			break
		}
		ok, u := s.tryKeyed(w, t)
		if ok {
			pick = w
			break
		}
		next = min(next, u)
	}
	if pick == nil {
		return s.endCycle(p, next)
	}
	for bend := p.bend; !bend[i]; {
		i++
		e := &ws[i]
		if e.key > t {
			continue
		}
		w := e.w
		if in := w.inView(t); in != nil {
			// tryKeyed's common case, as in the loop above.
			if u, why := p.busy(in, t); u > t {
				s.hold(w, u, why, t)
				e.key = u
			} else {
				e.key = w.eligAt
				if w.issued < pick.issued {
					pick = w
				}
			}
			continue
		}
		if ok, _ := s.tryKeyed(w, t); ok && w.issued < pick.issued {
			pick = w
		}
	}
	s.issue(pick, t)
	pick.rekey()
	return s.endCycle(p, t+1)
}

// inView is the instruction of w that cycleRR's scans try without
// tryKeyed, nil where tryKeyed must decide: tryKeyed's common case, an
// instruction in view at t that nothing but its pipe or queue can hold.
func (w *warp) inView(t uint64) *inst {
	if in := w.next; in != nil && w.slotsLeft == 0 && w.eligAt <= t && (in.kind != kindPlain || in.slots+w.frac >= 256) {
		return in
	}
	return nil
}

// hold records that w's pipe or queue holds its instruction in view until
// u for reason why, its stall to t accounted (the caller sets its key to
// u: hold is then small enough to inline).
func (s *sm) hold(w *warp, u uint64, why Stall, t uint64) {
	s.account(w, t)
	w.eligAt, w.why = u, why
}

// endCycle ends a cycle of sub-partition p whose next cycle with work is
// next: it drops the warps that have exited and sets p.wake.
func (s *sm) endCycle(p *part, next uint64) uint64 {
	if p.dead {
		return s.compact(p, next)
	}
	p.wake = next
	return next
}

// compact is endCycle for a sub-partition some of whose warps have
// exited: it drops them.
func (s *sm) compact(p *part, next uint64) uint64 {
	n := 0
	for i, e := range p.ws {
		if w := e.w; w.live {
			w.idx = int32(n)
			p.ws[n], p.blk[n] = e, p.blk[i]
			n++
		}
	}
	clear(p.ws[n:])
	clear(p.blk[n:])
	p.ws, p.blk, p.bend = p.ws[:n], p.blk[:n], p.bend[:n]
	for i := range n {
		p.bend[i] = i == n-1 || p.blk[i+1] != p.blk[i]
	}
	p.dead = false
	if p.last != nil && !p.last.live {
		p.last = nil
	}
	if n == 0 {
		// Nothing to do until admit gives it warps (advance tests the
		// wake first).
		p.wake = never
		return next
	}
	p.wake = next
	return next
}

// advance applies the last Resolve's completions and runs the SM's cycles
// from start up to end (exclusive). Afterwards s.next is the earliest cycle
// at which it has something to do (never: nothing until an event from
// outside).
func (s *sm) advance(start, end uint64) {
	s.hs.ResolveFills() // what the last Resolve left to the SM (hier.Hierarchy.DeferFills)
	s.admitQueued()
	s.complete()
	t := max(start, s.next)
	parts, rr := s.parts, s.r.gtorr
	for t < end && s.err == nil && len(s.ctas) > 0 {
		s.serve(t)
		next := s.poolDue()
		for _, p := range parts {
			switch {
			case t < p.wake:
				next = min(next, p.wake) // what cycle would return
			case len(p.ws) == 0:
			case rr:
				next = min(next, s.cycleRR(p, t))
			default:
				next = min(next, s.cycle(p, t))
			}
		}
		if s.wake < never {
			next = min(next, s.wake)
			s.wake = never
		}
		if next <= t {
			next = t + 1
		}
		t = next
	}
	s.next = t
	if len(s.ctas) == 0 {
		s.next = never
	}
	// The VM's count of the window's instructions (vm.SM.DeferCount).
	s.vm.FlushCount()
}

// remoteShared reports whether a lane of the accesses reaches the shared
// memory of a block of the cluster other than the executing one (rank
// own).
func remoteShared(acc []memspace.Access, own uint32) bool {
	for i := range acc {
		a := &acc[i]
		if a.Space != memspace.Shared {
			continue
		}
		for m := a.Mask; m != 0; m &= m - 1 {
			if memspace.ClusterRank(a.Addr[bits.TrailingZeros32(m)]) != own {
				return true
			}
		}
	}
	return false
}

// atomicRounds is how many rounds an atomic's lanes need when each round
// serves one lane per address: the most lanes sharing one address.
func atomicRounds(acc []memspace.Access) int {
	most := 1
	for i := range acc {
		a := &acc[i]
		var seen [32]uint64
		var count [32]uint8
		n := 0
		for m := a.Mask; m != 0; m &= m - 1 {
			addr := a.Addr[bits.TrailingZeros32(m)]
			j := 0
			for j < n && seen[j] != addr {
				j++
			}
			if j == n {
				seen[n] = addr
				n++
			}
			count[j]++
			most = max(most, int(count[j]))
		}
	}
	return most
}

// fcyc is cycle t as a float64: one conversion, where float64(t) of a
// uint64 tests for values of 2^63 and more (no cycle is that late).
func fcyc(t uint64) float64 { return float64(int64(t)) }

// atLeast is max(f, fcyc(t)) without a branch and in fewer instructions
// than the builtin's handling of NaN and signed zeros: the free-at cycles
// it is used on are never NaN nor -0 (sums of non-negative cycles from
// +0), and non-negative float64s order as their bits do, so the integer
// max of the bits (a conditional move) is the float max. (A comparison
// and a branch, as at first, raised issuePlain's mispredicted branches in
// cachegrind's model from 0.14 M to 1.43 M at 256².)
func atLeast(f float64, t uint64) float64 {
	return math.Float64frombits(max(math.Float64bits(f), math.Float64bits(fcyc(t))))
}

// ceilCyc is uint64(math.Ceil(f)) for 0 <= f < 2^63, a pipe's or a data
// path's free time, without the library call's feature test and the
// unsigned conversion's.
func ceilCyc(f float64) uint64 {
	i := int64(f)
	if float64(i) < f {
		i++
	}
	return uint64(i)
}

// issueGap is the cycles until warp w may issue again after an
// instruction nothing waits on: IssueCycles, its fraction carried.
func (s *sm) issueGap(w *warp) uint64 {
	g := s.r.issueGap + w.gapFrac
	w.gapFrac = g & 255
	return uint64(max(1, g>>8))
}
