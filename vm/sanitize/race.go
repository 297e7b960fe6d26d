package sanitize

import (
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// raceCell is the shadow of one byte of shared memory: its last write and
// up to two distinct readers since, each with the barrier epoch it
// happened in (0: none), the thread (index in the block), the instruction
// and the warp's __syncwarp sequence number at the time.
type raceCell struct {
	w, r1, r2 access
	val       byte // the byte the last write left
}

type access struct {
	epoch  uint32
	thread int32
	inst   int32
	seq    uint32
	tick   uint32 // the thread's mbarrier releases before it (mbarClock)
}

// warpSync is one __syncwarp of a warp: its sequence number and members.
type warpSync struct {
	seq   uint32
	lanes uint32
}

// raceState is racecheck's shadow of one block at a time. Epochs count the
// block's barrier completions and keep counting across blocks, so that the
// shadow never needs clearing: a cell whose epoch is not the current one
// is ordered before every access now.
type raceState struct {
	cells []raceCell
	epoch uint32
	seq   []uint32     // per warp: __syncwarps so far
	log   [][]warpSync // per warp: the __syncwarps of this epoch
	mb    mbarClock
}

func newRaceState() *raceState { return &raceState{epoch: 1} }

func (r *raceState) beginCTA() {
	r.epoch++
	for i := range r.log {
		r.log[i] = r.log[i][:0]
	}
	r.mb.reset()
}

// mbarClock is the order mbarriers give, as vector clocks over the
// block's threads, kept from a block's first mbarrier event on (nil slices
// before: a kernel without mbarriers pays nothing). A thread's tick counts
// its releases (an arrive, arrive_drop, expect_tx or complete_tx on an
// object, or the arrive-on of its cp.async.mbarrier.arrive): its accesses
// with a tick below t's entry in know[u] are ordered before thread u's
// accesses now. An arrival joins what the thread knows, and its own
// release, into the object's current phase; the phase's completion adds
// it to what the object has released; a test_wait or try_wait that finds
// its phase complete joins that into the waiter's knowledge.
type mbarClock struct {
	n    int      // threads the clocks cover (whole warps)
	tick []uint32 // per thread
	know []uint32 // n*n: know[u*n+t]
	objs map[uint64]*mbarObj
}

// mbarObj is one mbarrier object's clocks: its current phase's arrivals
// and all that its completed phases released.
type mbarObj struct {
	pending, released []uint32
}

func (m *mbarClock) on() bool { return m.n != 0 }

func (m *mbarClock) reset() {
	if m.n == 0 {
		return
	}
	m.n = 0
}

// start sizes the clocks for a block of warps warps.
func (m *mbarClock) start(warps int) {
	n := warps * vm.WarpSize
	if m.n >= n {
		return
	}
	if cap(m.tick) < n {
		m.tick = make([]uint32, n)
		m.know = make([]uint32, n*n)
	}
	m.tick, m.know = m.tick[:n], m.know[:n*n]
	clear(m.tick)
	clear(m.know)
	clear(m.objs)
	if m.objs == nil {
		m.objs = map[uint64]*mbarObj{}
	}
	m.n = n
}

func (m *mbarClock) obj(addr uint64) *mbarObj {
	o := m.objs[addr]
	if o == nil {
		o = &mbarObj{pending: make([]uint32, m.n), released: make([]uint32, m.n)}
		m.objs[addr] = o
	}
	return o
}

func join(dst, src []uint32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// arrive: lanes of warp arrive on the object at addr; done when the phase
// completed.
func (m *mbarClock) arrive(warp int, lanes uint32, addr uint64, done bool) {
	o := m.obj(addr)
	for x := lanes; x != 0; x &= x - 1 {
		t := warp*vm.WarpSize + bits.TrailingZeros32(x)
		if t >= m.n {
			continue
		}
		m.tick[t]++
		join(o.pending, m.know[t*m.n:(t+1)*m.n])
		o.pending[t] = max(o.pending[t], m.tick[t])
	}
	if done {
		join(o.released, o.pending)
		clear(o.pending)
	}
}

// wait: lanes of warp found their phase of the object at addr complete.
func (m *mbarClock) wait(warp int, lanes uint32, addr uint64) {
	o := m.obj(addr)
	for x := lanes; x != 0; x &= x - 1 {
		u := warp*vm.WarpSize + bits.TrailingZeros32(x)
		if u < m.n {
			join(m.know[u*m.n:(u+1)*m.n], o.released)
		}
	}
}

// ticks is thread t's tick now (0 without mbarriers).
func (m *mbarClock) ticks(t int32) uint32 {
	if int(t) < len(m.tick) && m.n != 0 {
		return m.tick[t]
	}
	return 0
}

func (r *raceState) warps(n int) {
	for len(r.seq) < n {
		r.seq = append(r.seq, 0)
		r.log = append(r.log, nil)
	}
}

// sync advances the epoch at a barrier's completion and logs __syncwarps.
func (r *raceState) sync(c *checker, e *vm.SyncEvent) {
	switch e.Kind {
	case vm.SyncBarrierDone:
		r.epoch++
		for i := range r.log {
			r.log[i] = r.log[i][:0]
		}
	case vm.SyncWarp:
		w := e.Warp.ID()
		r.warps(w + 1)
		r.seq[w]++
		r.log[w] = append(r.log[w], warpSync{seq: r.seq[w], lanes: e.Lanes | e.Foreign})
	case vm.SyncMbarArrive, vm.SyncMbarWait:
		r.mb.start(len(e.CTA.Warps()))
		if e.Kind == vm.SyncMbarArrive {
			r.mb.arrive(e.Warp.ID(), e.Lanes, e.Addr, e.Done)
		} else {
			r.mb.wait(e.Warp.ID(), e.Lanes, e.Addr)
		}
	case vm.SyncAsyncDone:
		// The copy's bytes land now: a write by its thread, at its
		// cp.async.
		w := e.Warp.ID()
		r.warps(w + 1)
		t := int32(w*vm.WarpSize + bits.TrailingZeros32(e.Lanes))
		now := access{epoch: r.epoch, thread: t, inst: e.Inst, seq: r.seq[w], tick: r.mb.ticks(t)}
		sh := e.CTA.Shared()
		r.grow(len(sh))
		for b := uint64(0); b < uint64(e.Count); b++ {
			i := e.Addr + b
			if i >= uint64(len(sh)) {
				break
			}
			r.write(c, e.CTA, i, now, sh[i], e.Count)
		}
	}
}

func (r *raceState) grow(n int) {
	if len(r.cells) < n {
		r.cells = append(r.cells, make([]raceCell, n-len(r.cells))...)
	}
}

// ordered reports whether earlier access a is ordered before an access by
// thread t now: the same thread, an earlier epoch, or the same warp with a
// __syncwarp since a that both lanes took part in.
func (r *raceState) ordered(a *access, t int32) bool {
	if a.epoch != r.epoch || a.thread == t {
		return true
	}
	if m := &r.mb; m.n != 0 && int(t) < m.n && int(a.thread) < m.n && a.tick < m.know[int(t)*m.n+int(a.thread)] {
		return true
	}
	wa, wt := a.thread/vm.WarpSize, t/vm.WarpSize
	if wa != wt || int(wa) >= len(r.log) {
		return false
	}
	both := uint32(1)<<(a.thread%vm.WarpSize) | uint32(1)<<(t%vm.WarpSize)
	for _, s := range r.log[wa] {
		if s.seq > a.seq && s.lanes&both == both {
			return true
		}
	}
	return false
}

// access checks and records a warp-wide shared-memory access, byte by
// byte: each conflicting byte is one hazard, as compute-sanitizer counts.
// A cp.async's store is left to its landing (SyncAsyncDone).
func (r *raceState) access(c *checker, cta *vm.CTA, a *memspace.Access) {
	if a.Kind == memspace.Atomic || a.Kind == memspace.Reduction {
		return // atomics do not race
	}
	if a.Kind == memspace.Store && c.isAsync(a.Origin.Inst) {
		return
	}
	sh := cta.Shared()
	r.grow(len(sh))
	warp := a.Origin.Warp
	r.warps(int(warp) + 1)
	seq := r.seq[warp]
	write := a.Kind == memspace.Store
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		t := int32(int(warp)*vm.WarpSize + l)
		addr := a.Addr[l]
		now := access{epoch: r.epoch, thread: t, inst: a.Origin.Inst, seq: seq, tick: r.mb.ticks(t)}
		for b := uint64(0); b < uint64(a.Size); b++ {
			i := addr + b
			if i >= uint64(len(sh)) {
				break
			}
			cell := &r.cells[i]
			if !write {
				if cell.w.epoch == r.epoch && !r.ordered(&cell.w, t) {
					r.report(c, cta, "RAW", &cell.w, "Write", now, "Read", int(a.Size), i)
				}
				switch {
				case cell.r1.epoch != r.epoch || cell.r1.thread == t:
					cell.r1 = now
				default:
					cell.r2 = now
				}
				continue
			}
			v := sh[i]
			if a.Values != nil && a.Elems > 0 {
				es := uint64(a.Size) / uint64(a.Elems)
				if e := b / es; es > 0 && e < uint64(len(a.Values)) && a.Values[e] != nil {
					v = byte(a.Values[e][l] >> (8 * (b % es)))
				}
			}
			r.write(c, cta, i, now, v, int(a.Size))
		}
	}
}

// write checks and records access now writing v to byte i.
func (r *raceState) write(c *checker, cta *vm.CTA, i uint64, now access, v byte, size int) {
	cell := &r.cells[i]
	t := now.thread
	// A write of the byte's value is harmless whatever the order:
	// compute-sanitizer keeps such hazards at its info level, which it
	// does not print by default.
	if cell.w.epoch == r.epoch && !r.ordered(&cell.w, t) && cell.val != v {
		r.report(c, cta, "WAW", &cell.w, "Write", now, "Write", size, i)
	}
	for _, rd := range [2]*access{&cell.r1, &cell.r2} {
		if rd.epoch == r.epoch && !r.ordered(rd, t) {
			r.report(c, cta, "WAR", rd, "Read", now, "Write", size, i)
			break
		}
	}
	cell.w, cell.val = now, v
}

// report adds a hazard at byte addr between earlier access prev and
// access now. Between lanes of one warp at different instructions it is
// a warning, as compute-sanitizer's "(Warp Level Programming)" hazards
// are; between warps, or lanes of one instruction, an error.
func (r *raceState) report(c *checker, cta *vm.CTA, kind string, prev *access, prevWhat string, now access, nowWhat string, size int, addr uint64) {
	sev := SevError
	title := fmt.Sprintf("Potential %s hazard detected", kind)
	if prev.thread/vm.WarpSize == now.thread/vm.WarpSize && prev.inst != now.inst {
		sev = SevWarning
		title = fmt.Sprintf("(Warp Level Programming) Potential %s hazard detected", kind)
	}
	p := c.site(prev.inst, cta, prev.thread/vm.WarpSize, int(prev.thread%vm.WarpSize), prevWhat)
	n := c.site(now.inst, cta, now.thread/vm.WarpSize, int(now.thread%vm.WarpSize), nowWhat)
	c.addRace(kind, sev, title, []Site{p, n}, size, addr)
}
