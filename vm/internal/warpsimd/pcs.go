package warpsimd

// The per-lane PCs of a warp's frame (32 int32): a full warp's bar.sync
// sets all of them, the barrier's completion takes their minimum, and the
// frame then gathers the lanes waiting at that PC. Each is a lane loop of
// two or three host instructions a lane in Go; with AVX2, eight lanes at
// a time.

// Fill32 sets every lane of p to v.
func Fill32(p *[32]int32, v int32) {
	if hasFMA {
		fill32AVX2(p, v)
		return
	}
	for l := range p {
		p[l] = v
	}
}

// Min32 returns the smallest lane of p (signed).
func Min32(p *[32]int32) int32 {
	if hasFMA {
		return min32AVX2(p)
	}
	return min32Go(p)
}

func min32Go(p *[32]int32) int32 {
	n := p[0]
	for _, v := range p {
		n = min(n, v)
	}
	return n
}

// Eq32 returns the lanes of p that hold v, lane l as bit l.
func Eq32(p *[32]int32, v int32) uint32 {
	if hasFMA {
		return eq32AVX2(p, v)
	}
	return eq32Go(p, v)
}

func eq32Go(p *[32]int32, v int32) uint32 {
	var m uint32
	for l, x := range p {
		if x == v {
			m |= 1 << l
		}
	}
	return m
}
