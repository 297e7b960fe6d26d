package memspace

// prefetch asks the host to bring the cache line holding *p towards its
// caches (PREFETCHT0): a hint, which neither faults nor changes memory.
//
//go:noescape
func prefetch(p *byte)
