package warpsimd

// fill32AVX2, min32AVX2 and eq32AVX2 are Fill32, Min32 and Eq32 eight
// lanes at a time (pcs_amd64.s).
//
//go:noescape
func fill32AVX2(p *[32]int32, v int32)

//go:noescape
func min32AVX2(p *[32]int32) int32

//go:noescape
func eq32AVX2(p *[32]int32, v int32) uint32
