package memspace

// PrefetchWords asks the host's caches for the lines that a full warp's
// next 4-byte global access will read if every lane's address moves on by
// d bytes from a's: the caller (the VM) has seen the same instruction of
// the same warp move by d twice running. It changes no memory and no state
// of the view, faults on nothing, and does nothing for a line outside the
// allocation a's last fast load reached (v.hint), for a page of a sparse
// allocation not written and past its initial contents, for an
// allocation smaller than DenseLimit (which the host's caches likely hold
// whole: a prefetch would cost and win nothing), or when a is not
// such an access. It looks at five lanes' addresses (below), not all 32:
// a hint may miss lines of a scattered warp.
//
// The tiled multiply's tile loads at 1024² read each row of B from a
// different host page; the host's own prefetchers, which watch the one
// load instruction of loadWords32 for all of a launch's global loads, do
// not see the stride, and each warp load waited for two lines from memory
// (docs/performance.md, eighth pass).
func (v *View) PrefetchWords(a *Access, d uint64) {
	h := v.hint
	if h == nil || h.Size < DenseLimit || a.Space != Global || a.Mask != ^uint32(0) {
		return // an allocation under 1 MiB: likely in the host's L2 already
	}
	// Lanes 0, 8, 16, 24 and 31: the lines of a warp reading rows of
	// words (one to four of them) without a pass over every lane.
	prev := ^uint64(0)
	for _, l := range [...]int{0, 8, 16, 24, 31} {
		o := a.Addr[l] + d - h.Base
		if o>>6 == prev || o >= h.Size {
			continue
		}
		prev = o >> 6
		if h.Data != nil {
			if o < uint64(len(h.Data)) {
				prefetch(&h.Data[o])
			}
			continue
		}
		if i := o >> PageShift; i >= uint64(len(h.pages)) {
			continue
		} else if pg := h.pages[i].Load(); pg != nil {
			prefetch(&pg[o&pageMask])
		} else if o < uint64(len(h.init)) {
			prefetch(&h.init[o])
		}
	}
}
