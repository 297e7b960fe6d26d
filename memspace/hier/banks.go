package hier

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// maxPhaseWords bounds the words one phase of a shared access can touch:
// 32 lanes of 16 bytes in 4-byte banks.
const maxPhaseWords = 128

// banks counts the wavefronts of shared-memory accesses. Within one phase
// the lanes' words are served together except that each bank delivers one
// word per wavefront: a phase takes as many wavefronts as the busiest bank
// has distinct words (a word read by many lanes is one broadcast). Wider
// accesses are served in phases of fewer lanes (see SharedConfig).
type banks struct {
	cfg    SharedConfig
	wordSh uint // log2 bank bytes
	nb     uint32
	rowSh  uint // log2 of a row of banks' bytes (bank bytes × banks)
	// Per phase: the first word each bank saw, how many distinct words
	// (or, for atomics, lane updates) it has, and the banks' further words.
	first [64]uint32
	count [64]uint8
	used  uint64 // banks seen in this phase
	// The phase's further words (beyond each bank's first), as a hash set
	// valid for entries of generation gen: nothing is cleared per phase.
	gen   uint32
	more  [2 * maxPhaseWords]wordSlot
	nmore int
}

type wordSlot struct {
	word, gen uint32
}

func newBanks(c SharedConfig) *banks {
	sh := uint(bits.TrailingZeros(uint(c.BankBytes)))
	return &banks{cfg: c, wordSh: sh, nb: uint32(c.Banks), rowSh: sh + uint(bits.TrailingZeros(uint(c.Banks)))}
}

// wavefronts returns the wavefronts access a needs and the minimum its width
// and active lanes allow (conflicts are the difference). Atomics serialise
// every lane's update of a bank, of one word or not.
func (b *banks) wavefronts(a *memspace.Access) (wf, ideal int) {
	size := int(a.Size)
	if size == 0 {
		size = 1
	}
	// An mbarrier operation (Sync) is the synchronisation unit's: a
	// warp's arrivals on one object are one update, not one per lane.
	atomic := (a.Kind == memspace.Atomic || a.Kind == memspace.Reduction) && !a.Sync
	bb := b.cfg.BankBytes
	wordsPerLane := max(1, size/bb) // sizes are powers of two
	phase := 32
	switch {
	case size <= bb:
	case size <= 2*bb:
		phase = b.cfg.LanesPerPhase64
	default:
		phase = max(1, b.cfg.LanesPerPhase128*16/size)
	}
	if phase < 32 && size > bb && a.Kind == memspace.Load && b.cfg.PairMerge && pairUniform(a) {
		phase *= 2
	}
	if phase >= 32 {
		if !atomic && size <= bb && b.narrow(a) {
			return 1, 1
		}
		return b.phase(a, a.Mask, wordsPerLane, atomic), 1
	}
	group := uint32(1)<<phase - 1
	for p := 0; p < 32; p += phase {
		if m := a.Mask & (group << p); m != 0 {
			ideal++
			wf += b.phase(a, m, wordsPerLane, atomic)
		}
	}
	return wf, ideal
}

// phase serves the lanes of m and returns its wavefronts: the most distinct
// words (atomics: lane updates) any one bank has.
func (b *banks) phase(a *memspace.Access, m uint32, wordsPerLane int, atomic bool) int {
	b.used, b.nmore = 0, 0
	b.gen++
	if b.gen == 0 {
		b.more = [2 * maxPhaseWords]wordSlot{}
		b.gen = 1
	}
	most := 1
	for ; m != 0; m &= m - 1 {
		w0 := uint32(a.Addr[bits.TrailingZeros32(m)] >> b.wordSh)
		for k := 0; k < wordsPerLane; k++ {
			w := w0 + uint32(k)
			bank := w & (b.nb - 1)
			bit := uint64(1) << bank
			if b.used&bit == 0 {
				b.used |= bit
				b.first[bank], b.count[bank] = w, 1
				continue
			}
			if !atomic && (b.first[bank] == w || !b.insert(w)) {
				continue // a broadcast
			}
			b.count[bank]++
			most = max(most, int(b.count[bank]))
		}
	}
	return most
}

// narrow reports whether the lanes' words all lie within one stretch of
// as many words as there are banks: then no bank has two of them (the fast
// path of rows, broadcasts and row pairs).
func (b *banks) narrow(a *memspace.Access) bool {
	lo, hi := ^uint64(0), uint64(0)
	if a.Mask == ^uint32(0) {
		// Words that all lie in one aligned row of the banks (the
		// addresses agree above it with the first) are narrow: the tiled
		// matmul's rows and broadcasts.
		if xorSpan(&a.Addr)>>b.rowSh == 0 {
			return true
		}
		// Four chains of comparisons, not one: each min and max waits for
		// the one before it.
		l0, l1, l2, l3 := a.Addr[0], a.Addr[1], a.Addr[2], a.Addr[3]
		h0, h1, h2, h3 := l0, l1, l2, l3
		for i := 4; i < len(a.Addr); i += 4 {
			x := a.Addr[i : i+4 : i+4]
			l0, h0 = min(l0, x[0]), max(h0, x[0])
			l1, h1 = min(l1, x[1]), max(h1, x[1])
			l2, h2 = min(l2, x[2]), max(h2, x[2])
			l3, h3 = min(l3, x[3]), max(h3, x[3])
		}
		lo, hi = min(l0, l1, l2, l3), max(h0, h1, h2, h3)
	} else {
		for m := a.Mask; m != 0; m &= m - 1 {
			addr := a.Addr[bits.TrailingZeros32(m)&31]
			lo, hi = min(lo, addr), max(hi, addr)
		}
	}
	return hi>>b.wordSh-lo>>b.wordSh < uint64(b.nb)
}

// insert adds w to the phase's further words and reports whether it was
// new.
func (b *banks) insert(w uint32) bool {
	h := int(w*0x9E3779B1>>24) & (2*maxPhaseWords - 1)
	for b.more[h].gen == b.gen {
		if b.more[h].word == w {
			return false
		}
		h = (h + 1) & (2*maxPhaseWords - 1)
	}
	if b.nmore == maxPhaseWords {
		return false // cannot happen: a phase has at most maxPhaseWords words
	}
	b.more[h] = wordSlot{word: w, gen: b.gen}
	b.nmore++
	return true
}

// pairUniform reports whether every active lane n shares its address with
// lane n^1 (when that lane is active), or every one with lane n^2: the
// condition under which Volta and later pack two lanes' data per register
// of a wide shared load and need half the phases.
func pairUniform(a *memspace.Access) bool {
	for _, d := range [2]int{1, 2} {
		ok := true
		for m := a.Mask; m != 0 && ok; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			p := l ^ d
			ok = a.Mask&(1<<p) == 0 || a.Addr[p] == a.Addr[l]
		}
		if ok {
			return true
		}
	}
	return false
}
