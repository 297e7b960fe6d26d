package vm

import (
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// SIMT model
//
// Each lane has its own PC. A warp executes one group of lanes at a time:
// the lanes whose PC is the smallest among the lanes that can run (the
// "min-PC" policy). Lanes that diverge wait with their PC saved and rejoin
// the running group as soon as it reaches their PC. Because nvcc lays out
// blocks so that join points follow both sides of a branch and loop exits
// follow loop bodies, this reconverges exactly where an immediate
// post-dominator stack would, without computing one, and it handles
// unstructured branches, early exits and loops with break/continue alike.
// Barriers count threads, so lanes of one warp that reach a barrier on
// different paths all arrive, as on sm_70 and later.

const noPC = math.MaxInt32

// frame is one activation (the kernel entry, or a called function) of a
// warp. Lanes that are in a callee are neither current nor waiting here.
type frame struct {
	fn        *Func
	code      []Inst
	info      []InstInfo   // fn.Info
	regs      [][32]uint64 // by slot (layout.go)
	slot      []int32      // the slot of each register index (an operand's offset / 32)
	chains    []chainPlan  // the layout's FuseLdLdFmaChain plans, in pc order
	runs      []runOp      // the layout's run table (exec_run.go), nil if none
	preds     []uint32
	params    []byte // per-lane function parameter block, lane-major
	localBase uint64 // this activation's local depot (local-space address)

	pc       [32]int32 // saved PCs of waiting and blocked lanes
	cur      uint32    // lanes running now, at curPC
	curPC    int32
	waiting  uint32 // lanes ready to run, each at pc[lane]
	nextWait int32  // smallest pc among waiting lanes, noPC if none
	blocked  uint32 // lanes held at a barrier; they resume at pc[lane]
	syncHeld uint32 // lanes held at a warp-synchronous instruction at pc[lane]
	done     uint32 // lanes that returned from this activation

	callPC int32     // in the caller: pc of the call instruction
	site   *CallSite // the call that created this frame
	stack  uint64    // stack the call chain takes, this frame included (limits.go)
}

// r returns the 32 lanes of the register at offset off.
func (f *frame) r(off int32) *[32]uint64 {
	return &f.regs[f.slot[off>>5]]
}

// park moves the lanes of m to the waiting set at pc.
func (f *frame) park(m uint32, pc int32) {
	if m == 0 {
		return
	}
	for x := m; x != 0; x &= x - 1 {
		f.pc[bits.TrailingZeros32(x)] = pc
	}
	f.waiting |= m
	if pc < f.nextWait {
		f.nextWait = pc
	}
}

// recompute refreshes nextWait.
func (f *frame) recompute() {
	if f.waiting == ^uint32(0) {
		f.nextWait = warpsimd.Min32(&f.pc)
		return
	}
	n := int32(noPC)
	for x := f.waiting; x != 0; x &= x - 1 {
		if p := f.pc[bits.TrailingZeros32(x)]; p < n {
			n = p
		}
	}
	f.nextWait = n
}

// settle restores the min-PC invariant after the current group moved,
// shrank or vanished: waiting lanes at the current PC join it, and if some
// waiting lane is behind it, the current group waits and the lowest group runs.
// It returns false when no lane of the frame can run.
func (f *frame) settle() bool {
	if f.cur != 0 {
		if f.nextWait > f.curPC {
			return true
		}
		if f.nextWait < f.curPC {
			f.park(f.cur, f.curPC)
			f.cur = 0
		}
	}
	if f.waiting == 0 {
		return f.cur != 0
	}
	// Take every waiting lane at nextWait (this also merges into the
	// current group when nextWait == curPC).
	pc := f.nextWait
	var g uint32
	if bits.OnesCount32(f.waiting) > 8 {
		// Many lanes (a full warp let go by a barrier): eight at a time.
		g = warpsimd.Eq32(&f.pc, pc) & f.waiting
	} else {
		for x := f.waiting; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x)
			if f.pc[l] == pc {
				g |= 1 << l
			}
		}
	}
	f.waiting &^= g
	f.cur |= g
	f.curPC = pc
	f.recompute()
	return true
}

// Warp is 32 lanes of a CTA executing in lockstep groups.
type Warp struct {
	cta *CTA
	// topf is frames[depth-1], the running activation (nil at depth 0):
	// a step reads it without going through the frames slice's array.
	topf    *frame
	id      int
	slot    int    // warp slot on the SM (places its physical local memory)
	watch   bool   // memory accesses go to observe (an observer, or a Step)
	live    uint32 // lanes that exist (the last warp of a CTA may be partial)
	exited  uint32
	frames  []*frame // call stack; frames[depth-1] is running
	depth   int
	local   [32][]byte
	localHW uint64 // local-memory high-water mark (bytes per lane) for zeroing
	view    memspace.View
	// acc is the access of the memory instruction executing, in its SM's
	// buffer (SM.acc, set at admission): one warp instruction of an SM
	// runs at a time, and a buffer the SM's every memory instruction
	// writes stays in the host's caches, where 32 lanes' addresses in
	// each warp's own did not (the timing model steps 64 warps in turn).
	acc  *memspace.Access
	vbuf [memspace.MaxElems][]uint64
	// sregs are the special registers' lanes, apart from the warp: read
	// only when a frame starts (and by fault messages), they would
	// otherwise spread the fields each step reads over 14 KB.
	sregs *[numSregs][32]uint64

	// barrier bookkeeping: lanes held at each barrier, and where a bar.red
	// delivers its result when the barrier completes
	barHeld [16]uint32
	barRed  [16]barRedDst
	// barrier.cluster (cluster.go): lanes that arrived and have not yet
	// waited, the phase each arrived in, and the lanes held at the wait
	clPending uint32
	clHeld    uint32
	clPhase   [32]uint32

	// the group that last ran a warp-synchronous instruction, and the
	// lanes that executed it (for Step)
	syncActive, syncExec uint32
	// lanes held at other PCs that execute the current warp-synchronous
	// instruction's collective with it (set by syncGroup)
	foreign uint32

	// cp.async copies issued and not yet completed (exec_async.go), and
	// each lane's count of committed groups
	async        []asyncCopy
	asyncCommits [32]uint32

	// the arrive-on of the last cp.async.mbarrier.arrive, not landed yet
	// (exec_mbarrier.go): its lanes, their objects, the address space,
	// whether it was .noinc, and w.Inst when it was issued
	mbLate      uint32
	mbLateNoInc bool
	mbLateSpace memspace.Space
	mbLateAt    uint64
	mbLateAddr  [32]uint64

	// strides: the last full-warp 4-byte global loads, by pc (exec_mem.go)
	strides [4]loadStride

	// counters
	Inst       uint64 // warp instructions executed
	ThreadInst uint64 // thread instructions (active lanes)
}

func (w *Warp) top() *frame { return w.topf }

// done reports whether every lane has exited.
func (w *Warp) done() bool { return w.exited == w.live }

// pushFrame creates an activation of fn for the lanes in m.
func (w *Warp) pushFrame(fn *Func, m uint32, localBase uint64) *frame {
	if w.depth == 0 {
		// The kernel's entry: copies a block left in flight die with it.
		w.async = w.async[:0]
		w.asyncCommits = [32]uint32{}
		w.mbLate = 0
	}
	if w.depth == len(w.frames) {
		w.frames = append(w.frames, &frame{})
	}
	f := w.frames[w.depth]
	w.depth++
	w.topf = f
	f.fn = fn
	f.code = fn.Code
	f.info = fn.Info
	lay := fn.frameLayout()
	n := len(lay.init)
	if cap(f.regs) < n {
		f.regs = make([][32]uint64, n)
	}
	f.regs = f.regs[:n]
	copy(f.regs, lay.init)
	f.slot = lay.slot
	f.chains = lay.chains
	for _, u := range fn.sregs {
		*f.r(u.reg) = w.sregs[u.id]
	}
	if b := w.view.SharedBase; b != 0 {
		for _, u := range fn.sharedSyms {
			r := f.r(u.reg)
			for i := range r {
				r[i] = u.val + b
			}
		}
	}
	np := int(fn.NumPred)
	if cap(f.preds) < np {
		f.preds = make([]uint32, np)
	}
	f.preds = f.preds[:np]
	clear(f.preds)
	f.runs = lay.runTable(f.code, len(f.regs), len(f.preds))
	if fn.hasTrue {
		f.preds[fn.truePred] = ^uint32(0)
	}
	pb := int(fn.ParamBlock) * 32
	if cap(f.params) < pb {
		f.params = make([]byte, pb)
	}
	f.params = f.params[:pb]
	clear(f.params)
	f.localBase = localBase
	f.cur, f.curPC = m, 0
	f.waiting, f.nextWait, f.blocked, f.syncHeld, f.done = 0, noPC, 0, 0, 0
	f.site = nil
	return f
}

// ensureLocal makes every lane's local memory at least n bytes.
func (w *Warp) ensureLocal(n uint64) {
	if n > w.localHW {
		w.localHW = n
	}
	for l := range w.local {
		if uint64(len(w.local[l])) < n {
			nl := make([]byte, n, max(n, 2*uint64(cap(w.local[l]))))
			copy(nl, w.local[l])
			w.local[l] = nl
		}
	}
}

// barRedDst is the destination of a pending bar.red.
type barRedDst struct {
	op  uint8 // 0: none
	dst int32 // register offset (popc) or predicate index (and, or)
}
