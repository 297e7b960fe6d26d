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
}

func newRaceState() *raceState { return &raceState{epoch: 1} }

func (r *raceState) beginCTA() {
	r.epoch++
	for i := range r.log {
		r.log[i] = r.log[i][:0]
	}
}

func (r *raceState) warps(n int) {
	for len(r.seq) < n {
		r.seq = append(r.seq, 0)
		r.log = append(r.log, nil)
	}
}

// sync advances the epoch at a barrier's completion and logs __syncwarps.
func (r *raceState) sync(e *vm.SyncEvent) {
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
	}
}

// ordered reports whether earlier access a is ordered before an access by
// thread t now: the same thread, an earlier epoch, or the same warp with a
// __syncwarp since a that both lanes took part in.
func (r *raceState) ordered(a *access, t int32) bool {
	if a.epoch != r.epoch || a.thread == t {
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
func (r *raceState) access(c *checker, cta *vm.CTA, a *memspace.Access) {
	if a.Kind == memspace.Atomic || a.Kind == memspace.Reduction {
		return // atomics do not race
	}
	sh := cta.Shared()
	if len(r.cells) < len(sh) {
		r.cells = append(r.cells, make([]raceCell, len(sh)-len(r.cells))...)
	}
	warp := a.Origin.Warp
	r.warps(int(warp) + 1)
	seq := r.seq[warp]
	write := a.Kind == memspace.Store
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		t := int32(int(warp)*vm.WarpSize + l)
		addr := a.Addr[l]
		now := access{epoch: r.epoch, thread: t, inst: a.Origin.Inst, seq: seq}
		for b := uint64(0); b < uint64(a.Size); b++ {
			i := addr + b
			if i >= uint64(len(sh)) {
				break
			}
			cell := &r.cells[i]
			if !write {
				if cell.w.epoch == r.epoch && !r.ordered(&cell.w, t) {
					r.report(c, cta, "RAW", &cell.w, "Write", now, "Read", a, i)
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
				if e := b / es; es > 0 && e < 4 && a.Values[e] != nil {
					v = byte(a.Values[e][l] >> (8 * (b % es)))
				}
			}
			// A write of the byte's value is harmless whatever the order:
			// compute-sanitizer keeps such hazards at its info level,
			// which it does not print by default.
			if cell.w.epoch == r.epoch && !r.ordered(&cell.w, t) && cell.val != v {
				r.report(c, cta, "WAW", &cell.w, "Write", now, "Write", a, i)
			}
			for _, rd := range []*access{&cell.r1, &cell.r2} {
				if rd.epoch == r.epoch && !r.ordered(rd, t) {
					r.report(c, cta, "WAR", rd, "Read", now, "Write", a, i)
					break
				}
			}
			cell.w, cell.val = now, v
		}
	}
}

// report adds a hazard at byte addr between earlier access prev and
// access now. Between lanes of one warp at different instructions it is
// a warning, as compute-sanitizer's "(Warp Level Programming)" hazards
// are; between warps, or lanes of one instruction, an error.
func (r *raceState) report(c *checker, cta *vm.CTA, kind string, prev *access, prevWhat string, now access, nowWhat string, a *memspace.Access, addr uint64) {
	sev := SevError
	title := fmt.Sprintf("Potential %s hazard detected", kind)
	if prev.thread/vm.WarpSize == now.thread/vm.WarpSize && prev.inst != now.inst {
		sev = SevWarning
		title = fmt.Sprintf("(Warp Level Programming) Potential %s hazard detected", kind)
	}
	p := c.site(prev.inst, cta, prev.thread/vm.WarpSize, int(prev.thread%vm.WarpSize), prevWhat)
	n := c.site(now.inst, cta, now.thread/vm.WarpSize, int(now.thread%vm.WarpSize), nowWhat)
	c.addRace(kind, sev, title, []Site{p, n}, int(a.Size), addr)
}
