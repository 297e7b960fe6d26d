// Package hier models a GPU's memory hierarchy as the warp-wide accesses of
// memspace.Access reach it, and counts what Nsight Compute counts.
//
// It owns:
//   - the coalescer: an access becomes one request, its 32 B sectors and
//     128 B lines, by the rules of the profile ("sectored", Volta and later;
//     "fermi", GF100: 128 B L1 fills when cached, 32 B segments when not,
//     stores in 32/64/128 B transactions), local memory in its interleaved
//     layout (Access.WordStride);
//   - one sectored set-associative cache type (tags and sector states, no
//     data) used for the L1 of each SM (capacity from the launch's shared
//     carveout, Config.Carveout), the L2 slices shared by all SMs, and the
//     constant and texture caches; cache operators (.ca .cg .cs .lu .cv .wt)
//     and L1/L2 eviction hints are honoured;
//   - shared-memory banks: wavefronts and bank conflicts (broadcast is
//     free; 64-bit accesses in half warps and 128-bit in quarter warps
//     unless lane pairs share addresses; atomics serialise per bank);
//   - DRAM traffic and, in timing mode, latencies with slice and channel
//     queues;
//   - memory on the host (host.go): apertures of system (pinned, mapped)
//     and managed memory, the host link's packets and their costs (runs of
//     a line written in part, the host's cache of such lines,
//     hostcache.go), and managed pages' faults and migrations;
//   - the counters (Counter, Counts, Tally per instruction, Metrics with the
//     derived values the source texts name) and the GPU profiles as JSON
//     (profiles/h100.json, profiles/gf100.json; Config, LoadConfig).
//
// It does not see instructions, decide which warp runs or when, hold memory
// contents, or import anything but memspace. The scheduler wires it to the
// VM: it installs SM(i) as the memspace.Observer of the warps on SM i.
//
// # Two sides, and why the counts are deterministic
//
// A Hierarchy has an SM side per SM (type SM: coalescer, banks, L1,
// constant and texture caches) and one shared side (type Memory: the L2
// slices of both partitions, DRAM). Counts that depend on one access alone
// (requests, sectors, wavefronts, conflicts) are exact whatever the order.
// Counts that depend on order (hits, DRAM bytes) come from a defined order:
// an SM side sees its own accesses in its own order (its blocks in turn,
// each block's warps as the VM runs them) and touches nothing shared. Its L2
// traffic is buffered, and Drain, called between epochs from one goroutine,
// serves the buffers round robin over the SMs in ascending number, one
// access's transactions at a time. The results therefore do not depend on
// how many host goroutines ran the SMs, or how they interleaved.
//
// # Driving it
//
// Functional mode (the scheduler's fast loop, SMs on any number of
// goroutines):
//
//	cfg, err := hier.LoadConfig("h100") // or a JSON file
//	h, err := hier.New(cfg, hier.Launch{SharedPerCTA: static + dynamic, Occupancy: blocksPerSM}, hier.Functional)
//	// each goroutine: the warps of SM i observe through h.SM(i)
//	// after every wave of blocks, and at the end, with no SM running:
//	h.Drain()
//	c := h.Counts()
//	metrics := hier.Metrics(&c, hier.Extra{InstIssued: warpInstructions})
//	perInst := h.Tally() // .Inst(id) for the counts of one instruction
//
// Observe returns a zero Outcome in functional mode.
//
// Timing mode (a cycle loop on one goroutine): New(..., hier.Timing); before
// a warp's memory instruction executes, call h.SM(i).SetCycle(now); Observe
// serves the access through L1, L2 and DRAM at once and returns its latency
// (Config.Latency: L1 hit, L2 hit near or far partition, DRAM, with queues
// at L2 slices and DRAM channels and a DRAM latency that grows with the
// recent utilisation, for the H100 with its write-backs' share only; the
// defaults are uncalibrated). Memory.Dirty starts a launch with the L2 as
// a large write before it leaves it (dirty lines written back as they are
// evicted); Memory.Params puts the kernel's parameter lines in L2, where
// the launch that writes them leaves them.
//
// Windowed mode (a cycle loop whose SMs run in parallel, each up to the end
// of a window of cycles): New(..., hier.Windowed); before a warp's memory
// instruction executes, h.SM(i).SetCycle(now), which also starts a group
// (that instruction's accesses); Observe returns the latency of what the SM
// side serves itself and buffers its L2 traffic; SM.Waits says whether the
// group waits for L2 data, SM.Group names it. At the window's end, from one
// goroutine, h.Resolve() serves all SMs' traffic in cycle order (ties by SM
// number) and SM.Completions gives each waiting group's completion cycle
// (after h.DeferFills, each SM side's dating of its own fills waits for
// SM.ResolveFills, which the caller runs on the SM's goroutine).
// A hit on an L1 or constant-cache line whose fill is still on its way
// makes its group wait for that fill.
// A window shorter than L1Hit + L2HitNear loses nothing: every completion
// falls after the window's end. Counts and completions do not depend on how
// many goroutines ran the SMs.
//
// # What was checked against the H100
//
// The tests hold the corpus rows (testdata/nvcc/ncu) the rules were derived
// from: shared wavefronts and conflicts of the transposes, the tiled
// matmuls (LDS.128 of two addresses: 2 wavefronts), reduce_sum_f32 and
// scan_blelloch (LDS.64/STS.64: 2 wavefronts); global requests and sectors
// of vector_ldst; texture requests of tex2d_* (a quad per request) and
// tex1dfetch_gather (8 lanes per request for 4-byte texels from linear
// memory, 4 for 16-byte ones); the L1 hit rates of matmul_naive (86.82 %)
// and int_basic32 (93.25 %, ncu 93.24: a store hits when its line's tag is
// present); the carveout the driver picked for 221 of the 222 launches
// (Config.CarveoutFor).
//
// Checked against the perf corpus (testdata/perf, access patterns recorded
// for this package, with ncu's L2 breakdown by source unit):
//   - local memory makes one request per 4-byte word of a lane (the
//     interleaved layout puts each word of the warp in a 128 B chunk of its
//     own): an 8-byte local access is 2 requests, a 16-byte one 4;
//   - the H100's two L2 partitions keep near copies (L2Config.NearCopies):
//     an SM's transactions look up a slice of its own partition; a read of
//     a line homed in the other partition that misses there is looked up
//     again at home over the fabric (ncu's lts__t_sectors_srcunit_ltcfabric:
//     half of l2_ws_4MiB's first-pass misses), writes go on to the home
//     slice (in timing mode a far write takes the bandwidth of both: the
//     padded transpose, which ncu counts at 74-78 of the 80 slices'
//     sectors a cycle, is bound there from 2048 up; on the H200 ncu finds
//     the fabric itself the transposes' busiest unit, which the slices
//     stand in for: Latency.L2FabricSectorsPerCycle gives it a rate for
//     calibration runs, unset in the profiles); so a working set
//     that every SM reads stops fitting well below
//     50 MiB (l2_ws: 24 MiB fits, 32 MiB half, 40 MiB not; our hit rates
//     66.7, 52.6, 20.7 % against ncu's 66.5, 53.8, 9.2 %);
//   - DRAM reads 64 B units (DRAMConfig.AccessBytes): a stride-16 u32 copy
//     reads twice the sectors it misses;
//   - the L1's set index is hashed (an L1 indexed by the line number modulo
//     its sets thrashes on strides of whole pages that the GPU's does not:
//     l2_ws_ca_16MiB, L1 hit rate 62 % against ncu's 54 %; 8 % unhashed).
//   - lines interleave over the L2 slices, each run of as many lines as
//     slices covering every slice once (rotated by a hash of the run), so
//     every slice homes the same share of a large range: the naive
//     transposes, bound by the slices' byte-masked writes, take the H100's
//     3 cycles a sector at every size (6-7 % slow; a per-line hash: 6-14 %).
//   - partly written sectors: the L2 keeps which bytes stores wrote of a
//     sector it holds no data of (slot.part; the byte masks in
//     cache.written, allocated per chunk of sets where partial writes
//     happen); writes that cover it make it whole (the naive transposes'
//     byte-masked writes, completed by other warps, read nothing). Evicted
//     while partial, it is read from DRAM and merged before it is written
//     back (read-modify-write: in dram__bytes_read, as ncu counts it, and
//     on its DRAM channel in timing mode); a read of it fills from DRAM.
//     store_perm on the H200 (testdata/host/ncu_hostmem7_partial.csv, one
//     store per sector per pass over the buffer), DRAM bytes read per
//     buffer byte, 1 being the input: 128 MiB stride 32 ncu 8.96, ours
//     8.92 (before: 1.00); stride 8 8.94, 8.72; 64 MiB stride 8 8.66, 8.42
//     (scheduler TestPartialWritesAgainstGPU).
//
// Known differences from ncu (the README's ground-truth section has the
// match rate of every counter):
//   - ncu's L2 counters include traffic no kernel access explains: about
//     21,350 sector lookups over the fabric in every launch, even an 8-block
//     copy (lts__t_sectors_srcunit_ltcfabric), and instruction and constant
//     fetches; ncu's DRAM reads are 2.8 KB (O3) to 24 KB (-G, whose code is
//     larger) more per launch. Small launches are therefore far from ncu's
//     L2 hit rate and DRAM bytes while the data they move matches.
//   - Partly written lines leave the GPU's L2 sooner than whole ones: at
//     16 MiB (in and out 32 MiB of the H200's 60 MiB) store_perm at strides
//     2-32 reads 0.75 and writes back 0.83 bytes per buffer byte where whole
//     lines (stride 1) stay, and store_fill_stride2_32MiB reads 27.7 MB on
//     the H100 (ours 2.7 MB: the model keeps such lines as long as whole
//     ones, and its read-modify-write happens only when they are evicted).
//     Where both evict, the GPU's evicted sectors are more often complete
//     (store_perm 32-64 MiB at strides 8 and 32: fewer reads than writes;
//     ours read up to 1.9 times as much).
//   - L1 store hits depend on how warps interleave: transpose_naive has 8
//     warps writing the same lines at once (ncu 27.87 %, ours 86 % with a
//     store hitting when its line's tag is present; int_basic32, whose
//     warps rewrite their own lines, needs that rule: ncu 93.24 %, ours
//     93.25 %). Adjacent warps' misaligned requests sharing a sector: ncu
//     counts far fewer L2 hits (copy_u32_offset_i1_o0: 51 against 144).
//   - Shared float atomics become CAS loops in the machine code; ncu counts
//     their loads (atomic_float_exact: 47,200 wavefronts) where the PTX has
//     one atomic per lane. Requests, sectors and wavefronts otherwise match
//     exactly wherever ptxas kept the PTX's accesses (it merges adjacent
//     shared and global accesses into wider ones at -O3).
//   - Texture caches see the texel addresses as the VM reports them; the
//     GPU's block-linear layout of CUDA arrays gives 2D neighbours common
//     lines only if the VM reports addresses in that layout.
package hier
