package warpsimd

import "testing"

// Without AVX2 (hasFMA false) LoadWords32Addr's assembly jumps to
// loadWords32AddrGo with its own arguments: the same answers.
func TestLoadWords32AddrGeneric(t *testing.T) {
	was := hasFMA
	hasFMA = false
	defer func() { hasFMA = was }()
	checkLoadWords32Addr(t)
}
