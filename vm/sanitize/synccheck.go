package sanitize

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// arrival is one group of lanes of a warp arriving at a barrier.
type arrival struct {
	warp  int32
	lane  int // first lane
	lanes uint32
	inst  int32
}

// syncState is synccheck's record of the running block: the arrivals at
// each barrier since it last completed.
type syncState struct {
	arrived [16][]arrival
	// waitAlive[warp][lane]: the warp's lanes alive when the lane arrived
	// at a bar.warp.sync and had to wait (0: not waiting).
	waitAlive [][32]uint32
}

func (s *syncState) beginCTA() {
	for i := range s.arrived {
		s.arrived[i] = s.arrived[i][:0]
	}
	clear(s.waitAlive)
}

func (s *syncState) sync(c *checker, e *vm.SyncEvent) {
	switch e.Kind {
	case vm.SyncBarrier:
		if e.Arrive || e.Lanes == 0 || e.Barrier < 0 || e.Barrier >= len(s.arrived) {
			return
		}
		s.arrived[e.Barrier] = append(s.arrived[e.Barrier], arrival{warp: int32(e.Warp.ID()), lane: bits.TrailingZeros32(e.Lanes), lanes: e.Lanes, inst: e.Info.ID})
	case vm.SyncBarrierDone:
		if e.Barrier >= 0 && e.Barrier < len(s.arrived) {
			s.done(c, e.CTA, s.arrived[e.Barrier])
			s.arrived[e.Barrier] = s.arrived[e.Barrier][:0]
		}
	case vm.SyncWarpWait:
		w := e.Warp.ID()
		for len(s.waitAlive) <= w {
			s.waitAlive = append(s.waitAlive, [32]uint32{})
		}
		alive := e.Warp.Lanes() &^ e.Warp.Exited()
		for x := e.Active; x != 0; x &= x - 1 {
			if l := bits.TrailingZeros32(x); s.waitAlive[w][l] == 0 {
				s.waitAlive[w][l] = alive
			}
		}
	case vm.SyncWarp:
		s.warpSync(c, e)
	}
}

// done checks a completed barrier: were its threads at one instruction?
func (s *syncState) done(c *checker, cta *vm.CTA, arr []arrival) {
	if len(arr) < 2 {
		return
	}
	first := arr[0].inst
	same := true
	for _, a := range arr {
		if a.inst != first {
			same = false
		}
	}
	if same {
		return
	}
	// In a warp: lanes of one warp at different barrier instructions.
	inWarp := false
	for i, a := range arr {
		for _, b := range arr[i+1:] {
			if a.warp == b.warp && a.inst != b.inst {
				inWarp = true
				s.report(c, cta, "divergent barrier in warp", "Barrier error detected. Divergent thread(s) in warp", a, b)
			}
		}
	}
	if inWarp {
		return
	}
	for _, b := range arr[1:] {
		if b.inst != first {
			s.report(c, cta, "divergent barrier in block", "Barrier error detected. Divergent thread(s) in block", arr[0], b)
			return
		}
	}
}

func (s *syncState) report(c *checker, cta *vm.CTA, kind, title string, a, b arrival) {
	sa := c.site(a.inst, cta, a.warp, a.lane, "")
	sb := c.site(b.inst, cta, b.warp, b.lane, "")
	c.add(Synccheck, kind, SevError, title, []Site{sa, sb}, memspace.Generic, 0, 0,
		fmt.Sprintf("warp %d lanes %#08x and warp %d lanes %#08x completed one barrier at different instructions", a.warp, a.lanes, b.warp, b.lanes))
}

// warpSync checks that the lanes synchronising together name one mask,
// and that no lane named was alive and elsewhere when they arrived (it
// exited later without reaching a __syncwarp: the barrier completed
// without it).
func (s *syncState) warpSync(c *checker, e *vm.SyncEvent) {
	all := e.Active | e.Foreign
	if all == 0 {
		return
	}
	if w := e.Warp.ID(); w < len(s.waitAlive) {
		wa := &s.waitAlive[w]
		for x := all; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x)
			if absent := e.Members[l] &^ all & wa[l]; absent != 0 && e.Members[l]>>l&1 != 0 {
				site := c.site(e.Info.ID, e.CTA, int32(w), l, "")
				c.add(Synccheck, "syncwarp lanes never arrive", SevError, "Barrier error detected. Divergent thread(s) in warp", []Site{site}, memspace.Generic, 0, 0,
					fmt.Sprintf("membermask %#08x names lanes %#08x that were running elsewhere and never reached a __syncwarp with it", e.Members[l], absent))
				break
			}
		}
		for x := all; x != 0; x &= x - 1 {
			wa[bits.TrailingZeros32(x)] = 0
		}
	}
	l0 := bits.TrailingZeros32(all)
	m0 := e.Members[l0]
	for x := all; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		if e.Members[l] == m0 {
			continue
		}
		site := c.site(e.Info.ID, e.CTA, int32(e.Warp.ID()), l0, "")
		var masks []string
		seen := map[uint32]bool{}
		for y := all; y != 0; y &= y - 1 {
			m := e.Members[bits.TrailingZeros32(y)]
			if !seen[m] {
				seen[m] = true
				masks = append(masks, fmt.Sprintf("%#08x", m))
			}
		}
		c.add(Synccheck, "syncwarp mask mismatch", SevError, "Barrier error detected. Divergent thread(s) in warp", []Site{site}, memspace.Generic, 0, 0,
			"lanes synchronising together name different membermasks: "+strings.Join(masks, ", "))
		return
	}
}

// fault claims the illegal barrier instructions.
func (s *syncState) fault(c *checker, ft *vm.Fault, info *vm.InstInfo, site Site) bool {
	if !errors.Is(ft, vm.ErrIllegalInstruction) || info == nil {
		return false
	}
	switch info.Inst().Op {
	case vm.OpBar:
		c.add(Synccheck, "invalid barrier count", SevError, "Barrier error detected. Invalid arguments", []Site{site}, memspace.Generic, 0, 0, ft.Msg)
	case vm.OpWarpSync:
		c.add(Synccheck, "syncwarp mask excludes lane", SevError, "Barrier error detected. Invalid arguments", []Site{site}, memspace.Generic, 0, 0, ft.Msg)
	default:
		return false
	}
	return true
}

// deadlock claims a block that hangs because lanes wait at a warp sync
// for lanes that never arrive (they wait at a barrier): the GPU hangs.
func (s *syncState) deadlock(c *checker, err error) bool {
	found := false
	// The block was retired when RunCTA returned; its warps keep their
	// state until the SM admits another.
	if cta := c.cta; cta != nil {
		for _, w := range cta.Warps() {
			info, held := w.WaitingAt()
			if info == nil {
				continue
			}
			found = true
			site := c.site(info.ID, cta, int32(w.ID()), bits.TrailingZeros32(held), "")
			c.add(Synccheck, "syncwarp lanes never arrive", SevError, "Barrier error detected. Divergent thread(s) in warp", []Site{site}, memspace.Generic, 0, 0,
				fmt.Sprintf("lanes %#08x wait for lanes of the membermask that never arrive: the GPU hangs (%v)", held, err))
		}
	}
	return found
}
