package hier

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// maxLines bounds the lines one request can touch: 32 lanes, each at most 8
// separate 4-byte words (a 32-byte interleaved local access), each in a line
// of its own.
const maxLines = 32 * 8

// lineSet is what the coalescer makes of one warp-wide access: the cache
// lines it touches, in the order the lanes first touch them, and which
// sectors of each.
type lineSet struct {
	n    int
	line [maxLines]uint64 // line number (byte address / line size)
	mask [maxLines]uint8  // bit i: sector i of the line
	last int              // index of the line touched last (a fast path)
	sec  uint64           // the sector touched last
	// A hash table from line to index, valid for entries of generation
	// gen: a request touching more than fewLines lines finds each in
	// constant time, and nothing is cleared between requests.
	gen   uint32
	table [2 * maxLines]lineSlot
	// For a store (written): per line, the bytes the lanes write in each
	// sector (a bit per byte, or per sectorBytes/32 bytes in sectors
	// larger than 32 bytes), and the sectors they write in part.
	wr   [maxLines][8]uint32
	part [maxLines]uint8
}

type lineSlot struct {
	line uint64
	gen  uint32
	idx  uint16
}

// geometry is the address arithmetic shared by the coalescer and caches.
type geometry struct {
	sectorShift uint  // log2 sector bytes
	lineShift   uint  // log2 sectors per line
	spl         uint8 // sectors per line
	full        uint8 // mask of all sectors of a line
	// Byte masks of a sector (lineSet.wr, the L2's partly written
	// sectors): a bit covers 1<<unitShift bytes; whole is every bit.
	unitShift uint
	whole     uint32
}

func newGeometry(sectorBytes, lineBytes int) geometry {
	spl := lineBytes / sectorBytes
	g := geometry{
		sectorShift: uint(bits.TrailingZeros(uint(sectorBytes))),
		lineShift:   uint(bits.TrailingZeros(uint(spl))),
		spl:         uint8(spl),
		full:        uint8(1<<spl - 1),
	}
	if g.sectorShift > 5 {
		g.unitShift = g.sectorShift - 5
	}
	g.whole = uint32(uint64(1)<<(sectorBytes>>g.unitShift) - 1)
	return g
}

func (s *lineSet) reset() {
	s.n, s.last = 0, 0
	s.gen++
	if s.gen == 0 {
		s.table = [2 * maxLines]lineSlot{}
		s.gen = 1
	}
}

// add marks the sectors of n bytes at addr.
func (s *lineSet) add(g *geometry, addr, n uint64) {
	first := addr >> g.sectorShift
	end := (addr + n - 1) >> g.sectorShift
	for sec := first; sec <= end; sec++ {
		if sec == s.sec && s.n > 0 {
			continue // neighbouring lanes in one sector
		}
		s.sec = sec
		line := sec >> g.lineShift
		bit := uint8(1) << (sec & uint64(g.spl-1))
		if s.n > 0 && s.line[s.last] == line {
			s.mask[s.last] |= bit
			continue
		}
		i := s.index(line)
		if i < 0 {
			continue // cannot happen for accesses of at most 32 bytes per lane
		}
		s.mask[i] |= bit
		s.last = i
	}
}

// fewLines is how many lines a request holds before index uses the hash
// table: up to it, the lines themselves are searched (they are in the
// host's cache; the table's slots, an SM's own, have mostly left it since
// the SM's last window).
const fewLines = 8

// index returns line's index in s, adding it (its mask 0) if it is new;
// -1 when s is full.
func (s *lineSet) index(line uint64) int {
	if s.n <= fewLines {
		for j := range s.n {
			if s.line[j] == line {
				return j
			}
		}
		if s.n < fewLines {
			s.line[s.n], s.mask[s.n] = line, 0
			s.n++
			return s.n - 1
		}
		// The request grows past fewLines: the table from here on.
		for j := range s.n {
			*s.slot(s.line[j]) = lineSlot{line: s.line[j], gen: s.gen, idx: uint16(j)}
		}
	}
	e := s.slot(line)
	if e.gen == s.gen {
		return int(e.idx)
	}
	if s.n == maxLines {
		return -1
	}
	i := s.n
	s.line[i], s.mask[i] = line, 0
	s.n++
	*e = lineSlot{line: line, gen: s.gen, idx: uint16(i)}
	return i
}

// slot returns line's slot in the hash table, or the empty one where it
// would go.
func (s *lineSet) slot(line uint64) *lineSlot {
	h := int(line*0x9E3779B97F4A7C15>>55) & (2*maxLines - 1)
	for s.table[h].gen == s.gen && s.table[h].line != line {
		h = (h + 1) & (2*maxLines - 1)
	}
	return &s.table[h]
}

// sectors is the number of distinct sectors in s.
func (s *lineSet) sectors() int {
	t := 0
	for i := 0; i < s.n; i++ {
		t += bits.OnesCount8(s.mask[i])
	}
	return t
}

// coalesce fills s with the sectors the executing lanes of a touch, keyed
// by key (which tags spaces apart). It returns the bytes the lanes asked for.
// Each lane moves a.Size bytes at a.Addr[lane], or, with a.WordStride, its
// 4-byte words at a.Addr[lane] + k·WordStride.
func coalesce(g *geometry, a *memspace.Access, key uint64, s *lineSet) (requested int) {
	s.reset()
	size := uint64(a.Size)
	if size == 0 {
		size = 1
	}
	requested = bits.OnesCount32(a.Mask) * int(size)
	if (a.WordStride == 0 || size <= 4) && size <= 1<<g.sectorShift && s.window(g, a, key, size) {
		return requested
	}
	words := uint64(1)
	chunk := size
	if a.WordStride != 0 && size > 4 {
		words, chunk = size/4, 4
	}
	for m := a.Mask; m != 0; m &= m - 1 {
		base := key | a.Addr[bits.TrailingZeros32(m)]
		for k := uint64(0); k < words; k++ {
			s.add(g, base+k*uint64(a.WordStride), chunk)
		}
	}
	return requested
}

// window is the coalescer's fast path: when every lane's bytes fall in a
// window of 64 sectors around the first lane's, the touched sectors are
// gathered in one 64-bit mask (no search per lane) and turned into lines in
// address order. It reports false, leaving s empty, when a lane falls
// outside.
func (s *lineSet) window(g *geometry, a *memspace.Access, key, size uint64) bool {
	const span = 64
	sectorBytes := uint64(1) << g.sectorShift
	lineBytes := sectorBytes << g.lineShift
	first := key | a.Addr[bits.TrailingZeros32(a.Mask)]
	// The window starts a quarter before the first lane, on a line.
	lo := first - min(first, span/4*sectorBytes)
	lo &^= lineBytes - 1
	limit := span*sectorBytes - size
	sh := g.sectorShift & 63
	last := size - 1
	// Lanes of power-of-two widths aligned to them never straddle a sector:
	// one bit each. A misaligned lane sends the access to the general path.
	var mask, mis uint64
	if a.Mask == ^uint32(0) {
		// Two lanes a step, into two masks, to keep the host's pipelines
		// busy.
		var mask2 uint64
		for l := 0; l < 32; l += 2 {
			o1 := (key | a.Addr[l]) - lo
			o2 := (key | a.Addr[l+1]) - lo
			if o1 > limit || o2 > limit {
				return false
			}
			mis |= (o1 | o2) & last
			mask |= 1 << ((o1 >> sh) & 63)
			mask2 |= 1 << ((o2 >> sh) & 63)
		}
		mask |= mask2
	} else {
		for m := a.Mask; m != 0; m &= m - 1 {
			off := (key | a.Addr[bits.TrailingZeros32(m)&31]) - lo
			if off > limit {
				return false
			}
			mis |= off & last
			mask |= 1 << ((off >> sh) & 63)
		}
	}
	if mis != 0 || size&last != 0 {
		return false
	}
	spl := uint(g.spl)
	lineMask := uint64(1)<<spl - 1
	firstLine := lo >> (g.sectorShift + g.lineShift)
	for mask != 0 {
		i := uint(bits.TrailingZeros64(mask)) / spl * spl
		s.line[s.n] = firstLine + uint64(i/spl)
		s.mask[s.n] = uint8(mask >> i & lineMask)
		s.n++
		mask &^= lineMask << i
	}
	return true
}

// written fills s.wr and s.part for store a, whose lines coalesce put in s
// (keyed by key): which bytes of each touched sector the lanes write, and
// which sectors they leave partly unwritten (the L2 must read the rest from
// DRAM before it writes such a sector back, unless later writes complete
// it). Lanes on the same bytes count once.
func (s *lineSet) written(g *geometry, a *memspace.Access, key uint64) {
	if s.whole(g, a, key) {
		for i := 0; i < s.n; i++ {
			s.part[i] = 0 // s.wr is read only for sectors written in part
		}
		return
	}
	for i := 0; i < s.n; i++ {
		s.wr[i] = [8]uint32{}
	}
	if s.n > fewLines {
		// The window path adds lines without the table: enter them
		// (entering a line again finds its own slot).
		for j := range s.n {
			*s.slot(s.line[j]) = lineSlot{line: s.line[j], gen: s.gen, idx: uint16(j)}
		}
	}
	size := uint64(max(a.Size, 1))
	words, chunk := uint64(1), size
	if a.WordStride != 0 && size > 4 {
		words, chunk = size/4, 4
	}
	sectorBytes := uint64(1) << g.sectorShift
	last := 0
	for m := a.Mask; m != 0; m &= m - 1 {
		base := key | a.Addr[bits.TrailingZeros32(m)]
		for k := uint64(0); k < words; k++ {
			addr := base + k*uint64(a.WordStride)
			for end := addr + chunk; addr < end; {
				sec := addr >> g.sectorShift
				line := sec >> g.lineShift
				off := addr & (sectorBytes - 1)
				n := min(end-addr, sectorBytes-off)
				if s.line[last] != line {
					last = s.find(line)
					if last < 0 {
						last = 0
						addr += n
						continue
					}
				}
				lo, hi := off>>g.unitShift, (off+n-1)>>g.unitShift
				s.wr[last][sec&uint64(g.spl-1)] |= uint32((uint64(1)<<(hi-lo+1) - 1) << lo)
				addr += n
			}
		}
	}
	for i := 0; i < s.n; i++ {
		var part uint8
		for m := s.mask[i]; m != 0; m &= m - 1 {
			j := bits.TrailingZeros8(m)
			if s.wr[i][j] != g.whole {
				part |= 1 << j
			}
		}
		s.part[i] = part
	}
}

// whole reports the common case that needs no byte masks: every lane of
// the warp executes and the lanes write consecutive elements from a
// sector boundary to a sector boundary, so that every touched sector is
// written whole.
func (s *lineSet) whole(g *geometry, a *memspace.Access, key uint64) bool {
	size := uint64(a.Size)
	if a.Mask != ^uint32(0) || size == 0 || a.WordStride != 0 && size > 4 {
		return false
	}
	first := key | a.Addr[0]
	sectorBytes := uint64(1) << g.sectorShift
	if first&(sectorBytes-1) != 0 || (32*size)&(sectorBytes-1) != 0 {
		return false
	}
	for l := 1; l < 32; l++ {
		if key|a.Addr[l] != first+uint64(l)*size {
			return false
		}
	}
	return true
}

// find returns the index of line in s, or -1.
func (s *lineSet) find(line uint64) int {
	if s.n <= fewLines {
		for j := range s.n {
			if s.line[j] == line {
				return j
			}
		}
		return -1
	}
	if e := s.slot(line); e.gen == s.gen {
		return int(e.idx)
	}
	return -1
}

// storeTransactionBytes is the bytes GF100 moves for the stores of one line:
// the touched 32 B segments are written in one transaction of 32, 64 or 128
// bytes, the smallest aligned one that covers them (a line's touched segments
// that are not within one aligned 64 B half take a 128 B transaction).
func storeTransactionBytes(mask uint8, spl uint8, sectorBytes int) int {
	if mask == 0 {
		return 0
	}
	lo := bits.TrailingZeros8(mask)
	hi := 7 - bits.LeadingZeros8(mask)
	span := 1
	for lo/span != hi/span {
		span <<= 1
	}
	if span > int(spl) {
		span = int(spl)
	}
	return span * sectorBytes
}

// expand widens a sector mask to whole fill units of fillSectors sectors.
func expand(mask uint8, fillSectors uint8) uint8 {
	if fillSectors <= 1 {
		return mask
	}
	unit := uint8(1)<<fillSectors - 1
	var out uint8
	for i := uint8(0); i < 8; i += fillSectors {
		if mask&(unit<<i) != 0 {
			out |= unit << i
		}
	}
	return out
}
