package sanitize

import (
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// globalRaceMax is the largest allocation whose bytes the global race
// check shadows (16 bytes of shadow per byte).
const globalRaceMax = 16 << 20

// globalShadow is the shadow of one allocation: for each byte, the block
// (index+1) and instruction of its last plain write and last plain read.
type globalShadow struct {
	wBlock, wInst, rBlock, rInst []int32
}

// globalRace finds hazards between blocks in global memory (Options.Global,
// beyond compute-sanitizer): nothing orders two blocks of one launch but
// atomics and fences, so a byte one block wrote and another reads or
// writes with plain accesses is a hazard. Atomics neither race nor count.
type globalRace struct {
	shadows map[*memspace.Allocation]*globalShadow
	hint    *memspace.Allocation
}

func (g *globalRace) access(c *checker, cta *vm.CTA, a *memspace.Access) {
	if a.Space != memspace.Global || a.Kind != memspace.Load && a.Kind != memspace.Store || c.opt.Mem == nil {
		return
	}
	me := int32(cta.Index()) + 1
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		addr := a.Addr[l]
		al := g.hint
		if al == nil || addr-al.Base >= al.Size {
			al = c.opt.Mem.Find(addr, 1)
			g.hint = al
		}
		if al == nil || al.Size > globalRaceMax {
			continue
		}
		sh := g.shadows[al]
		if sh == nil {
			n := al.Size
			sh = &globalShadow{make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)}
			g.shadows[al] = sh
		}
		off := addr - al.Base
		for b := off; b < off+uint64(a.Size) && b < al.Size; b++ {
			if a.Kind == memspace.Store {
				if w := sh.wBlock[b]; w != 0 && w != me {
					g.report(c, cta, a, l, "WAW", "Write", w, sh.wInst[b], addr)
					break
				}
				if r := sh.rBlock[b]; r != 0 && r != me {
					g.report(c, cta, a, l, "WAR", "Read", r, sh.rInst[b], addr)
					break
				}
				continue
			}
			if w := sh.wBlock[b]; w != 0 && w != me {
				g.report(c, cta, a, l, "RAW", "Write", w, sh.wInst[b], addr)
				break
			}
		}
		for b := off; b < off+uint64(a.Size) && b < al.Size; b++ {
			if a.Kind == memspace.Store {
				sh.wBlock[b], sh.wInst[b] = me, a.Origin.Inst
			} else {
				sh.rBlock[b], sh.rInst[b] = me, a.Origin.Inst
			}
		}
	}
}

func (g *globalRace) report(c *checker, cta *vm.CTA, a *memspace.Access, l int, kind, prevWhat string, prevBlock, prevInst int32, addr uint64) {
	p := c.site(prevInst, nil, 0, 0, prevWhat)
	p.Thread = [3]uint32{}
	p.Block = c.l.CTAID(int(prevBlock - 1))
	what := "Read"
	if a.Kind == memspace.Store {
		what = "Write"
	}
	n := c.site(a.Origin.Inst, cta, a.Origin.Warp, l, what)
	c.add(Racecheck, "global "+kind, SevError, fmt.Sprintf("Potential %s hazard between blocks detected", kind), []Site{p, n}, memspace.Global, int(a.Size), addr,
		fmt.Sprintf("block (%s) and block (%s) access one global byte with no ordering between them (ptxvm only: compute-sanitizer checks shared memory)", dim(p.Block), dim(n.Block)))
}
