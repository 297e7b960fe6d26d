package vm

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// Bulk copies (lower_bulk.go): when they land.
//
// The PTX ISA makes cp.async.bulk and cp.async.bulk.tensor asynchronous
// operations of the async proxy, complete when their mbarrier's tx-count
// is satisfied (copies into shared memory) or at cp.async.bulk.wait_group
// (copies out of it). ptxvm performs each copy whole when it is issued: it
// reads the source, writes the destination and, for a copy into shared
// memory, does complete_tx of the copied bytes on the mbarrier (the
// destination block's, for shared::cluster), all at the instruction. A
// program that waits as the ISA requires sees what the GPU shows; one that
// reads the destination before its wait sees the new bytes here where the
// GPU may show the old ones (a race either way). Each lane of the warp that
// executes the instruction issues its own copy, in ascending lane order.
//
// Tensor copies (tile mode) move the box of the tensor map at the given
// coordinates: the box's elements in order, dimension 0 fastest, each
// dimension i stepping by its element stride from coordinate c[i]
// (ceil(box[i]/elementStride[i]) elements). A load writes the elements
// densely from the shared address, in the swizzle mode's byte order, with
// out-of-bounds elements (a coordinate below 0 or at or past the extent)
// filled with zeros (NaN for a floating type whose map asks for it), and
// completes the whole box's bytes on the mbarrier; a store or reduction
// writes only the in-bounds elements. The swizzle modes permute the 16-byte
// chunks of each shared-memory row: the chunk index (address bits 4-6)
// is XORed with address bits 7-9 (128B: three bits, 64B: two, 32B: one),
// as the GPU's recordings show (testdata/tma).

// execBulk performs an OpBulk for the lanes of exec.
func (w *Warp) execBulk(in *Inst, f *frame, exec uint32, pc int32) error {
	kind, rank, _, multicast := in.Bulk()
	var c, v0, v1 *[32]uint64
	a, b := f.r(in.A), f.r(in.B)
	if in.C != NoReg {
		c = f.r(in.C)
	}
	if in.V[0] != NoReg {
		v0 = f.r(in.V[0])
	}
	if in.V[1] != NoReg {
		v1 = f.r(in.V[1])
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		var err error
		switch kind {
		case BulkG2S, BulkS2S, BulkS2G, BulkRedS2G, BulkRedS2S:
			err = w.bulkCopy(in, f, pc, l, kind, uint32(a[l]), b[l], uint64(uint32(c[l])), v0, v1, multicast)
		default:
			err = w.bulkTensor(in, f, pc, l, kind, rank, uint32(a[l]), b[l], v0, v1, multicast)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// bulkCopy is one lane's non-tensor bulk copy: shared address sh (the
// destination of G2S/S2S, the source of S2G/RedS2G), the other address
// other, n bytes.
func (w *Warp) bulkCopy(in *Inst, f *frame, pc int32, l int, kind uint64, sh uint32, other, n uint64, v0, v1 *[32]uint64, multicast bool) error {
	name := [...]string{BulkG2S: "cp.async.bulk.shared::cluster.global", BulkS2S: "cp.async.bulk.shared::cluster.shared::cta",
		BulkS2G: "cp.async.bulk.global.shared::cta", BulkRedS2G: "cp.reduce.async.bulk.global.shared::cta",
		BulkRedS2S: "cp.reduce.async.bulk.shared::cluster.shared::cta"}[kind]
	if n%16 != 0 || sh%16 != 0 || other%16 != 0 {
		return w.fault(f, pc, l, fmt.Sprintf("%s of %d bytes between %#x and %#x: the size and both addresses must be multiples of 16", name, n, sh, other))
	}
	switch kind {
	case BulkG2S, BulkS2S:
		sp := memspace.Global
		if kind == BulkS2S {
			sp = memspace.Shared
		}
		src, mf := w.view.Span(sp, other, n, l, false)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("%s reading %d bytes: %s", name, n, mf))
		}
		if sp == memspace.Global {
			w.bulkObserve(f, pc, memspace.Load, other, n)
		}
		bar := uint32(v0[l])
		ranks := uint64(0)
		if multicast {
			ranks = v1[l] & 0xffff
		}
		return w.bulkDeliver(f, pc, l, name, sh, bar, ranks, multicast, func(dst []byte) { copy(dst, src) }, n, n)
	case BulkS2G:
		src, mf := w.view.Span(memspace.Shared, uint64(sh), n, l, false)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("%s reading %d bytes: %s", name, n, mf))
		}
		dst, mf := w.view.Span(memspace.Global, other, n, l, true)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("%s writing %d bytes: %s", name, n, mf))
		}
		copy(dst, src)
		w.bulkObserve(f, pc, memspace.Store, other, n)
	case BulkRedS2S:
		// Element by element into the destination block's shared memory
		// (the blocks of a cluster run together: no lock), then
		// complete_tx of the bytes on its mbarrier.
		es := uint64(in.T.Size())
		if es == 0 || n%es != 0 {
			return w.fault(f, pc, l, fmt.Sprintf("%s of %d bytes: not a whole number of %s elements", name, n, in.T))
		}
		_, _, red, _ := in.Bulk()
		op := Inst{T: in.T, Imm: red}
		for o := uint64(0); o < n; o += es {
			src, mf := w.view.Read(memspace.Shared, other+o, es, l)
			if mf != nil {
				return w.fault(f, pc, l, fmt.Sprintf("%s reading: %s", name, mf))
			}
			v := readN(src, es)
			dst, mf := w.view.Bytes(memspace.Shared, uint64(sh)+o, es, l)
			if mf != nil {
				return w.fault(f, pc, l, fmt.Sprintf("%s writing: %s", name, mf))
			}
			writeN(dst, es, atomApply(&op, memspace.Shared, readN(dst, es), v, 0))
		}
		return w.completeTx(f, pc, l, name, uint64(uint32(v0[l])), n)
	case BulkRedS2G:
		es := uint64(in.T.Size())
		if es == 0 || n%es != 0 {
			return w.fault(f, pc, l, fmt.Sprintf("%s of %d bytes: not a whole number of %s elements", name, n, in.T))
		}
		for o := uint64(0); o < n; o += es {
			src, mf := w.view.Read(memspace.Shared, uint64(sh)+o, es, l)
			if mf != nil {
				return w.fault(f, pc, l, fmt.Sprintf("%s reading: %s", name, mf))
			}
			if err := w.bulkReduce(in, f, pc, l, name, in.T, other+o, readN(src, es)); err != nil {
				return err
			}
		}
		w.bulkObserve(f, pc, memspace.Reduction, other, n)
	}
	return nil
}

// bulkObserve shows the memory hierarchy the global side of a bulk copy:
// the n bytes at addr, in pieces of 32 lanes of 16 bytes (Access.Bulk:
// the TMA unit's traffic, to and from L2).
func (w *Warp) bulkObserve(f *frame, pc int32, kind memspace.Kind, addr, n uint64) {
	if !w.watch || n == 0 {
		return
	}
	acc := w.acc
	end := addr + n
	for at := addr &^ 15; at < end; {
		lanes := 0
		for ; lanes < 32 && at < end; lanes++ {
			acc.Addr[lanes] = at
			at += 16
		}
		acc.Space, acc.Kind, acc.Size, acc.Mask = memspace.Global, kind, 16, uint32(uint64(1)<<lanes-1)
		acc.FloatOp, acc.CAS, acc.Bulk = false, false, true
		w.observe(f, pc, false)
		acc.Bulk = false
	}
}

// bulkRun gathers the contiguous runs of a tensor copy's global elements
// for bulkObserve.
type bulkRun struct {
	start, end uint64
}

// add extends the run with the es bytes at ga, or shows the run so far and
// starts another.
func (r *bulkRun) add(w *Warp, f *frame, pc int32, kind memspace.Kind, ga, es uint64) {
	if !w.watch {
		return
	}
	if r.end != r.start && ga == r.end {
		r.end += es
		return
	}
	r.flush(w, f, pc, kind)
	r.start, r.end = ga, ga+es
}

// flush shows the run so far.
func (r *bulkRun) flush(w *Warp, f *frame, pc int32, kind memspace.Kind) {
	if r.end != r.start {
		w.bulkObserve(f, pc, kind, r.start, r.end-r.start)
	}
	r.start, r.end = 0, 0
}

// bulkReduce applies the reduction of in to the global element of type t
// at addr with value v, atomically.
func (w *Warp) bulkReduce(in *Inst, f *frame, pc int32, l int, name string, t Type, addr, v uint64) error {
	_, _, red, _ := in.Bulk()
	es := uint64(t.Size())
	mem, mf := w.view.Bytes(memspace.Global, addr, es, l)
	if mf != nil {
		return w.fault(f, pc, l, fmt.Sprintf("%s writing: %s", name, mf))
	}
	op := Inst{T: t, Imm: red}
	mu := w.view.Global.Lock(addr)
	mu.Lock()
	// An f32 add keeps subnormals (as a shared-memory atomic does; global
	// atomics flush them): red_add_f32's 0x3 + 0x3 is 0x6 on the H200.
	sp := memspace.Global
	if t == F32 {
		sp = memspace.Shared
	}
	writeN(mem, es, atomApply(&op, sp, readN(mem, es), v, 0))
	mu.Unlock()
	return nil
}

// bulkDeliver writes n bytes (fill writes them into the slice it is given)
// at shared::cluster address dst and completes tx bytes on the
// mbarrier at bar: in the block whose address they are, or, multicast, at
// the same offsets in every block of the cluster whose rank is set in
// ranks.
func (w *Warp) bulkDeliver(f *frame, pc int32, l int, name string, dst, bar uint32, ranks uint64, multicast bool, fill func([]byte), n, tx uint64) error {
	one := func(d, b uint64) error {
		buf, mf := w.view.Span(memspace.Shared, d, n, l, true)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("%s writing %d bytes: %s", name, n, mf))
		}
		fill(buf)
		return w.completeTx(f, pc, l, name, b, tx)
	}
	if !multicast {
		return one(uint64(dst), uint64(bar))
	}
	for r := ranks; r != 0; r &= r - 1 {
		k := uint32(bits.TrailingZeros64(r))
		if err := one(memspace.ClusterAddr(uint64(dst), k), memspace.ClusterAddr(uint64(bar), k)); err != nil {
			return err
		}
	}
	return nil
}

// pendingTx is a bulk copy's complete_tx waiting for its time (timing
// mode): n bytes on the mbarrier at shared address bar at cycle due.
type pendingTx struct {
	bar, n, due uint64
	lanes       uint32
}

// The time a bulk copy into shared memory takes from issue to its
// complete_tx, in cycles: base plus perKiB per KiB. The H200 takes 355 +
// 9.2 per KiB from issue to the waiting thread seeing the phase complete
// (testdata/tma/log/bench_tma.txt: cp.async.bulk 16 B to 32 KiB and 2D tile
// loads of 256 B to 32 KiB, warm, one copy at a time, within 15 cycles of
// each); the timing model's own cost of the issue, the arrive and the
// try_wait loop in that benchmark is about 90 cycles of it (bench_bulk run
// in --mode timing with this base: 357-381 cycles for 16 B against the
// GPU's 355-369, 357-432 for 4 KiB against 390-395, 509-536 for 16 KiB
// against 495-503).
const (
	bulkLatencyBase   = 265
	bulkLatencyPerKiB = 9.2
)

// completeTx is mbarrier complete_tx of n bytes on the object at shared
// (::cluster) address bar, by lane l. In a timing model (the SM has a
// Clock) a complete_tx on the block's own mbarrier lands when the copy
// would have finished on the GPU (flushTx, which every mbarrier operation
// of the block calls first); otherwise at once. The bytes themselves are
// already in place: reading them before the wait is a race.
func (w *Warp) completeTx(f *frame, pc int32, l int, name string, bar, n uint64) error {
	mem, mf := w.view.Bytes(memspace.Shared, bar, 8, l)
	if mf != nil {
		return w.fault(f, pc, l, fmt.Sprintf("%s completing on the mbarrier at %#x: %s", name, bar, mf))
	}
	if clk := w.cta.sm.Clock; clk != nil && w.isOwnShared(bar) {
		due := clk() + bulkLatencyBase + uint64(bulkLatencyPerKiB*float64(n)/1024)
		w.cta.pendTx = append(w.cta.pendTx, pendingTx{bar: bar, n: n, due: due, lanes: 1 << l})
		return nil
	}
	w.landTx(mem, bar, n, 1<<l)
	return nil
}

// flushTx lands the pending complete_tx of the block that are due.
func (w *Warp) flushTx() {
	c := w.cta
	if len(c.pendTx) == 0 {
		return
	}
	now := c.sm.Clock()
	k := 0
	for _, p := range c.pendTx {
		if p.due > now {
			c.pendTx[k] = p
			k++
			continue
		}
		if mem, mf := w.view.Bytes(memspace.Shared, p.bar, 8, 0); mf == nil {
			w.landTx(mem, p.bar, p.n, p.lanes)
		}
	}
	c.pendTx = c.pendTx[:k]
}

// landTx applies complete_tx of n bytes to the mbarrier object mem (at
// bar). The bytes land piece by piece: when they are more than the phase
// still expects (and it has no arrivals pending), the phase completes with
// the bytes it expected and the rest count towards the next one (the H200
// completed the phase of l2d_estr_21b, which expected 128 of the 256 bytes
// its box copied).
func (w *Warp) landTx(mem []byte, bar, n uint64, lanes uint32) {
	old := binary.LittleEndian.Uint64(mem)
	nw := old
	if t := mbTx(old); t > 0 && uint64(t) < n && mbPending(old) == 0 {
		nw = mbArrive(nw, 0, -t, false)
		n -= uint64(t)
	}
	nw = mbArrive(nw, 0, -int64(n), false)
	binary.LittleEndian.PutUint64(mem, nw)
	if s := w.cta.sm; s != nil && s.Sync != nil {
		w.noteMbar(SyncMbarArrive, lanes, memspace.Shared, bar, (nw^old)&mbPhaseBit != 0)
	}
}

// tmapReduceType is the element type a tensor reduction operates on.
var tmapReduceType = [numTMapTypes]Type{U8, U16, U32, S32, U64, S64, F16, F32, F64, BF16, F32, F32, F32}

// bulkTensor is one lane's tensor copy: shared address sh, the tensor
// map at (generic or global) address tm.
func (w *Warp) bulkTensor(in *Inst, f *frame, pc int32, l int, kind uint64, rank int, sh uint32, tm uint64, v0, v1 *[32]uint64, multicast bool) error {
	name := [...]string{BulkTensorLoad: "cp.async.bulk.tensor (load)", BulkTensorStore: "cp.async.bulk.tensor (store)",
		BulkTensorRed: "cp.reduce.async.bulk.tensor"}[kind]
	sp, ta := memspace.ResolveGeneric(tm)
	if sp != memspace.Global {
		return w.fault(f, pc, l, fmt.Sprintf("%s: the tensor map's address %#x is not in global or parameter memory", name, tm))
	}
	raw, mf := w.view.Read(memspace.Global, ta, 128, l)
	if mf != nil {
		return w.fault(f, pc, l, fmt.Sprintf("%s: reading the tensor map: %s", name, mf))
	}
	t, err := DecodeTensorMap(raw)
	if err != nil {
		return w.fault(f, pc, l, fmt.Sprintf("%s: the 128 bytes at %#x: %v", name, tm, err))
	}
	if t.Rank != rank {
		return w.fault(f, pc, l, fmt.Sprintf("%s: a %dd copy with a tensor map of rank %d", name, rank, t.Rank))
	}
	if sh%128 != 0 {
		return w.fault(f, pc, l, fmt.Sprintf("%s: shared address %#x is not a multiple of 128", name, sh))
	}
	var coord [5]int64
	for i, r := range f.fn.RegLists[in.Target] {
		coord[i] = int64(int32(f.r(r)[l]))
	}
	es := t.ElemSize()
	total := t.BoxBytes()
	// A box row (dimension 0) takes its bytes in shared memory, or with a
	// swizzle the swizzle's whole width (32, 64 or 128 bytes: the H200 left
	// the rest of each row of sw64_narrow2 and sw128_narrow2 untouched).
	pitch := uint64(t.Box[0]) * es
	if t.Swizzle != 0 {
		pitch = 16 << t.Swizzle
	}
	rows := total / (uint64(t.Box[0]) * es)
	if c0 := coord[0] * int64(es); c0%16 != 0 {
		// The H200 raises cudaErrorIllegalInstruction for every such copy
		// (testdata/tma: l2d_u16_lo, sw128_narrow, s2d_f32, ...), in
		// bounds or not.
		return w.fault(f, pc, l, fmt.Sprintf("%s: illegal instruction: the box starts %d bytes into dimension 0, not a multiple of 16", name, c0))
	}
	if kind != BulkTensorLoad {
		for d := 0; d < rank; d++ {
			if coord[d] < 0 {
				// Stores and reductions may run past the end of a
				// dimension but not start before it: the H200 raises
				// cudaErrorIllegalInstruction (testdata/tma: s2d_f32_2,
				// s2d_f32_neg, s5d_f32_w8, tred_min_s32, ...; s1d_u8_2 and
				// s3d_u16_sw64_2, out of bounds past the end, ran).
				return w.fault(f, pc, l, fmt.Sprintf("%s: illegal instruction: coordinate %d of dimension %d is negative (a store's box may not start before the tensor)", name, coord[d], d))
			}
		}
	}
	// walk calls fn for each element of the box: its offset in shared
	// memory (before the swizzle), and its global address (ok: in bounds).
	walk := func(fn func(off, ga uint64, ok bool) error) error {
		var cnt [5]uint64
		for i := 0; i < 5; i++ {
			cnt[i] = 1
			if i < rank {
				cnt[i] = t.boxCount(i)
			}
		}
		row := uint64(0)
		for i4 := uint64(0); i4 < cnt[4]; i4++ {
			for i3 := uint64(0); i3 < cnt[3]; i3++ {
				for i2 := uint64(0); i2 < cnt[2]; i2++ {
					for i1 := uint64(0); i1 < cnt[1]; i1++ {
						off := row * pitch
						row++
						for i0 := uint64(0); i0 < cnt[0]; i0++ {
							idx := [5]uint64{i0, i1, i2, i3, i4}
							ga, ok := t.Addr, true
							for d := 0; d < rank; d++ {
								g := coord[d] + int64(idx[d])*t.boxStep(d)
								if g < 0 || uint64(g) >= t.Dims[d] {
									ok = false
									break
								}
								ga += uint64(g) * t.Strides[d]
							}
							if err := fn(off, ga, ok); err != nil {
								return err
							}
							off += es
						}
					}
				}
			}
		}
		return nil
	}
	swz := func(a uint64) uint64 {
		if t.Swizzle == 0 {
			return a
		}
		return a ^ (a>>7&(1<<t.Swizzle-1))<<4
	}
	switch kind {
	case BulkTensorLoad:
		fill := t.oobFill()
		ranks := uint64(0)
		if multicast {
			ranks = v1[l] & 0xffff
		}
		var ferr error
		var run bulkRun
		put := func(buf []byte, base uint64) {
			ferr = walk(func(off, ga uint64, ok bool) error {
				o := swz(base+off) - base
				if o+es > uint64(len(buf)) {
					return w.fault(f, pc, l, fmt.Sprintf("%s: the box does not fit its %d bytes", name, len(buf)))
				}
				if !ok {
					writeN(buf[o:], es, fill)
					return nil
				}
				src, mf := w.view.Read(memspace.Global, ga, es, l)
				if mf != nil {
					return w.fault(f, pc, l, fmt.Sprintf("%s reading the tensor at %#x: %s", name, ga, mf))
				}
				copy(buf[o:o+es], src)
				run.add(w, f, pc, memspace.Load, ga, es)
				return nil
			})
			run.flush(w, f, pc, memspace.Load)
		}
		// The swizzle permutes chunks inside 128-byte lines of an aligned
		// region: the box's bytes stay within its rows rounded up to whole
		// lines.
		span := rows * pitch
		if t.Swizzle != 0 {
			span = (span + 127) &^ 127
		}
		err := w.bulkDeliver(f, pc, l, name, sh, uint32(v0[l]), ranks, multicast, func(buf []byte) { put(buf, uint64(sh)) }, span, total)
		if err == nil {
			err = ferr
		}
		return err
	default:
		var run bulkRun
		k := memspace.Store
		if kind == BulkTensorRed {
			k = memspace.Reduction
		}
		defer run.flush(w, f, pc, k)
		return walk(func(off, ga uint64, ok bool) error {
			if !ok {
				return nil
			}
			run.add(w, f, pc, k, ga, es)
			src, mf := w.view.Read(memspace.Shared, swz(uint64(sh)+off), es, l)
			if mf != nil {
				return w.fault(f, pc, l, fmt.Sprintf("%s reading shared memory: %s", name, mf))
			}
			if kind == BulkTensorRed {
				return w.bulkReduce(in, f, pc, l, name, tmapReduceType[t.DType], ga, readN(src, es))
			}
			dst, mf := w.view.Bytes(memspace.Global, ga, es, l)
			if mf != nil {
				return w.fault(f, pc, l, fmt.Sprintf("%s writing the tensor at %#x: %s", name, ga, mf))
			}
			copy(dst, src)
			return nil
		})
	}
}

// oobFill is the bits an out-of-bounds element of a load gets: zero, or
// with NaN fill the 16-bit pattern 0x7ff7 repeated over the element (the
// H200 writes 0x7ff77ff7 into an f32 element: testdata/tma, l2d_f32_nan).
func (t *TensorMap) oobFill() uint64 {
	if !t.OOBNaN {
		return 0
	}
	return 0x7ff77ff77ff77ff7 & (uint64(1)<<(8*t.ElemSize()) - 1) // (1<<64 - 1: every bit)
}
