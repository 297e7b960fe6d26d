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
	// SyncMbarArrive: Lanes of Warp arrive on the mbarrier object at
	// shared-memory offset Addr as one operation (arrive, arrive_drop,
	// expect_tx, complete_tx, or the arrive-on of a
	// cp.async.mbarrier.arrive as it lands), after the object changed;
	// Done when a phase completed with it.
	SyncMbarArrive
	// SyncMbarWait: Lanes of Warp found the phase they test completed
	// (mbarrier.test_wait / try_wait true) on the object at Addr.
	SyncMbarWait
	// SyncAsyncDone: a cp.async copy of lane Lanes (one lane) of Warp
	// landed in shared memory: Count bytes at offset Addr, issued by
	// instruction Inst (InstInfo.ID). The bytes are written.
	SyncAsyncDone
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
	// Addr is the mbarrier object's or the copy's shared-memory offset
	// (SyncMbarArrive, SyncMbarWait, SyncAsyncDone).
	Addr uint64
	// Done: SyncMbarArrive completed a phase.
	Done bool
	// Inst: SyncAsyncDone's issuing instruction (InstInfo.ID).
	Inst int32
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

// noteMbar reports lanes of the warp arriving on (SyncMbarArrive) or
// passing a wait on (SyncMbarWait) the mbarrier object at address a of
// space sp.
func (w *Warp) noteMbar(kind SyncKind, lanes uint32, sp memspace.Space, a uint64, done bool) {
	s := w.cta.sm
	if sp == memspace.Generic {
		_, a = memspace.ResolveGeneric(a)
	}
	e := &s.syncEv
	*e = SyncEvent{Kind: kind, CTA: w.cta, Warp: w, Lanes: lanes, Addr: a, Done: done}
	s.Sync.Sync(e)
}

// noteMbarWaits reports the lanes done of a test_wait / try_wait that
// found their phase completed, one event per object.
func (w *Warp) noteMbarWaits(sp memspace.Space, addr *[32]uint64, done uint32) {
	for x := done; x != 0; {
		l := bits.TrailingZeros32(x) & 31
		a, grp := addr[l], uint32(0)
		for y := x; y != 0; y &= y - 1 {
			if m := bits.TrailingZeros32(y) & 31; addr[m] == a {
				grp |= 1 << m
			}
		}
		x &^= grp
		w.noteMbar(SyncMbarWait, grp, sp, a, false)
	}
}

// noteAsyncDone reports that lane l's copy of size bytes to shared offset
// dst, issued by instruction inst, landed.
func (w *Warp) noteAsyncDone(l int, dst uint64, size int, inst int32) {
	s := w.cta.sm
	e := &s.syncEv
	*e = SyncEvent{Kind: SyncAsyncDone, CTA: w.cta, Warp: w, Lanes: 1 << (l & 31), Active: 1 << (l & 31), Addr: dst, Count: size, Inst: inst}
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
// can tell which lanes besides the faulting one were bad too. The buffer
// is the SM's (Warp.acc): read it when the fault is met (SM.OnFault),
// before another warp of the SM makes an access.
func (w *Warp) LastAccess() *memspace.Access {
	if w.acc == nil {
		return &memspace.Access{}
	}
	return w.acc
}
