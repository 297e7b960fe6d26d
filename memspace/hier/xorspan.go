package hier

// xorSpan is the OR over the lanes of each lane's address XORed with lane
// 0's: the bits in which some lane's address differs from the first's.
// The addresses of a full warp all lie in one aligned stretch of 2^k bytes
// when it has no bit at k or above (banks.narrow's first test).
func xorSpan(x *[32]uint64) uint64 {
	if hasAVX2 {
		return xorSpanAVX2(x)
	}
	return xorSpanGo(x)
}

// xorSpanGo is xorSpan in four chains: no loop counter, no bounds checks.
func xorSpanGo(x *[32]uint64) uint64 {
	a0 := x[0]
	d0 := (x[4] ^ a0) |
		(x[8] ^ a0) |
		(x[12] ^ a0) |
		(x[16] ^ a0) |
		(x[20] ^ a0) |
		(x[24] ^ a0) |
		(x[28] ^ a0)
	d1 := (x[1] ^ a0) |
		(x[5] ^ a0) |
		(x[9] ^ a0) |
		(x[13] ^ a0) |
		(x[17] ^ a0) |
		(x[21] ^ a0) |
		(x[25] ^ a0) |
		(x[29] ^ a0)
	d2 := (x[2] ^ a0) |
		(x[6] ^ a0) |
		(x[10] ^ a0) |
		(x[14] ^ a0) |
		(x[18] ^ a0) |
		(x[22] ^ a0) |
		(x[26] ^ a0) |
		(x[30] ^ a0)
	d3 := (x[3] ^ a0) |
		(x[7] ^ a0) |
		(x[11] ^ a0) |
		(x[15] ^ a0) |
		(x[19] ^ a0) |
		(x[23] ^ a0) |
		(x[27] ^ a0) |
		(x[31] ^ a0)
	return d0 | d1 | d2 | d3
}
