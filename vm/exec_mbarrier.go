package vm

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// mbarrier objects.
//
// An mbarrier is 8 bytes of shared memory (8-byte aligned) holding, as the
// PTX ISA describes it, the current phase, the pending arrival count, the
// expected arrival count and the tx-count. The ISA calls its contents
// opaque; ptxvm keeps them in the object itself, so that an object lives
// and dies with its block's shared memory and a plain store over it
// destroys it as on the GPU, in the H100's layout (learned from the issue-24
// recordings, testdata/conformance/issue24: the SASS of mbarrier.init, the
// states arrive returned and the words mbarrier.inval wrote back, see
// docs/semantics.md):
//
//	bit  0      zero
//	bits 1-20   2^20 - expected count (the count a phase starts with: init's
//	            count, less what arrive_drop dropped)
//	bits 21-41  the tx-count, negated (21-bit two's complement: expect_tx
//	            subtracts, complete_tx adds)
//	bit  42     zero
//	bits 43-62  2^20 - pending count (arrivals count it up towards 2^20)
//	bit  63     the current phase's parity
//
// ptxas lowers init to one 64-bit exchange of ((2^20-n)<<43 | (2^20-n)<<1)
// and pending_count to 2^20 - (state>>43 & 0xfffff). A phase completes when
// its pending count and its tx-count are both zero after an arrive,
// arrive_drop, expect_tx or complete_tx: the parity flips, the pending
// count becomes the expected count and the tx-count zero.
//
// The state arrive returns is the object's upper 32 bits as they were
// before the arrive, in the state's upper half (parity, pending count, the
// tx-count's top bits); the GPU writes only that half of the 64-bit
// register (SYNCS.ARRIVE returns 32 bits) and leaves in the lower half
// whatever the register held, which ptxvm makes zero. test_wait and
// try_wait with a state answer whether that phase has completed (the parity
// differs now), with .parity whether the phase of that parity has (the
// current parity differs).
//
// cp.async.mbarrier.arrive(.noinc) is an asynchronous arrive-on in the
// ISA, triggered when the thread's prior cp.async copies complete. ptxvm
// completes those copies at the instruction and lands the arrive-on after
// the warp's next instruction, as the GPU's ARRIVES.LDGSTSBAR lands a few
// cycles late: on the H100 a test_wait.parity 0 right after a .noinc
// arrival that completes the phase still reads false, and a
// test_wait.parity 1 after that reads false too (the phase has flipped:
// mbar_sp_cp_async_arrive_cta, mbar_sp_cp_async_arrive_generic). Without
// .noinc the instruction expects one tx at once and the arrive-on
// completes it.
//
// try_wait may suspend the thread for a while in the ISA; here it answers
// at once, as test_wait does, and the loop the program writes around it
// lets the other warps run.
//
// The lanes of a warp that arrive (arrive, arrive_drop, expect_tx,
// complete_tx) on one object do so as one operation, as the GPU's
// SYNCS.ARRIVE does: their counts and tx-counts are summed and applied at
// once, and every lane gets the state from before the warp's arrival (on
// the H100, 32 lanes arriving on an object initialised to 40 all get a
// state with 40 pending). init and inval go lane by lane, in ascending lane
// order.

const (
	mbCountMask  = 1<<20 - 1
	mbExpShift   = 1
	mbTxShift    = 21
	mbTxMask     = 1<<21 - 1
	mbPendShift  = 43
	mbPhaseBit   = 1 << 63
	mbStateMask  = 0xffffffff00000000 // the part of a state the GPU defines
	mbCountLimit = 1 << 20
)

func mbPending(w uint64) uint64  { return (mbCountLimit - w>>mbPendShift&mbCountMask) & mbCountMask }
func mbExpected(w uint64) uint64 { return (mbCountLimit - w>>mbExpShift&mbCountMask) & mbCountMask }
func mbTx(w uint64) int64        { return -(int64(w>>mbTxShift&mbTxMask) << 43 >> 43) }

// mbWord assembles an object from its parts (tx: the tx-count outstanding).
func mbWord(phase, pending, expected uint64, tx int64) uint64 {
	return phase&mbPhaseBit | (mbCountLimit-pending)&mbCountMask<<mbPendShift |
		uint64(-tx)&mbTxMask<<mbTxShift | (mbCountLimit-expected)&mbCountMask<<mbExpShift
}

// mbInit is the object mbarrier.init writes for count n.
func mbInit(n uint64) uint64 { return mbWord(0, n&mbCountMask, n&mbCountMask, 0) }

// mbState is the state an arrive on object w returns.
func mbState(w uint64) uint64 { return w & mbStateMask }

// mbPendingCount is mbarrier.pending_count of a state, as ptxas computes it.
func mbPendingCount(state uint64) uint64 { return mbCountLimit - state>>mbPendShift&mbCountMask }

// mbArrive arrives count times on object w, after adding tx to its
// tx-count (negative: complete_tx); drop also lowers the expected count.
// It returns the new object. Arrivals beyond the pending count (undefined
// in the ISA) complete the phase and count towards the next ones while the
// tx-count is zero.
func mbArrive(w, count uint64, tx int64, drop bool) uint64 {
	phase, pending, expected, t := w&mbPhaseBit, mbPending(w), mbExpected(w), mbTx(w)+tx
	if drop {
		expected = (expected - count) & mbCountMask
	}
	if count <= pending {
		pending -= count
		if pending != 0 || t != 0 {
			return mbWord(phase, pending, expected, t)
		}
		return mbWord(phase^mbPhaseBit, expected, expected, 0)
	}
	if t != 0 || expected == 0 {
		return mbWord(phase, 0, expected, t)
	}
	extra := count - pending // past the completion of this phase
	flips := 1 + extra/expected
	return mbWord(phase^uint64(flips&1)<<63, expected-extra%expected, expected, 0)
}

// execMbarrier performs an OpMbarrier for the lanes of exec.
func (w *Warp) execMbarrier(in *Inst, f *frame, exec uint32, pc int32) error {
	w.flushTx() // bulk copies' complete_tx that are due (timing mode)
	acc := w.acc
	w.addresses(in, f, exec)
	op, flags := in.Mbar()
	var b, c, d *[32]uint64
	if in.B != NoReg {
		b = f.r(in.B)
	}
	if in.C != NoReg {
		c = f.r(in.C)
	}
	if in.D != NoReg && op != MbarTestWait {
		d = f.r(in.D)
	}
	var done uint32 // test_wait / try_wait results
	var seen uint32 // lanes already served with an earlier lane on their object
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if seen&(1<<l) != 0 {
			continue
		}
		a := acc.Addr[l]
		if in.Space == memspace.Generic {
			if sp, _ := memspace.ResolveGeneric(a); sp != memspace.Shared {
				return w.fault(f, pc, l, fmt.Sprintf("mbarrier: generic address %#x is not in shared memory", a))
			}
		}
		mem, mf := w.view.Bytes(in.Space, a, 8, l)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("mbarrier object of 8 bytes at %s address %#x: %s", mf.Space, mf.Addr, mf.Reason))
		}
		old := binary.LittleEndian.Uint64(mem)
		nw := old
		switch op {
		case MbarInit:
			nw = mbInit(uint64(uint32(b[l])))
		case MbarInval:
			// The object's bytes stay as they were (the GPU writes the
			// object back to shared memory here); it is no longer one.
		case MbarArrive, MbarArriveDrop, MbarExpectTx, MbarCompleteTx:
			// The lanes on this object arrive as one operation.
			var count uint64
			var tx int64
			group := uint32(0)
			for y := x; y != 0; y &= y - 1 {
				m := bits.TrailingZeros32(y) & 31
				if acc.Addr[m] != a {
					continue
				}
				group |= 1 << m
				switch op {
				case MbarExpectTx:
					tx += int64(uint32(c[m]))
				case MbarCompleteTx:
					tx -= int64(uint32(c[m]))
				default:
					count += uint64(uint32(b[m]))
					if flags&MbarWithTx != 0 {
						tx += int64(uint32(c[m]))
					}
				}
			}
			seen |= group
			nw = mbArrive(old, count, tx, op == MbarArriveDrop)
			if s := w.cta.sm; s != nil && s.Sync != nil {
				w.noteMbar(SyncMbarArrive, group, in.Space, a, (nw^old)&mbPhaseBit != 0)
			}
			if d != nil {
				st := mbState(old)
				for y := group; y != 0; y &= y - 1 {
					d[bits.TrailingZeros32(y)&31] = st
				}
			}
		case MbarTestWait:
			want := b[l] & mbPhaseBit // the state's phase
			if flags&MbarParity != 0 {
				want = (b[l] & 1) << 63
			}
			if old&mbPhaseBit != want {
				done |= 1 << l
			}
		case MbarCpAsync:
			// Every copy the lane issued before completes first; the
			// arrive-on itself lands after the warp's next instruction
			// (landLate). Without .noinc the GPU expects one tx now and
			// completes it when the arrive-on lands (SYNCS'
			// ARRIVES.LDGSTSBAR.64.TRANSCNT), so the phase cannot complete
			// in between; the pending count stays as it is.
			if err := w.completeCopies(f, pc, 1<<l, nil); err != nil {
				return err
			}
			if flags&MbarNoInc == 0 {
				nw = mbArrive(old, 0, 1, false)
			}
		}
		if nw != old {
			binary.LittleEndian.PutUint64(mem, nw)
		}
	}
	if op == MbarTestWait {
		p := &f.preds[in.D]
		*p = *p&^exec | done
		if s := w.cta.sm; done != 0 && s != nil && s.Sync != nil {
			w.noteMbarWaits(in.Space, &acc.Addr, done)
		}
	}
	if op == MbarCpAsync && exec != 0 {
		// An earlier one still in flight lands now, after this instruction.
		w.landLate()
		w.mbLate, w.mbLateNoInc, w.mbLateSpace, w.mbLateAt = exec, flags&MbarNoInc != 0, in.Space, w.Inst
		w.mbLateAddr = acc.Addr
	}
	if w.watch {
		acc.Space, acc.Size, acc.Mask = in.Space, 8, exec
		switch op {
		case MbarInit, MbarInval:
			acc.Kind = memspace.Store
		case MbarTestWait:
			acc.Kind = memspace.Load
		default:
			acc.Kind = memspace.Atomic
		}
		acc.FloatOp, acc.CAS, acc.Sync = false, false, true
		w.observe(f, pc, false)
		acc.Sync = false
	}
	return nil
}

// landLate performs the arrive-on of the cp.async.mbarrier.arrive in
// flight, if any: each lane arrives once on its object (.noinc) or
// completes the one tx its instruction expected, the lanes on one object
// as one operation. The run loop calls it at the first instruction
// boundary after the warp's next instruction, and when the warp stops
// running after that instruction (a barrier, the end of its slice, exit),
// so when it lands does not depend on how the warp is scheduled.
func (w *Warp) landLate() {
	m := w.mbLate
	if m == 0 {
		return
	}
	w.mbLate = 0
	addr := &w.mbLateAddr
	var seen uint32
	for x := m; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if seen&(1<<l) != 0 {
			continue
		}
		a := addr[l]
		var n uint64
		var grp uint32
		for y := x; y != 0; y &= y - 1 {
			k := bits.TrailingZeros32(y) & 31
			if addr[k] == a {
				grp |= 1 << k
				n++
			}
		}
		seen |= grp
		// The object was checked when the instruction was issued; one
		// that can no longer be reached (it cannot) is left alone.
		mem, mf := w.view.Bytes(w.mbLateSpace, a, 8, l)
		if mf != nil {
			continue
		}
		old := binary.LittleEndian.Uint64(mem)
		nw := mbArrive(old, 0, -int64(n), false)
		if w.mbLateNoInc {
			nw = mbArrive(old, n, 0, false)
		}
		binary.LittleEndian.PutUint64(mem, nw)
		if s := w.cta.sm; s != nil && s.Sync != nil {
			w.noteMbar(SyncMbarArrive, grp, w.mbLateSpace, a, (nw^old)&mbPhaseBit != 0)
		}
	}
}

// execMbarPendingCount reads the pending count of the states in A.
func execMbarPendingCount(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		d[l] = mbPendingCount(a[l])
	}
}
