package hier

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
)

// Config describes the memory hierarchy of one GPU. It is data: the
// profiles shipped with the package are JSON files (profiles/*.json), and a
// user may edit a copy to change the L1 size, the line size or the number of
// banks without recompiling. It is self-contained so that it can be one
// section of a whole-GPU profile file.
//
// Units: sizes in bytes unless the field name says KiB; latencies in SM
// cycles; bandwidths in bytes per SM cycle.
type Config struct {
	Name string `json:"name"`
	// SMs is the number of streaming multiprocessors (the number of SM
	// sides a Hierarchy has).
	SMs int `json:"sms"`
	// Coalescing selects the rules that turn a warp-wide global or local
	// access into requests and transactions: "sectored" (Volta and later:
	// one request per instruction, 32 B sectors) or "fermi" (GF100: cached
	// loads in 128 B L1 lines, uncached loads in 32 B segments, stores in
	// 32, 64 or 128 B transactions).
	Coalescing string `json:"coalescing"`
	// SectorBytes is the granularity the counters and L2 work in (32), and
	// LineBytes the cache line (128).
	SectorBytes int `json:"sector_bytes"`
	LineBytes   int `json:"line_bytes"`

	L1      L1Config      `json:"l1"`
	Shared  SharedConfig  `json:"shared"`
	Const   ConstConfig   `json:"const"`
	Tex     TexConfig     `json:"tex"`
	L2      L2Config      `json:"l2"`
	DRAM    DRAMConfig    `json:"dram"`
	Latency LatencyConfig `json:"latency"`
	// HostLink is what host and managed memory cost kernels (host.go);
	// absent: they cost what device memory costs.
	HostLink HostLinkConfig `json:"host_link,omitempty"`
}

// L1Config is the per-SM L1 data cache, which shares one array with shared
// memory.
type L1Config struct {
	// UnifiedBytes is the SM's L1 + shared-memory array (H100: 256 KiB;
	// GF100: 64 KiB). The L1 gets what the launch's shared carveout leaves.
	UnifiedBytes int `json:"unified_bytes"`
	// SharedCarveoutsKiB are the shared-memory sizes the driver can
	// configure, ascending.
	SharedCarveoutsKiB []int `json:"shared_carveouts_kib"`
	// DefaultCarveoutKiB is the carveout of kernels that declare no shared
	// memory.
	DefaultCarveoutKiB int `json:"default_carveout_kib"`
	// ReservedSharedPerCTA is the shared memory the system reserves for each
	// block (H100: 1 KiB); it counts toward the carveout.
	ReservedSharedPerCTA int `json:"reserved_shared_per_cta"`
	// HeadroomCTAs: the driver sizes the carveout for up to twice the
	// occupancy the other limits allow, but for no more than this many
	// blocks (see Carveout).
	HeadroomCTAs int `json:"carveout_headroom_ctas"`
	// Ways is the associativity; sets = capacity / (line × ways).
	Ways int `json:"ways"`
	// FillBytes is the L1's allocation and fill granularity: 32 on the
	// H100 (sectored), the whole 128 B line on GF100.
	FillBytes int `json:"fill_bytes"`
	// Replacement is "lru" or "fifo".
	Replacement string `json:"replacement"`
	// CacheGlobalLoads: global loads with the default cache operator are
	// cached in L1 (GF100's -dlcm=ca default; the H100 caches them too).
	CacheGlobalLoads bool `json:"cache_global_loads"`
	// StorePolicy says what a global store does to L1: "allocate" (the
	// line is allocated and the written sectors become valid; data is
	// written through to L2), "invalidate" (GF100: the line is dropped) or
	// "no_allocate" (a present line is updated, nothing is allocated).
	StorePolicy string `json:"store_policy"`
	// LocalStorePolicy is the same for local memory.
	LocalStorePolicy string `json:"local_store_policy"`
	// StoreHit says when ncu counts a store sector as a hit: "line" (the
	// line's tag was present before the request; what the H100's counters
	// show) or "sector" (the sector was valid).
	StoreHit string `json:"store_hit"`
}

// SharedConfig is shared memory's bank structure.
type SharedConfig struct {
	Banks     int `json:"banks"`      // 32
	BankBytes int `json:"bank_bytes"` // 4
	// LanesPerPhase64 and LanesPerPhase128 are how many lanes of a 64-bit
	// and a 128-bit access the hardware serves per phase (H100: half and
	// quarter warps; GF100: half warps for both).
	LanesPerPhase64  int `json:"lanes_per_phase_64"`
	LanesPerPhase128 int `json:"lanes_per_phase_128"`
	// PairMerge: when every active lane n has the address of lane n^1 (or
	// every one that of lane n^2), a 64- or 128-bit load needs half the
	// phases (Volta and later).
	PairMerge bool `json:"pair_merge"`
}

// ConstConfig is the per-SM constant cache. A request's distinct addresses
// are served one after another; a uniform address is one broadcast.
type ConstConfig struct {
	CacheBytes int `json:"cache_bytes"`
	LineBytes  int `json:"line_bytes"`
	Ways       int `json:"ways"`
}

// TexConfig is the texture path.
type TexConfig struct {
	// Unified: texture fetches look up the L1 (the H100's L1TEX); otherwise
	// a texture cache of its own per SM (GF100: 8 KiB).
	Unified    bool `json:"unified"`
	CacheBytes int  `json:"cache_bytes"`
	Ways       int  `json:"ways"`
	// LanesPerRequest is the group of lanes one texture request serves
	// (quads: 4); LanesPerRequestLinear4 the same for fetches of texels of
	// at most 4 bytes from linear memory (tex1Dfetch: 8 on the H100).
	LanesPerRequest        int `json:"lanes_per_request"`
	LanesPerRequestLinear4 int `json:"lanes_per_request_linear_4b"`
}

// L2Config is the L2 shared by all SMs: partitions of hashed slices, write
// back, allocating on writes.
type L2Config struct {
	SizeBytes int `json:"size_bytes"`
	// Partitions: the H100's L2 is two partitions; an SM reaches the slices
	// of its own partition ("near") faster than those of the other ("far").
	// SM s belongs to partition s*Partitions/SMs.
	Partitions int `json:"partitions"`
	// Slices is the total number of slices (H100: 80); an address's home
	// slice is a hash of its line address.
	Slices      int    `json:"slices"`
	Ways        int    `json:"ways"`
	Replacement string `json:"replacement"`
	// WritesHit: a write needs no data from DRAM, and ncu counts every L2
	// write sector as a hit; with it, the L2 hit rates of the H100 corpus's
	// store-heavy kernels agree with ncu's to within a few points.
	WritesHit bool `json:"writes_hit"`
	// NearCopies: each partition keeps copies of the other partition's
	// lines that its SMs use (the H100: ncu counts the lookups of lines
	// homed in the far partition twice, at the near slice and, over the
	// fabric between partitions, at the home slice; a working set of all
	// SMs stops fitting well below the L2's size). Without it a line lives
	// only in its home slice.
	NearCopies bool `json:"near_copies"`
}

// DRAMConfig is device memory.
type DRAMConfig struct {
	// Channels is the number of independent channels (queues) in timing
	// mode; a sector's channel is a hash of its address.
	Channels int `json:"channels"`
	// BytesPerCycle is the peak bandwidth in bytes per SM cycle.
	BytesPerCycle float64 `json:"bytes_per_cycle"`
	// AccessBytes is the unit DRAM reads in: an L2 miss fetches the aligned
	// unit around each missing sector (H100: 64, a pair of sectors; ncu's
	// dram__sectors_read of a stride-16 u32 copy is twice its L2 misses).
	AccessBytes int `json:"access_bytes"`
}

// LatencyConfig holds the timing mode's latencies, in SM cycles. The
// defaults are starting points from public descriptions, not calibrated; the
// timing model calibrates them.
type LatencyConfig struct {
	Shared       uint32 `json:"shared"`        // one-wavefront shared access
	PerWavefront uint32 `json:"per_wavefront"` // each further wavefront (shared, constant, L1 tags)
	L1Hit        uint32 `json:"l1_hit"`        // global/local load served by L1
	Const        uint32 `json:"const"`         // constant-cache hit
	// ConstMiss is what each constant-cache miss of a request adds: the
	// misses of one request are served one after another by the next
	// level (0: only the L2 latency of the slowest).
	ConstMiss       uint32 `json:"const_miss,omitempty"`
	Tex             uint32 `json:"tex"`         // texture request served by its cache
	L2HitNear       uint32 `json:"l2_hit_near"` // L1 miss served by a slice of the SM's partition
	L2HitFar        uint32 `json:"l2_hit_far"`  // ... by a slice of the other partition
	DRAM            uint32 `json:"dram"`        // added to an L2 miss
	Store           uint32 `json:"store"`       // until a store has left the SM
	L2BytesPerCycle int    `json:"l2_slice_bytes_per_cycle"`
	// L2ReadTxnCycles is the fewest cycles a read transaction holds its
	// slice, however few its sectors (0: its bytes only), and
	// L2ReadBytesPerCycle, if not 0, what a slice moves a cycle for reads
	// instead of L2BytesPerCycle. No profile sets them: the H200's
	// L2-resident gathers (testdata/host/hostmem8.jsonl group lines: 82
	// one-sector transactions a cycle from its 96 slices, 146-166 sectors
	// a cycle in lines of two or four) want 1.17 and 55, the H100's padded
	// transposes and adam_big did not (docs/timing-validation.md,
	// "Gathers from the L2"); they are there for calibrate's -set.
	L2ReadTxnCycles     float64 `json:"l2_read_cycles_per_transaction,omitempty"`
	L2ReadBytesPerCycle float64 `json:"l2_slice_read_bytes_per_cycle,omitempty"`
	// L2FabricSectorsPerCycle, if not 0, is what the fabric between the
	// L2's partitions (L2Config.NearCopies) carries into each partition a
	// cycle: the sectors a far read looks up at home, a far write and a far
	// atomic queue on it (those ncu counts under
	// lts__t_sectors_srcunit_ltcfabric). 0: the fabric takes no time.
	L2FabricSectorsPerCycle float64 `json:"l2_fabric_sectors_per_cycle,omitempty"`
	// L2AtomicCycles is the cycles an L2 slice spends per update of one
	// address by a global atomic or reduction of integers (the lanes on
	// one address serialise there, and so do successive transactions on
	// it), L2AtomicFloatCycles the same for floating-point arithmetic (0:
	// L2AtomicCycles), L2AtomicAddrCycles per distinct address of the
	// line; a transaction takes the larger, plus L2AtomicTxnCycles (with
	// L2AtomicSectorCycles set, a transaction's lanes cost per sector
	// instead: see there). 0: atomics cost their bytes. (H100, from the atomics probe,
	// testdata/perf/micro/sched/atomics.*: every warp of the GPU adding to
	// one word takes 1.46 slice cycles a lane for integers, 3.5 for
	// floats, and one lane a transaction 1.5 and 3.5.)
	L2AtomicCycles      float64 `json:"l2_atomic_cycles_per_lane,omitempty"`
	L2AtomicFloatCycles float64 `json:"l2_atomic_float_cycles_per_lane,omitempty"`
	L2AtomicAddrCycles  float64 `json:"l2_atomic_cycles_per_address,omitempty"`
	// L2AtomicSectorCycles, if not 0, is what the first update of each
	// sector a transaction touches costs when its line is not at hand:
	// the unit takes the sectors one after another, each for its first
	// update plus the chain of its busiest address's further lanes; the
	// per-address cost then applies only to a line at hand. (H100, the
	// atomics probe: a lane to a line of its own, every warp of the GPU,
	// 2.25 slice cycles a transaction; 32 lanes to the 32 words of a
	// warp's own line, four sectors, 9.2. The per-address cost on a line
	// at hand is from the corpus's hist_shared_256bins, whose blocks merge
	// 256 bins into the same 8 lines.)
	L2AtomicSectorCycles float64 `json:"l2_atomic_cycles_per_sector,omitempty"`
	// L2AtomicCASCycles, if not 0, is the chain cost of a compare-and-
	// swap's lanes on one address instead of L2AtomicCycles: after the
	// first, a lane compares against what the one before left, and in a
	// CAS loop most fail and write nothing. (H100: 0.6, fitted on the
	// training kernel atomic_contended, whose 8,000 threads loop on one
	// word; the probes' CAS loops are bound by their latency and do not
	// show it.)
	L2AtomicCASCycles float64 `json:"l2_atomic_cas_cycles_per_lane,omitempty"`
	// L2AtomicCASLatency is what a global compare-and-swap takes longer
	// than another atomic from issue to result (H100, atomics probe: a
	// CAS loop's round with 32 lanes on the warp's own word 421 cycles,
	// 304 in the model without it; one lane's CAS on its own word 728
	// against 643).
	L2AtomicCASLatency uint32 `json:"l2_atomic_cas_latency,omitempty"`
	// L2AtomicTxnCycles is what each atomic or reduction transaction
	// costs its slice on top, L2AtomicRepeatCycles what it costs instead
	// when the slice's last atomic was on the same line (H100: every warp
	// of the GPU updating one word, a lane each, takes 1.5 slice cycles a
	// transaction; each on a line of its own, 3.2).
	L2AtomicTxnCycles    float64 `json:"l2_atomic_cycles_per_transaction,omitempty"`
	L2AtomicRepeatCycles float64 `json:"l2_atomic_cycles_per_repeat,omitempty"`
	// L2PartialWriteCycles is the cycles the home slice spends per sector
	// a store writes in part (fewer bytes than the sector: byte-masked
	// writes), L2PartialWriteTxnCycles what it spends on top per
	// transaction (line) that has such sectors; 0 and 0: they cost their
	// bytes like whole ones. A far write's near slice takes its bytes
	// only. (H100: 1.625 and 0.7, chosen on the training families'
	// byte-masked stores: the naive transposes write one sector a line and
	// take 3.0 slice cycles a sector, half of them far, as with the single
	// per-sector cost of 2.325 they had before; the strided store fills
	// write four sectors a line, each in part, and took 20% too long with
	// it. The H200's store_perm at 4 MiB, 4 bytes a sector written at
	// strides 8 (4 sectors a line) and 32 (1): 16.5 and 21.8 µs.)
	L2PartialWriteCycles    float64 `json:"l2_partial_write_cycles,omitempty"`
	L2PartialWriteTxnCycles float64 `json:"l2_partial_write_cycles_per_transaction,omitempty"`
	// DRAMLoadCycles scales the DRAM latency's growth with load: a read
	// from DRAM waits DRAMLoadCycles·ρ/(1−ρ) more, ρ the DRAM's recent
	// utilisation (at most 0.9), as in a queue whose server is busy a
	// fraction ρ of the time. 0: the latency does not grow.
	DRAMLoadCycles float64 `json:"dram_load_cycles,omitempty"`
	// DRAMWriteLoadCycles is the growth with the part of that utilisation
	// that writes make (dirty evictions, write-through stores): a read
	// waits DRAMWriteLoadCycles·ρw/(1−ρ) more, ρw the writes'
	// utilisation. 0: writes load the DRAM as reads do.
	DRAMWriteLoadCycles float64 `json:"dram_write_load_cycles,omitempty"`
	// DRAMJitter spreads DRAM reads' latencies: each read's latency
	// moves by up to DRAMJitter cycles either way (uniformly, by a hash of
	// the line and the cycle, so the same on every run), as the H100's
	// spread over 600 to 900 cycles unloaded (testdata/perf/micro/sched,
	// the latency probe). 0: every read takes the same.
	DRAMJitter int `json:"dram_jitter,omitempty"`
}

// Coalescing rules.
const (
	RulesSectored = "sectored"
	RulesFermi    = "fermi"
)

// Store policies.
const (
	StoreAllocate   = "allocate"
	StoreInvalidate = "invalidate"
	StoreNoAllocate = "no_allocate"
)

// ParseConfig reads a Config from JSON (unknown fields are errors) and
// validates it.
func ParseConfig(data []byte) (*Config, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var c Config
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("hierarchy config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks that c describes a buildable hierarchy.
func (c *Config) Validate() error {
	e := func(field, format string, a ...any) error {
		return fmt.Errorf("hierarchy config %q: %s: %s", c.Name, field, fmt.Sprintf(format, a...))
	}
	pow2 := func(field string, v, lo, hi int) error {
		if v < lo || v > hi || bits.OnesCount(uint(v)) != 1 {
			return e(field, "%d is not a power of two in [%d, %d]", v, lo, hi)
		}
		return nil
	}
	pos := func(field string, v int) error {
		if v <= 0 {
			return e(field, "must be positive (got %d)", v)
		}
		return nil
	}
	if err := pos("sms", c.SMs); err != nil {
		return err
	}
	if c.Coalescing != RulesSectored && c.Coalescing != RulesFermi {
		return e("coalescing", "%q is neither %q nor %q", c.Coalescing, RulesSectored, RulesFermi)
	}
	if err := pow2("sector_bytes", c.SectorBytes, 4, 256); err != nil {
		return err
	}
	if err := pow2("line_bytes", c.LineBytes, c.SectorBytes, 8*c.SectorBytes); err != nil {
		return err
	}
	l1 := &c.L1
	if err := pos("l1.unified_bytes", l1.UnifiedBytes); err != nil {
		return err
	}
	if len(l1.SharedCarveoutsKiB) == 0 {
		return e("l1.shared_carveouts_kib", "empty")
	}
	prev := -1
	for _, k := range l1.SharedCarveoutsKiB {
		if k <= prev || k<<10 > l1.UnifiedBytes {
			return e("l1.shared_carveouts_kib", "must ascend and stay within unified_bytes (%v)", l1.SharedCarveoutsKiB)
		}
		prev = k
	}
	if !containsInt(l1.SharedCarveoutsKiB, l1.DefaultCarveoutKiB) {
		return e("l1.default_carveout_kib", "%d is not one of the carveouts", l1.DefaultCarveoutKiB)
	}
	if l1.ReservedSharedPerCTA < 0 || l1.HeadroomCTAs < 0 {
		return e("l1", "reserved_shared_per_cta and carveout_headroom_ctas must not be negative")
	}
	if err := pos("l1.ways", l1.Ways); err != nil {
		return err
	}
	if err := pow2("l1.fill_bytes", l1.FillBytes, c.SectorBytes, c.LineBytes); err != nil {
		return err
	}
	for _, k := range l1.SharedCarveoutsKiB {
		if lines := (l1.UnifiedBytes - k<<10) / c.LineBytes; lines%l1.Ways != 0 || (l1.UnifiedBytes-k<<10)%c.LineBytes != 0 {
			return e("l1.ways", "the L1 left by the %d KiB carveout (%d bytes) is not a whole number of sets of %d ways of %d B lines",
				k, l1.UnifiedBytes-k<<10, l1.Ways, c.LineBytes)
		}
	}
	if err := replacement("l1.replacement", l1.Replacement, e); err != nil {
		return err
	}
	for _, p := range [][2]string{{"l1.store_policy", l1.StorePolicy}, {"l1.local_store_policy", l1.LocalStorePolicy}} {
		if p[1] != StoreAllocate && p[1] != StoreInvalidate && p[1] != StoreNoAllocate {
			return e(p[0], "%q is not one of allocate, invalidate, no_allocate", p[1])
		}
	}
	if l1.StoreHit != "line" && l1.StoreHit != "sector" {
		return e("l1.store_hit", "%q is neither line nor sector", l1.StoreHit)
	}
	sh := &c.Shared
	if err := pow2("shared.banks", sh.Banks, 1, 64); err != nil {
		return err
	}
	if err := pow2("shared.bank_bytes", sh.BankBytes, 1, 16); err != nil {
		return err
	}
	for _, p := range []struct {
		f string
		v int
	}{{"shared.lanes_per_phase_64", sh.LanesPerPhase64}, {"shared.lanes_per_phase_128", sh.LanesPerPhase128}} {
		if err := pow2(p.f, p.v, 1, 32); err != nil {
			return err
		}
	}
	if err := c.cacheGeometry("const", c.Const.CacheBytes, c.Const.LineBytes, c.Const.Ways); err != nil {
		return err
	}
	tx := &c.Tex
	if !tx.Unified {
		if err := c.cacheGeometry("tex", tx.CacheBytes, c.LineBytes, tx.Ways); err != nil {
			return err
		}
	}
	if err := pow2("tex.lanes_per_request", tx.LanesPerRequest, 1, 32); err != nil {
		return err
	}
	if err := pow2("tex.lanes_per_request_linear_4b", tx.LanesPerRequestLinear4, 1, 32); err != nil {
		return err
	}
	l2 := &c.L2
	if err := pos("l2.partitions", l2.Partitions); err != nil {
		return err
	}
	if err := pos("l2.slices", l2.Slices); err != nil {
		return err
	}
	if l2.Slices%l2.Partitions != 0 {
		return e("l2.slices", "%d slices do not divide into %d partitions", l2.Slices, l2.Partitions)
	}
	if l2.SizeBytes%l2.Slices != 0 {
		return e("l2.size_bytes", "%d bytes do not divide into %d slices", l2.SizeBytes, l2.Slices)
	}
	if err := c.cacheGeometry("l2 slice", l2.SizeBytes/l2.Slices, c.LineBytes, l2.Ways); err != nil {
		return err
	}
	if err := replacement("l2.replacement", l2.Replacement, e); err != nil {
		return err
	}
	if err := pos("dram.channels", c.DRAM.Channels); err != nil {
		return err
	}
	if c.DRAM.BytesPerCycle <= 0 {
		return e("dram.bytes_per_cycle", "must be positive")
	}
	if err := pow2("dram.access_bytes", c.DRAM.AccessBytes, c.SectorBytes, c.LineBytes); err != nil {
		return err
	}
	if c.L2.NearCopies && c.L2.Partitions < 2 {
		return e("l2.near_copies", "needs at least two partitions")
	}
	if err := pos("latency.l2_slice_bytes_per_cycle", c.Latency.L2BytesPerCycle); err != nil {
		return err
	}
	for _, k := range []struct {
		name string
		v    float64
	}{{"latency.dram_load_cycles", c.Latency.DRAMLoadCycles}, {"latency.dram_write_load_cycles", c.Latency.DRAMWriteLoadCycles},
		{"latency.l2_atomic_cycles_per_lane", c.Latency.L2AtomicCycles}, {"latency.l2_atomic_float_cycles_per_lane", c.Latency.L2AtomicFloatCycles},
		{"latency.l2_atomic_cycles_per_address", c.Latency.L2AtomicAddrCycles}, {"latency.l2_atomic_cycles_per_sector", c.Latency.L2AtomicSectorCycles}, {"latency.l2_atomic_cas_cycles_per_lane", c.Latency.L2AtomicCASCycles}, {"latency.l2_atomic_cycles_per_transaction", c.Latency.L2AtomicTxnCycles}, {"latency.l2_read_cycles_per_transaction", c.Latency.L2ReadTxnCycles}, {"latency.l2_slice_read_bytes_per_cycle", c.Latency.L2ReadBytesPerCycle}, {"latency.l2_fabric_sectors_per_cycle", c.Latency.L2FabricSectorsPerCycle},
		{"latency.l2_atomic_cycles_per_repeat", c.Latency.L2AtomicRepeatCycles}} {
		if !(k.v >= 0 && k.v <= 1e6) {
			return e(k.name, "%g is not in 0..1e6", k.v)
		}
	}
	if j := c.Latency.DRAMJitter; j < 0 || j > int(c.Latency.DRAM) {
		return e("latency.dram_jitter", "%d is not in 0..latency.dram (%d)", j, c.Latency.DRAM)
	}
	if err := c.HostLink.validate(); err != nil {
		return e("host_link", "%v", err)
	}
	return nil
}

func (c *Config) cacheGeometry(what string, size, line, ways int) error {
	if size <= 0 || ways <= 0 || line <= 0 || line > c.LineBytes*8 || bits.OnesCount(uint(line)) != 1 || line < c.SectorBytes {
		return fmt.Errorf("hierarchy config %q: %s cache: size %d, line %d, ways %d: need positive sizes and a power-of-two line of at least a sector", c.Name, what, size, line, ways)
	}
	if size%(line*ways) != 0 {
		return fmt.Errorf("hierarchy config %q: %s cache: %d bytes are not a whole number of sets of %d ways of %d B lines", c.Name, what, size, ways, line)
	}
	return nil
}

func replacement(field, v string, e func(string, string, ...any) error) error {
	if v != "lru" && v != "fifo" {
		return e(field, "%q is neither lru nor fifo", v)
	}
	return nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// MarshalIndent returns c as the JSON a profile file holds.
func (c *Config) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
