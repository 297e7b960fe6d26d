package hier

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// maxPhaseWords bounds the distinct words one phase of a shared access can
// touch: 32 lanes of 16 bytes in 4-byte banks.
const maxPhaseWords = 128

// banks counts the wavefronts of shared-memory accesses. Within one phase
// the lanes' words are served together except that each bank delivers one
// word per wavefront: a phase takes as many wavefronts as the busiest bank
// has distinct words (a word read by many lanes is one broadcast). Wider
// accesses are served in phases of fewer lanes (see SharedConfig).
type banks struct {
	cfg      SharedConfig
	wordSh   uint // log2 bank bytes
	nb       uint32
	count    [64]uint8                 // distinct words (or, for atomics, lanes) per bank in this phase
	words    [64][maxPhaseWords]uint32 // those words
	wcount   [64][maxPhaseWords]uint8  // lanes per word (atomics)
	touched  [64]uint8                 // banks used in this phase, to reset
	ntouched int
}

func newBanks(c SharedConfig) *banks {
	return &banks{cfg: c, wordSh: uint(bits.TrailingZeros(uint(c.BankBytes))), nb: uint32(c.Banks)}
}

// wavefronts returns the wavefronts access a needs and the minimum its width
// and active lanes allow (conflicts are the difference). Atomics serialise
// lanes that update one word.
func (b *banks) wavefronts(a *memspace.Access) (wf, ideal int) {
	size := int(a.Size)
	if size == 0 {
		size = 1
	}
	atomic := a.Kind == memspace.Atomic || a.Kind == memspace.Reduction
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
	for p := 0; p < 32; p += phase {
		m := a.Mask & (uint32(1<<phase-1) << p)
		if phase == 32 {
			m = a.Mask
		}
		if m == 0 {
			continue
		}
		ideal++
		wf += b.phase(a, m, wordsPerLane, atomic)
	}
	return wf, ideal
}

// phase serves the lanes of m: the wavefronts are the most distinct words
// (atomics: lane updates) any one bank has.
func (b *banks) phase(a *memspace.Access, m uint32, wordsPerLane int, atomic bool) int {
	for i := 0; i < b.ntouched; i++ {
		b.count[b.touched[i]] = 0
	}
	b.ntouched = 0
	most := 0
	for ; m != 0; m &= m - 1 {
		w0 := uint32(a.Addr[bits.TrailingZeros32(m)] >> b.wordSh)
		for k := 0; k < wordsPerLane; k++ {
			w := w0 + uint32(k)
			bank := w % b.nb
			n := int(b.count[bank])
			if n == 0 {
				b.touched[b.ntouched] = uint8(bank)
				b.ntouched++
			}
			ws := &b.words[bank]
			j := 0
			for j < n && ws[j] != w {
				j++
			}
			if j == n {
				if n == maxPhaseWords {
					continue
				}
				ws[j] = w
				b.wcount[bank][j] = 0
				b.count[bank]++
				if !atomic && n+1 > most {
					most = n + 1
				}
			}
			b.wcount[bank][j]++
		}
	}
	if atomic {
		for i := 0; i < b.ntouched; i++ {
			bank := b.touched[i]
			t := 0
			for j := 0; j < int(b.count[bank]); j++ {
				t += int(b.wcount[bank][j])
			}
			most = max(most, t)
		}
	}
	return most
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
