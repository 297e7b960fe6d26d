//go:build !amd64

package warpsimd

func fill32AVX2(p *[32]int32, v int32) {
	for l := range p {
		p[l] = v
	}
}

func min32AVX2(p *[32]int32) int32 { return min32Go(p) }

func eq32AVX2(p *[32]int32, v int32) uint32 { return eq32Go(p, v) }
