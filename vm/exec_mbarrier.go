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
// destroys it as on the GPU, in this layout:
//
//	bits  0-19  pending arrivals (the count still to arrive in this phase)
//	bits 20-39  expected arrivals (what init set, less what arrive_drop dropped)
//	bits 40-61  tx-count (22-bit two's complement: expect_tx adds, complete_tx subtracts)
//	bit  63     the phase's parity
//
// A phase completes when its pending count and its tx-count are both zero
// after an arrive, arrive_drop or complete_tx: the parity flips, the
// pending count becomes the expected count and the tx-count zero. The state
// an arrive returns is the object as it was before the arrive (so its
// parity is the phase it arrived on); test_wait and try_wait with a state
// answer whether that phase has completed (the parity differs now), with
// .parity whether the phase of that parity has (the current parity
// differs). pending_count reads a state's pending count.
//
// try_wait may suspend the thread for a while in the ISA; here it answers
// at once, as test_wait does, and the loop the program writes around it
// lets the other warps run.
//
// Lanes of a warp operate on an object one at a time, in ascending lane
// order, as atomics do.

const (
	mbPendingMask  = 1<<20 - 1
	mbExpectedShft = 20
	mbTxShift      = 40
	mbTxMask       = 1<<22 - 1
	mbPhaseBit     = 1 << 63
)

func mbPending(w uint64) uint64  { return w & mbPendingMask }
func mbExpected(w uint64) uint64 { return w >> mbExpectedShft & mbPendingMask }
func mbTx(w uint64) int64        { return int64(w>>mbTxShift&mbTxMask) << 42 >> 42 }

// mbWord assembles an object from its parts.
func mbWord(phase, pending, expected uint64, tx int64) uint64 {
	return phase&mbPhaseBit | pending&mbPendingMask | (expected&mbPendingMask)<<mbExpectedShft |
		(uint64(tx)&mbTxMask)<<mbTxShift
}

// mbArrive arrives count times on object w, after adding tx to its
// tx-count; drop also lowers the expected count. It returns the new object.
func mbArrive(w, count uint64, tx int64, drop bool) uint64 {
	pending, expected, t := mbPending(w), mbExpected(w), mbTx(w)+tx
	pending = (pending - count) & mbPendingMask
	if drop {
		expected = (expected - count) & mbPendingMask
	}
	return mbSettle(w&mbPhaseBit, pending, expected, t)
}

// mbSettle completes the phase when nothing is pending.
func mbSettle(phase, pending, expected uint64, tx int64) uint64 {
	if pending == 0 && tx == 0 {
		return mbWord(phase^mbPhaseBit, expected, expected, 0)
	}
	return mbWord(phase, pending, expected, tx)
}

// execMbarrier performs an OpMbarrier for the lanes of exec.
func (w *Warp) execMbarrier(in *Inst, f *frame, exec uint32, pc int32) error {
	acc := &w.acc
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
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
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
			n := uint64(uint32(b[l])) & mbPendingMask
			nw = mbWord(0, n, n, 0)
		case MbarInval:
			nw = 0
		case MbarArrive, MbarArriveDrop:
			var tx int64
			if flags&MbarWithTx != 0 {
				tx = int64(uint32(c[l]))
			}
			nw = mbArrive(old, uint64(uint32(b[l])), tx, op == MbarArriveDrop)
			if d != nil {
				d[l] = old
			}
		case MbarExpectTx:
			nw = mbWord(old, mbPending(old), mbExpected(old), mbTx(old)+int64(uint32(c[l])))
		case MbarCompleteTx:
			nw = mbSettle(old&mbPhaseBit, mbPending(old), mbExpected(old), mbTx(old)-int64(uint32(c[l])))
		case MbarTestWait:
			want := b[l] & mbPhaseBit // the state's phase
			if flags&MbarParity != 0 {
				want = (b[l] & 1) << 63
			}
			if old&mbPhaseBit != want {
				done |= 1 << l
			}
		case MbarCpAsync:
			// Every copy the lane issued before completes first.
			if err := w.completeCopies(f, pc, 1<<l, nil); err != nil {
				return err
			}
			if flags&MbarNoInc != 0 {
				nw = mbArrive(old, 1, 0, false)
			}
			// Without .noinc the pending count rises by one before the
			// copies complete and falls by one when they do: no change.
		}
		if nw != old {
			binary.LittleEndian.PutUint64(mem, nw)
		}
	}
	if op == MbarTestWait {
		p := &f.preds[in.D]
		*p = *p&^exec | done
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
		acc.FloatOp = false
		w.observe(f, pc)
	}
	return nil
}

// execMbarPendingCount reads the pending count of the states in A.
func execMbarPendingCount(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		d[l] = mbPending(a[l])
	}
}
