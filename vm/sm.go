package vm

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// SM is one emulated streaming multiprocessor running blocks of a launch:
// the CTAs resident on it, the observer its memory accesses go to, the clock
// %clock reads, and its counters. It is the one way CTAs execute: RunCTA runs
// a block to completion (the functional mode), and Step executes one warp
// instruction of a warp the caller chooses (a timing model).
//
// An SM belongs to one goroutine at a time. Blocks on different SMs may run
// in parallel; they share only global memory.
type SM struct {
	// ID is the SM's number: %smid, and the SM of every Access's Origin. It
	// may change only while no CTA is resident.
	ID int
	// Observer, if not nil, sees every warp-wide memory access of the SM's
	// warps once its lanes are validated (see memspace.Observer). With none,
	// accesses cost one nil check.
	Observer memspace.Observer
	// Sync, if not nil, sees the barriers and warp-synchronous barriers
	// of the SM's blocks (see SyncObserver; a checker's hook). With none,
	// such instructions cost one nil check.
	Sync SyncObserver
	// OnFault, if not nil, sees a warp's Fault as RunCTA or RunCTAs meets
	// it. When it returns true the warp's threads exit and the block's
	// other warps go on (a checker collecting every warp that faults, as
	// compute-sanitizer's memcheck reports them before the launch fails);
	// the run then returns the first such fault when its blocks end or can
	// make no more progress.
	OnFault func(*Fault) bool
	// Clock, if not nil, is what %clock and %clock64 read (a timing model's
	// cycle); %globaltimer reads it as nanoseconds at 1 GHz. Without one they
	// read the warp's count of executed instructions.
	Clock func() uint64
	// Stats counts what the SM's retired blocks executed.
	Stats Stats

	// DeferCount, when the launch has no instruction budget (MaxInst 0),
	// keeps the warp instructions Step executes on the SM until FlushCount
	// adds them to the launch's total: a timing model advancing SMs on
	// several goroutines then does not write one shared counter per
	// instruction.
	DeferCount bool
	deferred   int64

	l        *Launch
	resident []*CTA
	pool     []*CTA // retired blocks' storage, for reuse
	slots    []bool // warp slots in use

	step  *Step                 // the Step being recorded, if any
	parts [3]memspace.Access    // a generic access split by space
	acc   [1]memspace.Access    // the warps' access buffer (Warp.acc: acc[0])
	tex   memspace.TexFootprint // texels of the current texture fetch

	syncEv SyncEvent // the event handed to Sync
	fault  *Fault    // the first fault OnFault let the block go on after
}

// NewSM returns an SM with no resident blocks.
func (l *Launch) NewSM(id int) *SM { return &SM{ID: id, l: l} }

// Launch is the launch whose blocks the SM runs.
func (s *SM) Launch() *Launch { return s.l }

// Resident lists the blocks resident on the SM, in the order they were
// admitted.
func (s *SM) Resident() []*CTA { return s.resident }

// maxSlots is how many warps can be resident on one SM at once: each warp
// slot has its own region of physical local memory (memspace.LocalSMStride).
const maxSlots = int(memspace.LocalSMStride / memspace.LocalWarpStride)

// Admit makes block index (linear, x fastest) of the launch resident on the
// SM, its warps ready at the kernel's first instruction, each in a warp slot
// of its own. Any number of blocks may be resident; the caller decides how
// many fit.
func (s *SM) Admit(index int) (*CTA, error) {
	l := s.l
	if index < 0 || index >= l.NumCTAs() {
		return nil, fmt.Errorf("kernel %s: block %d is outside the grid of %d blocks", l.Kernel.Name, index, l.NumCTAs())
	}
	var c *CTA
	if n := len(s.pool); n > 0 {
		c, s.pool = s.pool[n-1], s.pool[:n-1]
	} else {
		c = newCTA(l)
	}
	// Warp slots: the lowest free ones.
	slot := 0
	for _, w := range c.warps {
		for slot < len(s.slots) && s.slots[slot] {
			slot++
		}
		if slot >= maxSlots {
			for _, v := range c.warps {
				if v == w {
					break
				}
				s.slots[v.slot] = false
			}
			s.pool = append(s.pool, c)
			return nil, fmt.Errorf("kernel %s: SM %d has no free warp slot for block %d (%d warps resident)", l.Kernel.Name, s.ID, index, maxSlots)
		}
		if slot == len(s.slots) {
			s.slots = append(s.slots, false)
		}
		s.slots[slot] = true
		w.slot = slot
	}
	c.sm = s
	c.index = index
	c.ctaid = l.CTAID(index)
	clear(c.shared)
	c.bars = [16]barrier{}
	c.pendTx = c.pendTx[:0]
	c.liveThreads = l.ThreadsPerCTA()
	l.joinCluster(c)
	for _, w := range c.warps {
		w.acc = &s.acc[0]
		w.initForCTA(l, c)
	}
	s.resident = append(s.resident, c)
	return c, nil
}

// Retire removes block c from the SM, adds its warps' counters to Stats and
// keeps its storage for the next block. A block is normally retired once it
// is Done; retiring it earlier abandons it.
func (s *SM) Retire(c *CTA) {
	for i, r := range s.resident {
		if r == c {
			s.resident = append(s.resident[:i], s.resident[i+1:]...)
			break
		}
	}
	for _, w := range c.warps {
		s.Stats.Inst += w.Inst
		s.Stats.ThreadInst += w.ThreadInst
		w.Inst, w.ThreadInst = 0, 0
		s.slots[w.slot] = false
	}
	s.Stats.CTAs++
	s.l.leaveCluster(c)
	c.sm = nil
	s.pool = append(s.pool, c)
}

// sliceInst is how many instructions a warp runs before RunCTA checks the
// budget and lets the next warp run.
const sliceInst = 1 << 16

// RunCTA runs block index to completion on the SM, warp after warp in slices
// (the functional mode), and retires it.
func (s *SM) RunCTA(index int) error {
	c, err := s.Admit(index)
	if err != nil {
		return err
	}
	defer s.Retire(c)
	l := s.l
	watch := s.Observer != nil
	for _, w := range c.warps {
		w.watch = watch
	}
	s.fault = nil
	for {
		running, progress, err := s.turn(c, sliceInst)
		if err != nil {
			return err
		}
		if running == 0 {
			return s.faulted(nil)
		}
		if l.stop.Load() {
			return errStopped
		}
		if !progress {
			return s.faulted(c.Deadlock())
		}
	}
}

// faulted is the error a run ends with: the first fault OnFault went on
// after, else err.
func (s *SM) faulted(err error) error {
	if ft := s.fault; ft != nil {
		s.fault = nil
		return ft
	}
	return err
}

// goOn asks OnFault whether the block goes on after warp w's error err;
// if so, the warp's threads exit.
func (s *SM) goOn(c *CTA, w *Warp, err error) bool {
	if s.OnFault == nil {
		return false
	}
	var ft *Fault
	if !errors.As(err, &ft) || !s.OnFault(ft) {
		return false
	}
	if s.fault == nil {
		s.fault = ft
	}
	if gone := w.live &^ w.exited; gone != 0 {
		w.exited |= gone
		c.threadsExited(bits.OnesCount32(gone))
	}
	return true
}

// turn gives every warp of block c that can run a turn of up to quantum
// warp instructions (less where the launch's budget ends sooner), in warp
// order; a warp held at a barrier gives its turn away. It returns how many
// warps have not finished and whether any ran an instruction.
func (s *SM) turn(c *CTA, quantum int) (running int, progress bool, err error) {
	l := s.l
	for _, w := range c.warps {
		if w.done() {
			continue
		}
		f := w.top()
		if f.cur == 0 && f.waiting == 0 {
			running++
			continue // held at a barrier
		}
		before := w.Inst
		slice := int64(quantum)
		if l.MaxInst > 0 {
			// Stop within the budget, not up to a slice past it.
			slice = max(1, min(slice, l.MaxInst-l.instTotal.Load()+1))
		}
		if err := w.run(int(slice)); err != nil && !s.goOn(c, w, err) {
			return running, progress, err
		}
		if n := int64(w.Inst - before); n > 0 {
			progress = true
			if err := l.count(n, c, w); err != nil {
				return running, progress, err
			}
		}
		if !w.done() {
			running++
		}
	}
	return running, progress, nil
}

// count adds n warp instructions of warp w of block c to the launch's total
// and enforces the budget.
func (l *Launch) count(n int64, c *CTA, w *Warp) error {
	if t := l.instTotal.Add(n); l.MaxInst > 0 && t > l.MaxInst {
		l.Stop()
		return &BudgetError{Kernel: l.Kernel.Name, Inst: t, Block: c.ctaid, Warp: w.id, Loop: w.loopAt()}
	}
	return nil
}

// WarpState says whether a warp can issue.
type WarpState uint8

// Warp states.
const (
	// WarpReady: the warp has lanes that can issue (Warp.Next says what).
	WarpReady WarpState = iota
	// WarpAtBarrier: every lane that has not exited waits at a bar.sync
	// for threads of other warps.
	WarpAtBarrier
	// WarpAtWarpSync: the lanes that have not exited wait at a
	// warp-synchronous instruction (shfl.sync, vote.sync, bar.warp.sync...)
	// for lanes of its member mask that never come: a deadlock within the
	// warp, unless some lanes also wait at a barrier.
	WarpAtWarpSync
	// WarpExited: every lane has exited.
	WarpExited
)

var warpStateNames = [...]string{"ready", "at-barrier", "at-warp-sync", "exited"}

func (s WarpState) String() string {
	if int(s) < len(warpStateNames) {
		return warpStateNames[s]
	}
	return "warpstate(" + itoa(int(s)) + ")"
}

// State says whether the warp can issue.
func (w *Warp) State() WarpState {
	if w.done() {
		return WarpExited
	}
	if w.resume() != nil {
		return WarpReady
	}
	if w.top().blocked != 0 {
		return WarpAtBarrier
	}
	for _, f := range w.frames[:w.depth] {
		if f.blocked != 0 {
			return WarpAtBarrier
		}
	}
	return WarpAtWarpSync
}

// Next returns the instruction a ready warp would issue next and the lanes
// that would issue it (before its guard predicate is applied); nil when the
// warp is not ready. A timing model checks its scoreboard against
// Next().Reads and Writes before it issues.
func (w *Warp) Next() (*InstInfo, uint32) {
	// ready's common case first: the running group goes on (no waiting
	// lane joins it at its PC) and no lane has exited.
	if f := w.topf; f.cur != 0 && f.nextWait > f.curPC && w.exited == 0 {
		return &f.info[f.curPC], f.cur
	}
	return w.nextGeneral()
}

// nextGeneral is Next without its first test (stepAll in
// TestStepOneMatchesRunFrame compares the two at every step).
func (w *Warp) nextGeneral() (*InstInfo, uint32) {
	if w.done() {
		return nil, 0
	}
	f := w.ready()
	if f == nil {
		return nil, 0
	}
	return &f.info[f.curPC], f.cur
}

// ID is the warp's index in its block.
func (w *Warp) ID() int { return w.id }

// Slot is the warp's slot on its SM (which places its local memory).
func (w *Warp) Slot() int { return w.slot }

// CTA is the block the warp belongs to.
func (w *Warp) CTA() *CTA { return w.cta }

// Lanes is the mask of lanes the warp has (the last warp of a block may be
// partial).
func (w *Warp) Lanes() uint32 { return w.live }

// Exited is the mask of lanes that have exited.
func (w *Warp) Exited() uint32 { return w.exited }

// HeldAt returns the lanes of the warp held at the barrier instruction
// info (a bar.sync, barrier.sync or bar.red they executed), waiting for
// the barrier to complete; 0 for any other instruction. When it completes
// they resume together, as one group.
func (w *Warp) HeldAt(info *InstInfo) uint32 {
	if w.depth == 0 {
		return 0
	}
	f := w.top()
	if f.fn != info.Func {
		return 0
	}
	var m uint32
	for x := f.blocked; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		if f.pc[l] == info.PC+1 {
			m |= 1 << l
		}
	}
	return m
}

// Step is what one warp instruction did, as SM.Step reports it.
type Step struct {
	Warp *Warp
	// Info is the instruction: Info.ID its kernel-wide id, Info.Func and
	// Info.PC where it is.
	Info *InstInfo
	PC   int32
	// Active is the lanes that issued the instruction together (for a
	// warp-synchronous instruction: the group that executed it, or the lanes
	// that arrived and now wait); Exec is those for which it executed (its
	// guard predicate true). Exec is 0 when the lanes only arrived at a
	// warp-synchronous instruction to wait for the rest of its member mask.
	Active, Exec uint32
	// Accesses are the warp-wide memory accesses the instruction made: none,
	// one, or for a generic access whose lanes resolve to several spaces,
	// one per space. They are valid until the SM's next Step.
	Accesses []memspace.Access
	// Outcome is what the observer answered (the largest latency when there
	// are several accesses); zero without an observer.
	Outcome memspace.Outcome
}

// ErrNotReady is returned by Step for a warp that cannot issue.
var ErrNotReady = errors.New("warp is not ready")

// Step executes exactly one warp instruction of warp w, which must belong to
// a block resident on s and be ready, and records what it did in st.
// Instructions count toward the launch's budget and the warp's counters. A
// fault is returned as a *Fault; the warp is then unusable.
func (s *SM) Step(w *Warp, st *Step) error {
	c := w.cta
	if c == nil || c.sm != s || w.done() {
		return s.stepRefused(w)
	}
	f := w.ready()
	if f == nil {
		return s.stepRefused(w)
	}
	l := s.l
	if l.stop.Load() {
		return errStopped
	}
	pc, mask := f.curPC, f.cur
	in := &f.code[pc]
	exec := mask
	if in.Guard >= 0 {
		p := f.preds[in.Guard]
		if in.GuardNeg {
			p = ^p
		}
		exec &= p
	}
	info := &f.info[pc]
	// Field by field: the composite literal is built on the stack and
	// copied.
	st.Warp, st.Info, st.PC, st.Active, st.Exec = w, info, pc, mask, exec
	st.Accesses, st.Outcome = nil, memspace.Outcome{}
	if mask == ^uint32(0) && w.mbLate == 0 && !stepOneOff {
		// A full warp's own paths. Only s, w and st live across them:
		// where they decline (having changed nothing), stepGeneral
		// finds the rest again, so that this path spills no more.
		var ok bool
		if in.Fast != FastNone {
			ok = exec == ^uint32(0) && w.stepShared32(f, in, info, st)
		} else {
			ok = w.stepFast(f, in)
		}
		if ok {
			// One instruction of a full warp, counted.
			if s.DeferCount && s.l.MaxInst == 0 {
				s.deferred++
				return nil
			}
			return s.l.count(1, w.cta, w)
		}
	}
	return s.stepGeneral(w, st)
}

// stepRefused is Step's error for a warp that does not belong to a block
// resident on s or is not ready.
//
//go:noinline
func (s *SM) stepRefused(w *Warp) error {
	c := w.cta
	if c == nil || c.sm != s {
		return fmt.Errorf("step: warp %d does not belong to a block resident on SM %d", w.id, s.ID)
	}
	if w.done() {
		return fmt.Errorf("step: warp %d of block %d: %w (it has exited)", w.id, c.index, ErrNotReady)
	}
	return fmt.Errorf("step: warp %d of block %d: %w (%s)", w.id, c.index, ErrNotReady, w.State())
}

// stepGeneral is Step past its full-warp paths, for the instruction at the
// ready frame's curPC (Step has filled st): stepOne's or runFrame's
// general path, watched.
//
//go:noinline
func (s *SM) stepGeneral(w *Warp, st *Step) error {
	f := w.topf // what Step's ready returned
	pc, mask, exec := st.PC, st.Active, st.Exec
	in, info := &f.code[pc], st.Info
	s.step = st
	w.watch = true
	w.syncActive, w.syncExec = mask, exec
	before := w.Inst
	var err error
	if stepsOne(in, exec) {
		err = w.stepOne(f, in, pc, mask, exec)
	} else {
		err = w.runFrame(f, 1) // f is what run's resume would return
	}
	s.step = nil
	w.watch = s.Observer != nil
	if info.Class == ClassWarpSync {
		st.Active, st.Exec = w.syncActive, w.syncExec
	}
	if err != nil {
		return err
	}
	if n := int64(w.Inst - before); n > 0 {
		if s.DeferCount && s.l.MaxInst == 0 {
			s.deferred += n
			return nil
		}
		return s.l.count(n, w.cta, w)
	}
	return nil
}

// Recount adds n (negative: takes away) to the SM's deferred count
// (DeferCount), or to the launch's (Launch.Recount).
func (s *SM) Recount(n int64) {
	if s.DeferCount && s.l.MaxInst == 0 {
		s.deferred += n
		return
	}
	s.l.Recount(n)
}

// FlushCount adds the warp instructions the SM has deferred (DeferCount)
// to the launch's total.
func (s *SM) FlushCount() {
	if s.deferred != 0 {
		s.l.instTotal.Add(s.deferred)
		s.deferred = 0
	}
}

// CTA returns the block the SM admitted as index, or nil.
func (s *SM) CTA(index int) *CTA {
	for _, c := range s.resident {
		if c.index == index {
			return c
		}
	}
	return nil
}

// newCTA allocates the storage of one block of l.
func newCTA(l *Launch) *CTA {
	c := &CTA{launch: l}
	nt := l.ThreadsPerCTA()
	nw := (nt + WarpSize - 1) / WarpSize
	c.shared = make([]byte, l.reservedBase()+ReservedShared)
	for i := 0; i < nw; i++ {
		w := &Warp{cta: c, id: i, sregs: new([numSregs][32]uint64)}
		lanes := min(WarpSize, nt-i*WarpSize)
		if lanes == 32 {
			w.live = ^uint32(0)
		} else {
			w.live = 1<<lanes - 1
		}
		c.warps = append(c.warps, w)
	}
	return c
}

// Index is the block's linear index in the grid (x fastest).
func (c *CTA) Index() int { return c.index }

// ID is the block's coordinates (%ctaid).
func (c *CTA) ID() [3]uint32 { return c.ctaid }

// Warps lists the block's warps in order.
func (c *CTA) Warps() []*Warp { return c.warps }

// BarriersCompleted is how many times the block's barriers have completed
// (all of them together): a timing model compares it before and after a
// barrier instruction to tell the arrival that completes one (bar.sync,
// bar.red, bar.arrive) from one that waits or passes.
func (c *CTA) BarriersCompleted() uint64 { return c.completed }

// Cluster is the block's cluster (nil once retired).
func (c *CTA) Cluster() *Cluster { return c.cl }

// Rank is the block's rank in its cluster (%cluster_ctarank).
func (c *CTA) Rank() int { return c.rank }

// SM is the SM the block is resident on (nil once retired).
func (c *CTA) SM() *SM { return c.sm }

// Done reports whether every thread of the block has exited.
func (c *CTA) Done() bool {
	for _, w := range c.warps {
		if !w.done() {
			return false
		}
	}
	return true
}

// Deadlock returns nil while some warp of the block is ready or the block is
// done; otherwise an error wrapping ErrDeadlock that says what each waiting
// warp waits for.
func (c *CTA) Deadlock() error {
	for _, w := range c.warps {
		if w.State() == WarpReady {
			return nil
		}
	}
	if c.Done() {
		return nil
	}
	id := c.ctaid
	return fmt.Errorf("kernel %s: %w in block (%d,%d,%d): %s", c.launch.Kernel.Name, ErrDeadlock, id[0], id[1], id[2], c.deadlock())
}

func (w *Warp) initForCTA(l *Launch, c *CTA) {
	k := l.Kernel
	w.exited = 0
	w.depth = 0
	w.topf = nil
	w.barHeld = [16]uint32{}
	w.barRed = [16]barRedDst{}
	w.clPending, w.clHeld = 0, 0
	w.Inst, w.ThreadInst = 0, 0
	// Only the special registers the kernel reads are filled (most kernels
	// read two or three of the fifty); %tid always, for fault messages.
	need := k.sregsUsed | 1<<srTidX | 1<<srTidY | 1<<srTidZ
	bx, by := l.Block[0], l.Block[1]
	for i := 0; i < 32; i++ {
		t := uint32(w.id*32 + i)
		w.sregs[srTidX][i] = uint64(t % bx)
		w.sregs[srTidY][i] = uint64(t / bx % by)
		w.sregs[srTidZ][i] = uint64(t / (bx * by))
	}
	const laneRegs = 1<<srLaneid | 1<<srLanemaskEq | 1<<srLanemaskLt | 1<<srLanemaskLe | 1<<srLanemaskGe | 1<<srLanemaskGt
	if need&laneRegs != 0 {
		for i := 0; i < 32; i++ {
			w.sregs[srLaneid][i] = uint64(i)
			w.sregs[srLanemaskEq][i] = uint64(uint32(1) << i)
			w.sregs[srLanemaskLt][i] = uint64(uint32(1)<<i - 1)
			w.sregs[srLanemaskLe][i] = uint64(uint32(1)<<i - 1 | uint32(1)<<i)
			w.sregs[srLanemaskGe][i] = uint64(^(uint32(1)<<i - 1))
			w.sregs[srLanemaskGt][i] = uint64(^(uint32(1)<<i - 1 | uint32(1)<<i))
		}
	}
	fill := func(s sreg, v uint64) {
		if need>>s&1 == 0 {
			return
		}
		for i := range w.sregs[s] {
			w.sregs[s][i] = v
		}
	}
	fill(srNtidX, uint64(l.Block[0]))
	fill(srNtidY, uint64(l.Block[1]))
	fill(srNtidZ, uint64(l.Block[2]))
	fill(srCtaidX, uint64(c.ctaid[0]))
	fill(srCtaidY, uint64(c.ctaid[1]))
	fill(srCtaidZ, uint64(c.ctaid[2]))
	fill(srNctaidX, uint64(l.Grid[0]))
	fill(srNctaidY, uint64(l.Grid[1]))
	fill(srNctaidZ, uint64(l.Grid[2]))
	fill(srWarpid, uint64(w.id))
	fill(srNwarpid, 64)
	fill(srSmid, uint64(c.sm.ID))
	fill(srNsmid, uint64(max(l.NumSMs, 1)))
	fill(srGridid, l.GridID)
	fill(srDynSmem, l.DynSmem)
	fill(srTotalSmem, k.DynamicBase-SharedReserved+l.DynSmem)
	fill(srZero, 0)
	fill(srOne, 1)
	cd := l.clusterDims()
	for i := 0; i < 3; i++ {
		fill(srClusterCtaidX+sreg(i), uint64(c.ctaid[i]%cd[i]))
		fill(srClusterNctaidX+sreg(i), uint64(cd[i]))
		fill(srClusteridX+sreg(i), uint64(c.ctaid[i]/cd[i]))
		fill(srNclusteridX+sreg(i), uint64(l.Grid[i]/cd[i]))
	}
	fill(srClusterRank, uint64(c.rank))
	fill(srClusterNrank, uint64(l.ClusterSize()))
	explicit := uint64(0)
	if l.ExplicitCluster {
		explicit = 1
	}
	fill(srExplicitCluster, explicit)
	rb := l.reservedBase()
	fill(srResBegin, rb)
	fill(srResEnd, rb+ReservedShared)
	fill(srResCap, ReservedShared)
	fill(srRes0, rb)
	fill(srRes1, rb+ReservedShared/2)
	// Local memory: zero what earlier blocks used, so results never depend
	// on which block ran before in this storage.
	for i := range w.local {
		clear(w.local[i][:min(uint64(len(w.local[i])), w.localHW)])
	}
	w.ensureLocal(k.Entry.LocalSize)
	w.view = memspace.View{
		Global:     l.Module.dev.Mem,
		Shared:     c.shared,
		SharedBase: uint64(c.rank) << memspace.ClusterSlotBits,
		Cluster:    &c.cl.shared,
		Local:      &w.local,
		ConstBase:  l.Module.constBank.Base,
		ConstSize:  uint64(len(l.Module.constBank.Data)),
		ParamBase:  l.params.Base,
		ParamSize:  uint64(len(l.params.Data)),
	}
	f := w.pushFrame(k.Entry, w.live, 0)
	f.stack = alignUp(k.Entry.LocalSize, 16)
	w.view.FParam, w.view.FParamStride = f.params, int(k.Entry.ParamBlock)
}

// clock is what %clock reads.
func (w *Warp) clock() uint64 {
	if clk := w.cta.sm.Clock; clk != nil {
		return clk()
	}
	// Functional mode: the warp's executed instructions stand in for cycles.
	return w.Inst
}

// observe hands the access w.acc of the instruction at pc of f, which has
// completed, to the SM's observer and to the Step being recorded. A generic
// access is reported by the space each lane's address resolves to (one
// access per space); local addresses become physical ones in the
// interleaved layout (memspace.LocalPhysical). last says that the
// instruction changes w.acc no more before its step ends: the Step's
// record then points at the buffer instead of a copy of it (a copy of
// some 300 bytes per access, when the access is not split).
func (w *Warp) observe(f *frame, pc int32, last bool) {
	s := w.cta.sm
	a := w.acc
	info := &f.fn.Info[pc]
	a.Cache, a.L1Evict, a.L2Evict, a.NonCoherent = info.Cache, info.L1Evict, info.L2Evict, info.NonCoherent
	a.Origin = memspace.Origin{SM: int32(s.ID), CTA: uint64(w.cta.index), Warp: int32(w.id), Inst: info.ID}
	a.WordStride = 0
	if a.Space != memspace.Texture {
		a.Tex, a.Surface = nil, false
	}
	n := 0 // parts of a generic access split by space
	if a.Space == memspace.Generic {
		var masks [3]uint32 // global, shared, local
		for x := a.Mask; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			sp, addr := memspace.ResolveGeneric(a.Addr[l])
			a.Addr[l] = addr
			switch sp {
			case memspace.Shared:
				masks[1] |= 1 << l
			case memspace.Local:
				masks[2] |= 1 << l
			default:
				masks[0] |= 1 << l
			}
		}
		for i, sp := range [3]memspace.Space{memspace.Global, memspace.Shared, memspace.Local} {
			switch masks[i] {
			case 0:
			case a.Mask:
				a.Space = sp
			default:
				p := &s.parts[n]
				*p = *a
				p.Space, p.Mask = sp, masks[i]
				n++
			}
		}
	}
	if n == 0 {
		w.localPhysical(a)
		s.deliver(a)
		if st := s.step; st != nil {
			if last && a == &s.acc[0] {
				a.Values = nil
				st.Accesses = s.acc[:1]
				return
			}
			s.parts[0] = *a
			s.parts[0].Values = nil
			st.Accesses = s.parts[:1]
		}
		a.Values = nil
		return
	}
	for i := range s.parts[:n] {
		w.localPhysical(&s.parts[i])
		s.deliver(&s.parts[i])
		s.parts[i].Values = nil
	}
	a.Values = nil
	if st := s.step; st != nil {
		st.Accesses = s.parts[:n]
	}
}

// localPhysical rewrites the addresses of a local access into the
// interleaved physical layout.
func (w *Warp) localPhysical(a *memspace.Access) {
	if a.Space != memspace.Local {
		return
	}
	sm := w.cta.sm.ID
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		a.Addr[l] = memspace.LocalPhysical(sm, w.slot, l, a.Addr[l])
	}
	a.WordStride = memspace.LocalWordStride
}

// deliver hands one access to the observer and keeps the largest latency.
func (s *SM) deliver(a *memspace.Access) {
	if s.Observer == nil {
		return
	}
	out := s.Observer.Observe(a)
	if st := s.step; st != nil && out.Latency >= st.Outcome.Latency {
		st.Outcome = out
	}
}
