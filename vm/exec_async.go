package vm

import (
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// cp.async: when the copy lands.
//
// The PTX ISA makes cp.async a weak memory operation performed
// asynchronously: "control will return to the executing thread before the
// copy operation is complete", "no other synchronization mechanism [than
// cp.async.wait_group / wait_all or an mbarrier] guarantees the completion",
// and there is no order between two cp.async not so synchronised. A read of
// the destination before the wait races with the copy and may see the old
// bytes or the new. The GPU, whose copies take hundreds of cycles, mostly
// shows the old ones; so does ptxvm, so that a kernel missing its wait
// fails here as it fails there:
//
//   - at issue, the source bytes are read (src-size of them; the rest of
//     cp-size is zero, as with ignore-src) and the destination is checked;
//     the observer sees the shared store and the global load then (the
//     instruction's traffic, whenever its bytes land);
//   - the bytes are written to shared memory when the copy completes:
//     at cp.async.wait_group N for the groups older than the N most recent
//     ones, at cp.async.wait_all for all, at cp.async.mbarrier.arrive for
//     every copy the thread issued before it. Copies still in flight when
//     their thread exits never land (nothing may read them without a race).
//
// Each lane keeps its own groups, as each thread does on the GPU.

// asyncCopy is one lane's cp.async in flight.
type asyncCopy struct {
	dst   uint32 // shared-memory offset of the destination
	size  uint8  // cp-size
	lane  uint8
	group uint32   // the lane's count of committed groups at issue: the group it belongs to
	inst  int32    // the issuing instruction (InstInfo.ID), for a SyncObserver
	data  [16]byte // the source bytes read at issue, zero-filled past src-size
}

// execCpAsync issues the copies of an OpCpAsync for the lanes of exec.
func (w *Warp) execCpAsync(in *Inst, f *frame, exec uint32, pc int32) error {
	acc := w.acc
	w.addresses(in, f, exec) // the destinations
	dst := acc.Addr
	size := uint64(in.Vec)
	src := f.r(in.B)
	var ss *[32]uint64
	if in.C != NoReg {
		ss = f.r(in.C)
	}
	ignore := uint32(0)
	if in.V[0] != NoReg {
		ignore = f.preds[in.V[0]]
		if in.Flags&FNeg2 != 0 {
			ignore = ^ignore
		}
	}
	var reads uint32
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		n := size
		if ss != nil {
			n = min(uint64(uint32(ss[l])), size) // more than cp-size is undefined
		}
		if ignore>>l&1 != 0 {
			n = 0
		}
		if _, mf := w.view.Bytes(memspace.Shared, dst[l], size, l); mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("cp.async of %d bytes to shared address %#x: %s", size, dst[l], mf.Reason))
		}
		c := asyncCopy{dst: uint32(dst[l]), size: uint8(size), lane: uint8(l), group: w.asyncCommits[l], inst: f.fn.Info[pc].ID}
		if n > 0 {
			a := src[l] + in.Imm
			if a%size != 0 {
				return w.fault(f, pc, l, fmt.Sprintf("cp.async of %d bytes from global address %#x: misaligned address", size, a))
			}
			b, mf := w.view.Read(memspace.Global, a, n, l)
			if mf != nil {
				return w.fault(f, pc, l, fmt.Sprintf("cp.async of %d bytes from global address %#x: %s", n, a, mf.Reason))
			}
			copy(c.data[:], b)
			reads |= 1 << l
			acc.Addr[l] = a
		}
		w.async = append(w.async, c)
	}
	if w.watch {
		// The shared store, then the global load (a Step keeps the last:
		// the load is what the issuing warp's time depends on).
		sv := acc.Addr
		acc.Addr = dst
		acc.Space, acc.Kind, acc.Size, acc.Mask = memspace.Shared, memspace.Store, uint8(size), exec
		acc.AsyncCopy = true
		w.observe(f, pc, false)
		acc.AsyncCopy = false
		if reads != 0 {
			acc.Addr = sv
			acc.Space, acc.Kind, acc.Size, acc.Mask = memspace.Global, memspace.Load, uint8(size), reads
			w.observe(f, pc, false)
		}
	}
	return nil
}

// execCpAsyncCommit closes each lane's open group.
func (w *Warp) execCpAsyncCommit(exec uint32) {
	for x := exec; x != 0; x &= x - 1 {
		w.asyncCommits[bits.TrailingZeros32(x)&31]++
	}
}

// execCpAsyncWait completes, for each lane of exec, the copies of every
// committed group but the in.Imm most recent ones (wait_all: commits the
// open group and completes everything).
func (w *Warp) execCpAsyncWait(in *Inst, f *frame, exec uint32, pc int32) error {
	if in.Imm == CpWaitAll {
		w.execCpAsyncCommit(exec)
		return w.completeCopies(f, pc, exec, nil)
	}
	var before [32]uint32 // complete the groups numbered below this, per lane
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if c := uint64(w.asyncCommits[l]); c > in.Imm {
			before[l] = uint32(c - in.Imm)
		}
	}
	return w.completeCopies(f, pc, exec, &before)
}

// completeCopies writes the copies of the lanes of m that belong to groups
// below before[lane] (all of them when before is nil) to shared memory, in
// the order they were issued, and forgets them.
func (w *Warp) completeCopies(f *frame, pc int32, m uint32, before *[32]uint32) error {
	k := 0
	for i := range w.async {
		c := &w.async[i]
		if m>>c.lane&1 == 0 || before != nil && c.group >= before[c.lane] {
			w.async[k] = *c
			k++
			continue
		}
		b, mf := w.view.Bytes(memspace.Shared, uint64(c.dst), uint64(c.size), int(c.lane))
		if mf != nil {
			w.async = append(w.async[:k], w.async[i:]...)
			return w.fault(f, pc, int(c.lane), fmt.Sprintf("cp.async completing to shared address %#x: %s", c.dst, mf.Reason))
		}
		copy(b, c.data[:c.size])
		if s := w.cta.sm; s != nil && s.Sync != nil {
			w.noteAsyncDone(int(c.lane), uint64(c.dst), int(c.size), c.inst)
		}
	}
	w.async = w.async[:k]
	return nil
}
