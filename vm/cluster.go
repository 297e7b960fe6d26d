package vm

import (
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// Clusters
//
// A launch's blocks are grouped into clusters of Launch.Cluster blocks
// ((1,1,1) when the launch has none: every block is a cluster of one, as on
// the GPU). The blocks of a cluster run at the same time and address one
// another's shared memory through the shared::cluster window
// (memspace/cluster.go: mapa, getctarank, ld/st/atom/red.shared::cluster
// and generic accesses after mapa), and barrier.cluster.arrive/wait
// synchronise all their threads. Whoever runs a launch keeps a cluster's
// blocks resident together and runs them from one goroutine (RunPlaced,
// or Step over the SMs they are on); blocks of different clusters are as
// independent as blocks always were.

// Cluster is the state a cluster's blocks share: their shared memories by
// rank and the cluster barrier.
type Cluster struct {
	index  int    // linear cluster index in the grid (x fastest)
	size   int    // blocks in the cluster
	ctas   []*CTA // by rank; nil: not resident
	shared memspace.SharedCluster
	// resident counts the blocks admitted and not yet retired.
	resident int
	// live is the threads of the cluster that have not exited; blocks not
	// yet admitted count whole, so that the barrier cannot complete
	// before every block of the cluster has arrived.
	live int
	// arrived is the threads that arrived at barrier.cluster in the
	// current phase; phase counts the completed phases.
	arrived   int
	phase     uint32
	completed uint64
}

// Index is the cluster's linear index in the grid (x fastest).
func (cl *Cluster) Index() int { return cl.index }

// CTAs lists the cluster's blocks by rank; an entry is nil while that
// block is not resident.
func (cl *Cluster) CTAs() []*CTA { return cl.ctas }

// Resident is how many of the cluster's blocks are resident (admitted and
// not yet retired).
func (cl *Cluster) Resident() int { return cl.resident }

// BarriersCompleted is how many phases of the cluster barrier have
// completed: a timing model compares it before and after a
// barrier.cluster.arrive to tell the arrival that completes one.
func (cl *Cluster) BarriersCompleted() uint64 { return cl.completed }

// ClusterSize is the number of blocks in a cluster.
func (l *Launch) ClusterSize() int {
	d := l.clusterDims()
	return int(d[0]) * int(d[1]) * int(d[2])
}

// NumClusters is the number of clusters in the grid.
func (l *Launch) NumClusters() int { return l.NumCTAs() / max(1, l.ClusterSize()) }

// clusterDims returns the cluster shape, (1,1,1) for a launch that has
// none (a Launch built without PrepareLaunch).
func (l *Launch) clusterDims() [3]uint32 {
	d := l.Cluster
	for i := range d {
		d[i] = max(d[i], 1)
	}
	return d
}

// ClusterOf returns the cluster (linear index, x fastest) and the rank in
// it of the block at coordinates id.
func (l *Launch) ClusterOf(id [3]uint32) (cluster, rank int) {
	d := l.clusterDims()
	n := [3]uint64{uint64(l.Grid[0] / d[0]), uint64(l.Grid[1] / d[1]), uint64(l.Grid[2] / d[2])}
	c := [3]uint64{uint64(id[0] / d[0]), uint64(id[1] / d[1]), uint64(id[2] / d[2])}
	r := [3]int{int(id[0] % d[0]), int(id[1] % d[1]), int(id[2] % d[2])}
	return int(c[0] + n[0]*(c[1]+n[1]*c[2])), r[0] + int(d[0])*(r[1]+int(d[1])*r[2])
}

// ClusterBlocks appends to dst the linear indices of cluster ci's blocks,
// by rank, and returns the extended slice.
func (l *Launch) ClusterBlocks(ci int, dst []int) []int {
	d := l.clusterDims()
	n := [3]uint64{uint64(l.Grid[0] / d[0]), uint64(l.Grid[1] / d[1]), uint64(l.Grid[2] / d[2])}
	u := uint64(ci)
	c := [3]uint64{u % n[0], u / n[0] % n[1], u / (n[0] * n[1])}
	gx, gy := uint64(l.Grid[0]), uint64(l.Grid[1])
	for z := uint64(0); z < uint64(d[2]); z++ {
		for y := uint64(0); y < uint64(d[1]); y++ {
			for x := uint64(0); x < uint64(d[0]); x++ {
				bx, by, bz := c[0]*uint64(d[0])+x, c[1]*uint64(d[1])+y, c[2]*uint64(d[2])+z
				dst = append(dst, int(bx+gx*(by+gy*bz)))
			}
		}
	}
	return dst
}

// joinCluster makes block c, just admitted, a member of its cluster.
func (l *Launch) joinCluster(c *CTA) {
	ci, rank := l.ClusterOf(c.ctaid)
	c.rank = rank
	size := l.ClusterSize()
	if size <= 1 {
		cl := &c.own
		*cl = Cluster{index: ci, size: 1, ctas: cl.ctas[:0], shared: memspace.SharedCluster{Blocks: cl.shared.Blocks[:0]}}
		cl.ctas = append(cl.ctas, c)
		cl.shared.Blocks = append(cl.shared.Blocks, c.shared)
		cl.resident, cl.live = 1, l.ThreadsPerCTA()
		c.cl = cl
		return
	}
	l.clMu.Lock()
	cl := l.clusters[ci]
	if cl == nil {
		if n := len(l.clPool); n > 0 {
			cl, l.clPool = l.clPool[n-1], l.clPool[:n-1]
		} else {
			cl = &Cluster{ctas: make([]*CTA, size), shared: memspace.SharedCluster{Blocks: make([][]byte, size)}}
		}
		cl.index, cl.size = ci, size
		cl.resident, cl.arrived, cl.phase, cl.completed = 0, 0, 0, 0
		cl.live = size * l.ThreadsPerCTA()
		clear(cl.ctas)
		clear(cl.shared.Blocks)
		if l.clusters == nil {
			l.clusters = map[int]*Cluster{}
		}
		l.clusters[ci] = cl
	}
	l.clMu.Unlock()
	cl.ctas[rank] = c
	cl.shared.Blocks[rank] = c.shared
	cl.resident++
	c.cl = cl
}

// leaveCluster removes block c, being retired, from its cluster; threads
// it abandons stop counting for the cluster barrier.
func (l *Launch) leaveCluster(c *CTA) {
	cl := c.cl
	if cl == nil {
		return
	}
	c.cl = nil
	cl.ctas[c.rank] = nil
	cl.shared.Blocks[c.rank] = nil
	cl.live -= c.liveThreads
	cl.resident--
	if cl.size <= 1 || cl.resident > 0 {
		return
	}
	l.clMu.Lock()
	delete(l.clusters, cl.index)
	l.clPool = append(l.clPool, cl)
	l.clMu.Unlock()
}

// clusterArrive records lanes m of warp w arriving at barrier.cluster.
// Each lane remembers the phase it arrived in; its wait waits for that
// phase.
func (w *Warp) clusterArrive(m uint32) {
	cl := w.cta.cl
	for x := m; x != 0; x &= x - 1 {
		w.clPhase[bits.TrailingZeros32(x)&31] = cl.phase
	}
	w.clPending |= m
	cl.arrived += bits.OnesCount32(m)
	cl.tryComplete()
}

// clusterWait holds the lanes of m whose arrival's phase has not
// completed; it returns them. Lanes that did not arrive (undefined in the
// ISA) pass.
func (w *Warp) clusterWait(m uint32) uint32 {
	cl := w.cta.cl
	var hold uint32
	for x := m & w.clPending; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if w.clPhase[l] == cl.phase {
			hold |= 1 << l
		}
	}
	w.clPending &^= m &^ hold
	w.clHeld |= hold
	return hold
}

// tryComplete ends the barrier's phase once every thread of the cluster
// that has not exited has arrived, and releases the lanes held at
// barrier.cluster.wait in all its blocks.
func (cl *Cluster) tryComplete() bool {
	if cl.arrived == 0 || cl.arrived < cl.live {
		return false
	}
	cl.arrived = 0
	cl.phase++
	cl.completed++
	for _, c := range cl.ctas {
		if c == nil {
			continue
		}
		for _, w := range c.warps {
			held := w.clHeld
			if held == 0 {
				continue
			}
			w.clHeld = 0
			w.clPending &^= held
			f := w.top()
			f.blocked &^= held
			for x := held; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x)
				f.park(1<<l, f.pc[l])
			}
		}
	}
	return true
}

// clusterDeadlock describes what the block's warps wait for at
// barrier.cluster, or "".
func (c *CTA) clusterDeadlock() string {
	cl := c.cl
	if cl == nil {
		return ""
	}
	var ws []int
	for _, w := range c.warps {
		if w.clHeld != 0 {
			ws = append(ws, w.id)
		}
	}
	if len(ws) == 0 {
		return ""
	}
	return fmt.Sprintf("barrier.cluster has %d of %d threads of cluster %d (warps %v of this block waiting)", cl.arrived, cl.live, cl.index, ws)
}
