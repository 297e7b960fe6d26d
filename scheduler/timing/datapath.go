package timing

import "math"

// The SM's L1/shared data path serves one wavefront per DataCycles. In
// arrival order (gpu.Timing.SharedOrder "arrival") an operation takes the
// path when everything queued before it has passed (sm.dataFree, set at
// issue). In round robin ("round_robin") the shared-memory loads and
// stores wait in a pool instead, and each time the path is free it takes
// one of the operations that have arrived, of the warp that comes next
// after the last one served (by warp slot): the warps of two blocks whose
// bursts overlap are served in turn, so both blocks finish late, as two
// trees of reduce_shared on one H100 SM do, where in arrival order the
// first would go through untouched and the blocks would settle into
// taking turns.

// dataOp is a shared-memory operation waiting in the pool. It holds no
// pointer (its warp is the SM's slots[slot], its instruction insts[id]),
// so that moving operations in the pool is a plain copy.
type dataOp struct {
	age    uint64  // the warp's age when it issued: the slot may hold another warp by the time it is served
	slot   int32   // the warp's slot
	id     int32   // the instruction
	arrive uint64  // the cycle it issued
	wf     float64 // its wavefronts
	lat    uint32  // its latency once it takes the path
}

// pool puts the operation warp w issued at cycle t in the pool; its
// results are not ready until serve gives it the path.
func (s *sm) pool(w *warp, in *inst, t uint64, wf float64, lat uint32) {
	s.dataEst = atLeast(s.dataEst, t) + wf*s.r.cfg.DataCycles
	s.writeback(w, in, never, in.sb)
	if len(s.dpool) == cap(s.dpool) && len(s.dpool) < cap(s.dbase) {
		// serveUntil takes operations off the pool's front by
		// reslicing: move it back to the start of its array.
		s.dpool = s.dbase[:copy(s.dbase[:cap(s.dbase)], s.dpool)]
	}
	s.dpool = append(s.dpool, dataOp{age: w.age, slot: int32(w.w.Slot()), id: in.id, arrive: t, wf: wf, lat: lat})
	if cap(s.dpool) > cap(s.dbase) {
		s.dbase = s.dpool[:0] // append moved it to a larger array
	}
	s.poolAt = s.poolNext()
}

// serve gives the data path, up to cycle t, to the pooled operations in
// round robin over the warps that have one waiting, and makes their
// results ready.
func (s *sm) serve(t uint64) {
	if s.poolAt <= t {
		s.serveUntil(t, false)
	}
}

// flush gives the data path to every pooled operation that arrived by
// cycle t, however long they take: an operation served in arrival order
// (a global or local access) that arrives at t queues behind them.
func (s *sm) flush(t uint64) { s.serveUntil(t, true) }

func (s *sm) serveUntil(t uint64, all bool) {
	for len(s.dpool) > 0 {
		cur := s.poolNext()
		if all && s.dpool[0].arrive > t || !all && cur > t {
			break
		}
		// The pool is in the order the operations arrived; the first of
		// the warp at or after slot rr is served: the least slot-rr, in
		// unsigned arithmetic (a slot before rr wraps past every slot
		// from rr on, in their order, as slot-rr+len(slots) would).
		lim := cur
		if all {
			lim = min(cur, t)
		}
		pool, rr := s.dpool, s.rr
		best, bestKey := 0, uint(math.MaxUint)
		for i := range pool {
			op := &pool[i]
			if op.arrive > lim {
				break
			}
			if k := uint(int(op.slot) - rr); k < bestKey {
				best, bestKey = i, k
				if k == 0 {
					break
				}
			}
		}
		op := pool[best]
		// The operations before it move up one (it is 2 from the front
		// on average, the pool 8 long at 512²) and the pool starts one
		// later in its array (pool moves it back).
		copy(pool[1:best+1], pool[:best])
		s.dpool = pool[1:]
		s.rr = int(op.slot) + 1
		if s.rr == len(s.slots) {
			s.rr = 0
		}
		s.dataFree = fcyc(cur) + op.wf*s.r.cfg.DataCycles
		w := s.slots[op.slot]
		if !w.live || w.age != op.age {
			continue
		}
		// Its registers are ready at at, whatever wrote them since it
		// issued: the warp's pooled operations are served in the order it
		// issued them, so the last to write a register sets it last; an
		// instruction of another kind that writes it meanwhile, which
		// nothing in ptxas's output for these kernels does, is delayed.
		at := cur + uint64(op.lat)
		in := &s.insts[op.id]
		s.writeback(w, in, at, in.sb)
		if w.eligAt == never && w.why == in.sb {
			w.next = nil // look again: its operands are on their way
			w.unkey()
		}
		w.part.wake = min(w.part.wake, at)
		s.wake = min(s.wake, at)
	}
	s.poolAt = s.poolNext()
}

// poolNext is the cycle serve can next give the path to a pooled
// operation (never: the pool is empty).
func (s *sm) poolNext() uint64 {
	if len(s.dpool) == 0 {
		return never
	}
	return max(ceilCyc(s.dataFree), s.dpool[0].arrive)
}

// poolDue is the earliest cycle a pooled operation's results can be
// ready: the cycle loop need not stop before it, since serve gives the
// path, in the order it would have, to every operation whose turn came
// meanwhile (no operation arrives while no warp issues), and none of
// their results is due before then.
func (s *sm) poolDue() uint64 {
	if s.poolAt == never {
		return never
	}
	return s.poolAt + uint64(s.r.offLat[qMIO])
}
