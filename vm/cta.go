package vm

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// CTA is one thread block resident on an SM: its warps, shared memory and
// barriers. An SM reuses a retired block's storage for the next one.
type CTA struct {
	launch      *Launch
	sm          *SM
	index       int // linear block index
	ctaid       [3]uint32
	warps       []*Warp
	shared      []byte
	bars        [16]barrier
	liveThreads int // threads that have not exited
	completed   uint64
	// cl is the block's cluster and rank its rank in it; own is the
	// cluster of a block alone in its cluster (a launch without clusters)
	cl   *Cluster
	rank int
	own  Cluster
	// pendTx are the bulk copies' complete_tx on this block's mbarriers
	// still to land (exec_bulk.go), in the order they were issued.
	pendTx []pendingTx
}

type barrier struct {
	arrived  int // threads arrived since the barrier last completed
	expected int // thread count given by the instruction, 0 for "all"
	// bar.red accumulators over the arrived threads' predicates
	popc     int
	anyFalse bool
	anyTrue  bool
}

// addRed accumulates the predicates p (one bit per arriving lane) of a bar.red.
func (c *CTA) addRed(id int, op uint8, p uint32) {
	b := &c.bars[id]
	n := bits.OnesCount32(p)
	b.popc += n
	if n > 0 {
		b.anyTrue = true
	}
	_ = op
}

// arrive records lanes m of warp w at barrier id. hold says the lanes wait
// (bar.sync) rather than pass (bar.arrive). It reports whether the barrier
// completed.
func (c *CTA) arrive(w *Warp, id int, m uint32, count int, hold bool) bool {
	b := &c.bars[id]
	b.arrived += bits.OnesCount32(m)
	if count > 0 {
		b.expected = count
	}
	if hold {
		w.barHeld[id] |= m
	}
	return c.tryComplete(id)
}

// tryComplete releases barrier id if enough threads have arrived.
func (c *CTA) tryComplete(id int) bool {
	b := &c.bars[id]
	if b.arrived == 0 {
		return false
	}
	want := b.expected
	if want == 0 {
		want = c.liveThreads
	}
	if b.arrived < want {
		return false
	}
	popc, allTrue, anyTrue := b.popc, b.popc == b.arrived, b.anyTrue
	*b = barrier{}
	c.completed++
	if c.sm != nil && c.sm.Sync != nil {
		c.noteBarrierDone(id)
	}
	for _, w := range c.warps {
		held := w.barHeld[id]
		if held == 0 {
			continue
		}
		w.barHeld[id] = 0
		f := w.top()
		if r := w.barRed[id]; r.op != 0 {
			w.barRed[id] = barRedDst{}
			switch r.op {
			case barRedPopc:
				d := f.r(r.dst)
				for x := held; x != 0; x &= x - 1 {
					d[bits.TrailingZeros32(x)&31] = uint64(popc)
				}
			default:
				v := anyTrue
				if r.op == barRedAnd {
					v = allTrue
				}
				if v {
					f.preds[r.dst] |= held
				} else {
					f.preds[r.dst] &^= held
				}
			}
		}
		f.blocked &^= held
		// The held lanes wait at their own PCs (already in f.pc): park
		// them there, all at once.
		f.waiting |= held
		n := f.nextWait
		if held == ^uint32(0) { // a full warp: no bit loop
			n = min(n, warpsimd.Min32(&f.pc))
		} else {
			for x := held; x != 0; x &= x - 1 {
				n = min(n, f.pc[bits.TrailingZeros32(x)])
			}
		}
		f.nextWait = n
	}
	return true
}

// laneExited updates the barrier state after n threads exited.
func (c *CTA) threadsExited(n int) {
	c.liveThreads -= n
	for id := range c.bars {
		c.tryComplete(id)
	}
	if cl := c.cl; cl != nil {
		cl.live -= n
		cl.tryComplete()
	}
}

// deadlock describes why no warp of the CTA can make progress.
func (c *CTA) deadlock() string {
	var parts []string
	for id, b := range c.bars {
		if b.arrived == 0 {
			continue
		}
		want := b.expected
		if want == 0 {
			want = c.liveThreads
		}
		var ws []string
		for _, w := range c.warps {
			if w.barHeld[id] != 0 {
				ws = append(ws, fmt.Sprint(w.id))
			}
		}
		parts = append(parts, fmt.Sprintf("barrier %d has %d of %d threads (warps %s waiting)", id, b.arrived, want, strings.Join(ws, ",")))
	}
	for _, w := range c.warps {
		if w.depth == 0 {
			continue
		}
		if f := w.top(); f.syncHeld != 0 {
			l := bits.TrailingZeros32(f.syncHeld)
			info := &f.fn.Info[f.pc[l]]
			parts = append(parts, fmt.Sprintf("warp %d: lanes %#08x wait at a warp-synchronous instruction (PTX line %d) for lanes of its membermask that never arrive", w.id, f.syncHeld, info.Line))
		}
	}
	if s := c.clusterDeadlock(); s != "" {
		parts = append(parts, s)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "no barrier can complete"
	}
	return strings.Join(parts, "; ")
}
