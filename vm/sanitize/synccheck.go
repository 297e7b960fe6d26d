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
}

func (s *syncState) beginCTA() {
	for i := range s.arrived {
		s.arrived[i] = s.arrived[i][:0]
	}
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
	case vm.SyncWarp:
		s.warpSync(c, e)
	}
}

// done checks a completed barrier: were its threads at one instruction?
// As compute-sanitizer reports it: a warp whose lanes arrived at
// different barrier instructions has "divergent thread(s) in warp", the
// lanes that arrived before the warp's last group; among the other
// warps, threads at another instruction than the first arrival's have
// "divergent thread(s) in block".
func (s *syncState) done(c *checker, cta *vm.CTA, arr []arrival) {
	if len(arr) < 2 {
		return
	}
	first := arr[0].inst
	same := true
	for _, a := range arr[1:] {
		if a.inst != first {
			same = false
		}
	}
	if same {
		return
	}
	lastOf := map[int32]int32{} // warp -> the instruction of its last group
	split := map[int32]bool{}   // warps with lanes at different instructions
	for _, a := range arr {
		if p, ok := lastOf[a.warp]; ok && p != a.inst {
			split[a.warp] = true
		}
		lastOf[a.warp] = a.inst
	}
	ref := c.site(first, cta, arr[0].warp, arr[0].lane, "")
	detail := fmt.Sprintf("the barrier completed with threads at %s", ref.line(c.l.Module.Filename))
	for _, a := range arr {
		kind, title := "divergent barrier in block", "Barrier error detected. Divergent thread(s) in block"
		switch {
		case split[a.warp]:
			if a.inst == lastOf[a.warp] {
				continue
			}
			kind, title = "divergent barrier in warp", "Barrier error detected. Divergent thread(s) in warp"
		case a.inst == first:
			continue
		}
		for x := a.lanes; x != 0; x &= x - 1 {
			site := c.site(a.inst, cta, a.warp, bits.TrailingZeros32(x), "")
			c.add(Synccheck, kind, SevError, title, []Site{site}, memspace.Generic, 0, 0, detail)
		}
	}
}

// warpSync checks that the lanes synchronising together name one mask.
// (A mask naming lanes that exit without reaching a __syncwarp completes
// when they exit; compute-sanitizer reports nothing then, nor do we.)
func (s *syncState) warpSync(c *checker, e *vm.SyncEvent) {
	all := e.Active | e.Foreign
	if all == 0 {
		return
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
	// A barrier count that is not a multiple of 32 is an illegal
	// instruction that memcheck reports; synccheck reports nothing.
	switch info.Inst().Op {
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
