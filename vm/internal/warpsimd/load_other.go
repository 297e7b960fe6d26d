//go:build !amd64

package warpsimd

// LoadWords32Addr is AddKQ(addr, a, off, 0xffffffff) and then
// LoadWords32(d, addr, mem, k), with the addresses' span (load_amd64.go
// says more).
func LoadWords32Addr(d, addr, a *[32]uint64, off uint32, mem []byte, k uint32) (span uint32, ok bool) {
	return loadWords32AddrGo(d, addr, a, off, mem, k)
}
