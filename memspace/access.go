package memspace

// This file is the contract between the VM, which produces warp-wide
// accesses, and the hierarchy models (memspace/hier), which consume them. The
// VM fills an Access once a memory instruction's lanes are validated and hands
// it to the Observer installed for the SM; the models never see instructions.

// MaxElems is the most elements one access moves per lane: a .v8 ld/st of
// 32-bit values (256 bits).
const MaxElems = 8

// Access is one warp-wide memory access: what a memory instruction hands to
// the memory system. Addr holds, for each lane in Mask, the address in Space of
// the first byte; Size is the number of bytes each lane moves (a .v4.b32 access
// moves 16). Hierarchy models observe Accesses; they never see instruction
// semantics.
type Access struct {
	Space Space
	Kind  Kind
	Size  uint8 // bytes per lane (vector accesses: all elements)
	Mask  uint32
	Addr  [32]uint64

	// Cache is the instruction's cache operator (.ca, .cg, .cs, .lu, .cv for
	// loads; .wb, .cg, .cs, .wt for stores); CacheDefault when none was given.
	Cache CacheOp
	// L1Evict and L2Evict are the eviction priorities of the
	// L1::evict_* / L2::evict_* qualifiers (EvictNormal when absent).
	L1Evict, L2Evict Evict
	// NonCoherent marks ld.global.nc and ldu: reads through the texture/read-
	// only path.
	NonCoherent bool
	// FloatOp marks an atomic or reduction whose operation is floating-
	// point arithmetic (an L2 slice takes longer over successive updates
	// of one address); false for every other access.
	FloatOp bool
	// CAS marks an atomic compare-and-swap: a lane whose compare fails
	// writes nothing (the L2's atomic unit does not chain it).
	CAS bool

	// WordStride, when non-zero, says that each lane's Size bytes are not
	// contiguous: they are 4-byte words, word k at Addr[lane] + k*WordStride.
	// Local memory is interleaved this way on the GPU (consecutive lanes'
	// copies of one 4-byte word are adjacent), so Addr of a Local access is
	// the physical address in that interleaved layout, not the per-thread
	// offset the program used.
	WordStride uint32

	// Tex lists, for a texture fetch, the texels each lane's filter read
	// (1 to 8 per lane); nil for every other access.
	Tex *TexFootprint
	// Surface marks a surface load, store or reduction (suld, sust,
	// sured): Space is Texture (the texture unit serves it), Addr the
	// element's device address, Tex nil.
	Surface bool

	// Sync marks an mbarrier operation (init, arrive, test_wait, ...) on
	// shared memory, which sm_90 runs in its synchronisation unit: ncu
	// counts none of them among the LSU's shared loads and stores.
	// AsyncCopy marks the shared-memory write of an asynchronous copy
	// (cp.async: LDGSTS), which ncu does not count as a shared store
	// either. The hierarchy counts both apart, with the latency of the
	// load or store Kind says.
	Sync, AsyncCopy bool
	// Bulk marks the global-memory side of a bulk copy or TMA transfer
	// (cp.async.bulk{.tensor}, cp.reduce.async.bulk), which the TMA unit
	// moves to and from L2 without L1: not LSU traffic for ncu.
	Bulk bool

	// SpanKnown says that XorSpan is the OR over the lanes of a full warp
	// (Mask all ones) of each lane's address XORed with lane 0's: the bits
	// in which the addresses differ, which a producer that computed them
	// in one pass gives a hierarchy's bank model so that it need not
	// compute it again. False, and XorSpan 0, in every other access.
	SpanKnown bool
	XorSpan   uint64

	// Origin says which SM, block, warp and instruction made the access.
	Origin Origin

	// Values, for a Store, are the values stored: element e of lane l is
	// Values[e][l] (Elems elements of Size/Elems bytes each; Values[e] is
	// nil for an element the store skips, the sink `_`); nil for every
	// other access. The VM sets them only for an observer; they are valid
	// during the Observe call (a checker compares what two writes wrote).
	Values *[MaxElems][]uint64
	Elems  uint8
}

// Origin locates an access in the launch.
type Origin struct {
	SM   int32  // emulated SM
	CTA  uint64 // linear block index in the grid (x fastest)
	Warp int32  // warp index within the block
	// Inst is the kernel-wide instruction id (dense over the entry and
	// every function it can call; see vm.InstInfo).
	Inst int32
}

// TexFootprint is the set of texel addresses a texture fetch read. Texel
// addresses are byte addresses of the texel in the texture's backing memory
// (the CUDA array or linear buffer); Count[lane] of Addr[lane] are valid.
type TexFootprint struct {
	Count [32]uint8
	Addr  [32][16]uint64 // up to 16: a trilinear fetch of a mipmapped 3D texture
	// TexelSize is the bytes of one texel (all channels).
	TexelSize uint8
	// Linear marks a fetch from a texture over linear memory (tex1Dfetch),
	// which the texture unit serves in larger groups of lanes than
	// filtered fetches from CUDA arrays.
	Linear bool
}

// CacheOp is a memory instruction's cache operator (PTX ISA, "Cache
// Operators").
type CacheOp uint8

// Cache operators.
const (
	CacheDefault CacheOp = iota
	CacheCA              // cache at all levels (loads)
	CacheCG              // cache at L2, not L1
	CacheCS              // streaming, likely accessed once
	CacheLU              // last use
	CacheCV              // don't cache; fetch again (volatile)
	CacheWB              // write back at all coherent levels (stores)
	CacheWT              // write through to system memory (stores)
)

var cacheOpNames = [...]string{"", "ca", "cg", "cs", "lu", "cv", "wb", "wt"}

func (c CacheOp) String() string {
	if int(c) < len(cacheOpNames) {
		return cacheOpNames[c]
	}
	return "cacheop(" + itoa(uint64(c)) + ")"
}

// Evict is an eviction priority (L1::evict_* / L2::evict_*).
type Evict uint8

// Eviction priorities.
const (
	EvictNormal Evict = iota
	EvictFirst
	EvictLast
	EvictUnchanged
	NoAllocate
)

var evictNames = [...]string{"evict_normal", "evict_first", "evict_last", "evict_unchanged", "no_allocate"}

func (e Evict) String() string {
	if int(e) < len(evictNames) {
		return evictNames[e]
	}
	return "evict(" + itoa(uint64(e)) + ")"
}

// Outcome is what a hierarchy model answers for one access. A functional
// run ignores it; the timing model uses Latency.
type Outcome struct {
	// Latency is the number of cycles until the access's data is back (a
	// load) or it has left the SM (a store).
	Latency uint32
}

// Observer sees every warp-wide access after its lanes were validated and
// before the next instruction of the warp runs. Implementations belong to one
// SM (one goroutine) at a time. The functional result never depends on it.
type Observer interface {
	Observe(a *Access) Outcome
}
