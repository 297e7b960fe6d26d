package vm

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// This file is the hook through which a checker (package vm/sanitize)
// sees a block's synchronisation: barrier arrivals and completions and
// warp-synchronous barriers. Memory accesses reach it through the SM's
// Observer (memspace.Observer) as they reach a hierarchy model. With no
// SyncObserver installed the interpreter pays one nil check per barrier
// or warp-synchronous instruction and nothing anywhere else.

// SyncKind says what a SyncEvent reports.
type SyncKind uint8

// Synchronisation events.
const (
	// SyncBarrier: lanes of a warp arrive at a CTA barrier (bar.sync,
	// barrier.sync, bar.red, or bar.arrive when Arrive is set), before
	// the arrival is counted.
	SyncBarrier SyncKind = iota
	// SyncBarrierDone: barrier Barrier of the block completed (its
	// waiting lanes are released); Warp is nil.
	SyncBarrierDone
	// SyncWarp: a group of lanes executes a bar.warp.sync (__syncwarp)
	// together: Lanes are the lanes at PC, Foreign the lanes of the same
	// collective held at a warp-synchronous instruction elsewhere.
	SyncWarp
	// SyncWarpWait: lanes Active arrive at a bar.warp.sync and wait for
	// lanes of their membermasks that are elsewhere (a SyncWarp follows
	// when the group completes).
	SyncWarpWait
)

// SyncEvent is one synchronisation event of a block. It is valid only
// during the SyncObserver call.
type SyncEvent struct {
	Kind SyncKind
	CTA  *CTA
	Warp *Warp     // nil for SyncBarrierDone
	Info *InstInfo // the instruction (nil for SyncBarrierDone)
	// Barrier is the barrier's id; Count its thread count (0: the block).
	Barrier, Count int
	// Arrive marks a bar.arrive (the lanes do not wait).
	Arrive bool
	// Lanes are the lanes that execute the instruction (guard true);
	// Active the lanes of the warp at it (guard true or false).
	Lanes, Active uint32
	// Foreign: SyncWarp only, see SyncWarp.
	Foreign uint32
	// Members holds each executing lane's membermask (SyncWarp only; the
	// lanes of Foreign included).
	Members [32]uint32
}

// SyncObserver sees a block's synchronisation events, in the order the
// SM executes them. Implementations belong to one SM (one goroutine) at a
// time. The functional result never depends on it.
type SyncObserver interface {
	Sync(e *SyncEvent)
}

// Shared returns the block's shared memory (static, dynamic and the
// reserved window), as the kernel sees it now. Checkers read it; writing
// it changes what the kernel reads.
func (c *CTA) Shared() []byte { return c.shared }

// noteBarrier reports the arrival of lanes exec of the warp at the barrier
// instruction at pc.
func (w *Warp) noteBarrier(s *SM, f *frame, pc int32, id, cnt int, exec, mask uint32, arrive bool) {
	e := &s.syncEv
	*e = SyncEvent{Kind: SyncBarrier, CTA: w.cta, Warp: w, Info: &f.fn.Info[pc], Barrier: id, Count: cnt, Arrive: arrive, Lanes: exec, Active: mask}
	s.Sync.Sync(e)
}

// noteWarpSync reports a bar.warp.sync executed by lanes grp at pc and
// lanes foreign held elsewhere (SyncWarp), or lanes grp arriving to wait
// (SyncWarpWait).
func (w *Warp) noteWarpSync(s *SM, f *frame, in *Inst, pc int32, kind SyncKind, grp, foreign uint32) {
	e := &s.syncEv
	*e = SyncEvent{Kind: kind, CTA: w.cta, Warp: w, Info: &f.fn.Info[pc], Lanes: w.guarded(f, in, grp), Active: grp, Foreign: foreign}
	mr := f.r(memberReg(in))
	for x := grp; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		e.Members[l] = uint32(mr[l])
	}
	for x := foreign; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if p := f.pc[l]; p >= 0 && int(p) < len(f.code) {
			e.Members[l] = uint32(f.r(memberReg(&f.code[p]))[l])
		}
	}
	s.Sync.Sync(e)
}

// noteBarrierDone reports that barrier id of c completed.
func (c *CTA) noteBarrierDone(id int) {
	s := c.sm
	e := &s.syncEv
	*e = SyncEvent{Kind: SyncBarrierDone, CTA: c, Barrier: id}
	s.Sync.Sync(e)
}

// WaitingAt returns, for a warp whose lanes wait at a warp-synchronous
// instruction for lanes of its membermask (WarpAtWarpSync, or part of a
// warp at a barrier), that instruction and the waiting lanes; nil if none
// wait so.
func (w *Warp) WaitingAt() (*InstInfo, uint32) {
	if w.depth == 0 {
		return nil, 0
	}
	f := w.top()
	if f.syncHeld == 0 {
		return nil, 0
	}
	l := bits.TrailingZeros32(f.syncHeld)
	return &f.fn.Info[f.pc[l]], f.syncHeld
}

// LastAccess is the warp-wide access of the warp's last memory
// instruction as it was being made: after a memory Fault, the address each
// of its lanes asked for (generic addresses unresolved), so that a checker
// can tell which lanes besides the faulting one were bad too.
func (w *Warp) LastAccess() *memspace.Access { return &w.acc }
