package timing

import (
	"math"
	"math/bits"
	"slices"
)

// The shared-memory atomics ptxas makes compare-and-store loops
// (sasscost.CASLoop; gpu.SharedCAS says what they cost).
//
// A round of the loop is an LDS of the word, the operation, an
// ATOMS.CAST.SPIN and a branch back for the lanes whose store failed. The
// store is a "fast fail": of the lanes whose addresses fall in one bank
// (64-bit words: one bank of one half-warp) one tries and the others fail,
// and a lane whose word another lane changed in the round fails its
// compare. So a warp whose 32 lanes update one word takes 32 rounds, one
// whose lanes update 32 words of one bank 32, one whose lanes each have a
// bank of their own one. Updates of one word by other warps take turns:
// each holds the word for a time (WordCycles), and a round whose store
// finds the word held ends that much later (the H100's 8 and 32 warps on
// one word: one update per 41 cycles, .f32, whatever the warps).

// casWord is a shared-memory word the loops update: its block, address and
// the starts of the updates that hold it, sorted (each holds it for the
// word cycles).
type casWord struct {
	cta, addr uint64
	busy      []float64
}

// casLoop runs the loop of shared atomic in, issued at start, over the
// lanes of the SM's step: the rounds it takes, the cycle its last round
// ends and the wavefronts its loads and stores take on the data path.
func (s *sm) casLoop(in *inst, start uint64) (rounds int, done uint64, wf int) {
	q := &s.r.cfg.SharedCAS
	round, hold, size := q.RoundCycles32, q.WordCycles32, uint64(4)
	if in.cas == 64 {
		round, hold, size = q.RoundCycles64, q.WordCycles64, 8
	}
	t := float64(start)
	s.casPrune(t - 4*round)
	for i := range s.st.Accesses {
		a := &s.st.Accesses[i]
		var key [32]uint8
		for m := a.Mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			key[l] = uint8(a.Addr[l]>>2) & 31
			if size == 8 {
				key[l] += 32 * uint8(l>>4)
			}
		}
		rem := a.Mask
		for rem != 0 {
			rounds++
			// The round's LDS: as many wavefronts as the busiest bank
			// has words among the lanes left (a half-warp at a time for
			// 64-bit words); its store one.
			lds := casLoadWavefronts(a.Addr[:], &key, rem, size)
			wf += lds + 1
			if size == 8 && rem&0xffff != 0 && rem>>16 != 0 {
				wf++
			}
			end := t + round + float64(lds-1)*q.WavefrontCycles
			store := end - q.ReturnCycles
			var tried uint64
			var words [32]uint64
			nw := 0
			for m := rem; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				if tried&(1<<key[l]) != 0 {
					continue // the bank's other lanes fail fast
				}
				tried |= 1 << key[l]
				w := a.Addr[l] &^ (size - 1)
				if slices.Contains(words[:nw], w) {
					continue // the word changed this round: its compare fails
				}
				words[nw] = w
				nw++
				c := s.casReserve(a.Origin.CTA, w, store, hold)
				end = max(end, c+q.ReturnCycles)
				rem &^= 1 << l
			}
			t = end
		}
	}
	return max(rounds, 1), uint64(math.Ceil(t)), max(wf, 1)
}

// casLoadWavefronts is the wavefronts of a load by the lanes of rem at
// addr (words of size bytes; key: each lane's bank, and half-warp for
// 64-bit words): per half-warp or warp, the most distinct words of one
// bank, summed.
func casLoadWavefronts(addr []uint64, key *[32]uint8, rem uint32, size uint64) int {
	var most [2]int
	var count [64]uint8
	for m := rem; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		w := addr[l] &^ (size - 1)
		dup := false
		for p := rem & (1<<l - 1); p != 0; p &= p - 1 {
			j := bits.TrailingZeros32(p)
			if key[j] == key[l] && addr[j]&^(size-1) == w {
				dup = true
				break
			}
		}
		if dup {
			continue // a broadcast
		}
		count[key[l]]++
		most[key[l]>>5] = max(most[key[l]>>5], int(count[key[l]]))
	}
	return max(1, most[0]+most[1])
}

// casKey names a word the loops update: its block and address.
type casKey struct{ cta, addr uint64 }

// casReserve books the earliest update of word addr of block cta at or
// after cycle c that no other update of it overlaps (each holds the word
// for hold cycles), and returns its start.
func (s *sm) casReserve(cta, addr uint64, c, hold float64) float64 {
	if s.casIndex == nil {
		s.casIndex = map[casKey]int32{}
	}
	i, ok := s.casIndex[casKey{cta, addr}]
	if !ok {
		i = int32(len(s.casWords))
		s.casWords = append(s.casWords, casWord{cta: cta, addr: addr})
		s.casIndex[casKey{cta, addr}] = i
	}
	wd := &s.casWords[i]
	at := 0
	for i, b := range wd.busy {
		if b+hold <= c {
			at = i + 1
			continue
		}
		if b >= c+hold {
			break
		}
		c = b + hold
		at = i + 1
	}
	wd.busy = slices.Insert(wd.busy, at, c)
	return c
}

// casPrune forgets the updates that ended before cycle t (no loop books
// one that early again) and the words left with none. It runs at most once
// per window of the oldest booking's age, so that a warp's loop does not
// walk every word.
func (s *sm) casPrune(t float64) {
	if t < s.casPruned {
		return
	}
	s.casPruned = t + float64(s.r.cfg.SharedCAS.RoundCycles64)*4
	k := 0
	for _, wd := range s.casWords {
		n := 0
		for n < len(wd.busy) && wd.busy[n] < t {
			n++
		}
		wd.busy = wd.busy[n:]
		if len(wd.busy) > 0 {
			s.casWords[k] = wd
			k++
		}
	}
	clear(s.casWords[k:])
	s.casWords = s.casWords[:k]
	clear(s.casIndex)
	for i := range s.casWords {
		s.casIndex[casKey{s.casWords[i].cta, s.casWords[i].addr}] = int32(i)
	}
}
