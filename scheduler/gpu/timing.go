package gpu

// Timing is the timing model's part of a profile (package
// scheduler/timing): what the cycle loop needs beyond the SM limits and the
// memory section (whose latencies and bandwidths are Memory.Latency and
// Memory.DRAM). All times are in SM cycles. A profile file may leave any
// field out: a zero field takes the value of the embedded profile of the
// same name, or else the H100's (timing.Resolve).
type Timing struct {
	// Scheduler is the warp schedulers' policy: "gto" (greedy then oldest:
	// the warp that issued last issues again while it can, then the oldest
	// ready warp), "lrr" (loose round robin), or "gto_rr" (the warp that
	// issued in the cycle before issues again if it can; else, of the
	// oldest block with a ready warp, the ready warp that issued least
	// recently: warps of one block that contend for a pipe take turns, as
	// on the H100, while older blocks keep their priority).
	Scheduler string `json:"scheduler,omitempty"`
	// WindowCycles is how far SMs advance independently (in parallel on
	// host cores) before their L2 and DRAM traffic is merged; at most the
	// shortest L2 round trip (memory.latency.l1_hit + l2_hit_near).
	WindowCycles int `json:"window_cycles,omitempty"`
	// SASS names the table of what each PTX form costs in machine
	// instructions (package scheduler/sasscost: "h100", "gf100", or a file).
	SASS string `json:"sass_table,omitempty"`

	// LaunchCycles is the fixed cost of a launch as sm__cycles_elapsed
	// counts it (the front end, the first dispatch, the final flush),
	// added to the cycles until the last block ends.
	LaunchCycles int `json:"launch_cycles,omitempty"`
	// CTALaunchCycles is the time from a block's dispatch to an SM (at
	// the start, or when a block there ends) to its warps' first issue;
	// CTARetireCycles from a block's last warp exiting until its
	// resources are free.
	CTALaunchCycles int `json:"cta_launch_cycles,omitempty"`
	// CTALaunchWarpCycles is what each warp of the block adds to its
	// launch.
	CTALaunchWarpCycles float64 `json:"cta_launch_warp_cycles,omitempty"`
	CTARetireCycles     int     `json:"cta_retire_cycles,omitempty"`
	// CTADispatchCycles is the GPU's block scheduler's pace: cycles between
	// two blocks it dispatches (to any SMs).
	CTADispatchCycles float64 `json:"cta_dispatch_cycles,omitempty"`

	// Pipes are, per execution pipe (sasscost's pipe names: alu, fma,
	// imad, fp64, half, sfu, conv, mio, lsu, tex, branch, barrier), the
	// cycles a warp instruction occupies it in one sub-partition (the
	// inverse of its throughput) and its results' latency.
	Pipes map[string]Pipe `json:"pipes,omitempty"`
	// IssueCycles is the mean of the cycles between two issues of one warp
	// that do not depend on each other (the compiler's stall counts; at
	// least 1; a fraction is carried from one issue to the next).
	IssueCycles float64 `json:"issue_cycles,omitempty"`
	// DebugIssueCycles is the same for code compiled for debugging (nvcc
	// -G: `.target ..., debug`), which ptxas neither schedules nor gives
	// short stall counts: each instruction waits for the one before.
	DebugIssueCycles float64 `json:"debug_issue_cycles,omitempty"`
	// GuardCycles is how much later than its value a predicate may guard
	// an instruction (an @p instruction or a conditional branch) than it
	// may be an operand: the guard is read when the warp issues, operands
	// further down the pipe. On the H100 an instruction guarded by the
	// predicate the ISETP before it writes issues 11 to 12 cycles after
	// it, where an ISETP that takes that predicate as an operand issues
	// after 4 (Nsight Compute's wait samples per SASS instruction).
	GuardCycles int `json:"guard_cycles,omitempty"`
	// ScheduleRegisters scales the registers the list scheduler may keep
	// live in a basic block: ptxas's allocation, as the PTX's liveness
	// counts it, times this (0: 1). ptxas folds address offsets into its
	// loads and keeps constants in its instructions, so that its
	// schedules hold more loads and chains in flight than the PTX's
	// virtual registers suggest (H100: 2, from the pipes and mlp probes:
	// eight independent expf take 15 cycles each on the H100, 28 in the
	// model at 1 and 17 at 2; logf 45, 58 and 42).
	ScheduleRegisters float64 `json:"schedule_registers,omitempty"`
	// BranchCycles: after a branch or call the warp waits this long for its
	// target (branch_resolving).
	BranchCycles int `json:"branch_cycles,omitempty"`
	// BarrierCycles and BarrierWarpCycles: from the last arrival at a
	// barrier until the waiting warps go on, BarrierCycles plus
	// BarrierWarpCycles per warp of the block.
	BarrierCycles     int     `json:"barrier_cycles,omitempty"`
	BarrierWarpCycles float64 `json:"barrier_warp_cycles,omitempty"`
	// BarrierUnitCycles is the time the SM's barrier unit takes for each
	// barrier it completes; the barriers of the SM's blocks complete one
	// after another at this pace (0: at once).
	BarrierUnitCycles float64 `json:"barrier_unit_cycles,omitempty"`
	// MembarCycles: how long a memory barrier holds its warp.
	MembarCycles int `json:"membar_cycles,omitempty"`
	// AsyncCopyCycles is how much later a cp.async's data is in shared
	// memory, for cp.async.wait_group, than its global load's data would
	// be in a register (H100 family, the tensor probe: a 16-byte
	// cp.async.ca that hits L1 and its wait, 112 cycles a round trip for
	// one warp; 1 makes the model's 111.8, and the probe of 32 warps'
	// four chains 396 for the GPU's 399). It was 35 until the list
	// scheduler kept a copy between its commit and wait: the copy had
	// been issued after its own wait, and 35 made up the difference.
	AsyncCopyCycles int `json:"async_copy_cycles,omitempty"`
	// ClusterSharedCycles is what an access to another block's shared
	// memory (distributed shared memory, through the shared::cluster
	// window) takes beyond the shared-memory latency (H100 family,
	// testdata/clusters' dsmem_latency: a dependent chain of
	// ld.shared::cluster from the other block of a cluster of two, 196
	// cycles a load, against 23 for ld.shared::cta: 173);
	// ClusterBarrierCycles is what a barrier.cluster takes to release the
	// cluster's warps beyond a block barrier's BarrierCycles (assumed, not
	// measured). The blocks of a cluster sit on different SMs of one GPC
	// on the GPU.
	ClusterSharedCycles  int `json:"cluster_shared_cycles,omitempty"`
	ClusterBarrierCycles int `json:"cluster_barrier_cycles,omitempty"`

	// MIOQueue, LSUQueue and TexQueue are the entries per sub-partition of
	// the queues in front of the MIO unit (shared memory, transcendentals,
	// shuffles), the L1TEX's global/local path and its texture path; an
	// instruction that finds its queue full stalls its warp (mio_throttle,
	// lg_throttle, tex_throttle).
	MIOQueue int `json:"mio_queue,omitempty"`
	LSUQueue int `json:"lsu_queue,omitempty"`
	TexQueue int `json:"tex_queue,omitempty"`
	// DataCycles is the cycles one wavefront occupies the SM's L1/shared
	// data path (a shared wavefront, a global or local line, a constant
	// address); TexCycles the same for a texture request.
	DataCycles float64 `json:"data_cycles_per_wavefront,omitempty"`
	TexCycles  float64 `json:"tex_cycles_per_request,omitempty"`
	// FillCyclesPerSector is the cycles each sector a global or local
	// load fetches from L2 holds the data path while it is written into
	// the L1: a load takes the larger of its lines' wavefronts and its
	// fills (0: lines only). H200, testdata/host/hostmem8.jsonl group
	// lines (warps gathering 32 words of an L2-resident buffer with
	// ld.global.cg on 1 to 66 SMs): one line a cycle an SM when each line
	// gives one sector, 1.70-1.81 sectors a cycle when lines give two or
	// four, so 0.57 cycles a sector.
	FillCyclesPerSector float64 `json:"fill_cycles_per_sector,omitempty"`
	// StoreCyclesPerLine, if not 0, is the cycles each line a global
	// store writes holds the SM's port from the L1 to the crossbar; a
	// store waits in its LSU queue until the port takes it (0: no such
	// port). H200, testdata/host/hostmem9.jsonl group mix: on 8 SMs a warp
	// storing one word into each of 32 lines sends 0.48 lines a cycle an
	// SM, 2.07 cycles a line; the calibration corpora's training and
	// held-out MAPE did not move (docs/timing-validation.md).
	StoreCyclesPerLine float64 `json:"store_cycles_per_line,omitempty"`
	// SharedOrder is the order in which the data path serves the
	// shared-memory loads and stores waiting for it: "arrival" (first
	// come, first served) or "round_robin" (one operation of each waiting
	// warp in turn, by warp slot). Two blocks of reduce_shared's tree on
	// one SM slow each other by 5.9 cycles a level on the H100
	// (testdata/perf/micro/sched/contend.*); served in arrival order the
	// model's take turns and hardly do (0.3), in round robin by 5.8.
	SharedOrder string `json:"shared_order,omitempty"`

	// Fetch is the SM's instruction fetch.
	Fetch Fetch `json:"fetch"`

	// SharedCAS models the shared-memory atomics ptxas turns into
	// compare-and-store loops (zero: they cost as native atomics do).
	SharedCAS SharedCAS `json:"shared_cas,omitempty"`
}

// SharedCAS models the shared-memory atomics that have no native ATOMS
// operation: ptxas makes each a loop of LDS, the operation, ATOMS.CAST.SPIN
// (compare and store), a test and a branch back (red/atom.shared.add on
// .f32, .f64, .u64, and the other 64-bit operations but exch and cas). The
// .SPIN store is a "fast fail": among a warp's lanes whose addresses fall
// in one bank (64-bit: in one half-warp's bank) one lane tries, the others
// fail at once, so a round of the loop completes at most one lane per bank,
// and lanes on one word one per round. Lanes of other warps on the word
// take turns: each completed update holds the word for WordCycles.
// Measured on an H200 (the H100's SM; testdata/perf/micro/sched/casspin.*,
// one block of 1, 8, 32 warps, SM cycles): a round takes 138 cycles for
// .f32, 159 for .u64 and .f64 (every lane on its own word); 32 lanes of a
// warp on one word 32 rounds (4,689 and 5,201 cycles); 8 and 32 warps on
// one word 41 to 44 (.f32) and 57 to 62 (.u64) cycles per update. The
// model books updates on a word first come, first served when a warp's
// loop starts, so warps settle into turns of whole rounds: a .u64 word
// holds for 53 cycles here so that three turns fit a 160-cycle round, as
// the H200's 57 to 62 nearly do (at 57, two fit and the model took 77).
type SharedCAS struct {
	// RoundCycles32 and RoundCycles64 are one round of the loop for one
	// warp, from the LDS to the branch back, for 32- and 64-bit words.
	RoundCycles32 float64 `json:"round_cycles_32,omitempty"`
	RoundCycles64 float64 `json:"round_cycles_64,omitempty"`
	// WordCycles32 and WordCycles64 are how long an update holds its word
	// against the next (another warp's) update of it.
	WordCycles32 float64 `json:"word_cycles_32,omitempty"`
	WordCycles64 float64 `json:"word_cycles_64,omitempty"`
	// ReturnCycles is the part of a round after the store: its result back,
	// the test and the branch.
	ReturnCycles float64 `json:"return_cycles,omitempty"`
	// WavefrontCycles is how much longer a round takes for each further
	// wavefront of its LDS (the lanes left on several words of one bank:
	// 32 words of one bank, 32 rounds of 177 cycles for .f32).
	WavefrontCycles float64 `json:"wavefront_cycles,omitempty"`
	// RoundSlots32 and RoundSlots64 are the machine instructions a round
	// issues (.f32: LDS, FADD, ATOMS.CAST.SPIN, ISETP, BRA).
	RoundSlots32 float64 `json:"round_slots_32,omitempty"`
	RoundSlots64 float64 `json:"round_slots_64,omitempty"`

	// The native compare-and-swap (atom.shared.cas, ATOMS.CAS: a loop the
	// program writes) takes CASCycles longer than the other native
	// atomics, CASLaneCycles longer per further lane on its word, and
	// CASDataFactor times the data path's time per wavefront. H100
	// (atomics.cu's shared cas_u32 records): a CAS loop's round with every
	// lane on its own word 122 cycles (an ATOMS.ADD chain step 50), with
	// 32 lanes on one word 138 a round on average over the 32 rounds; 8
	// and 32 warps, each on its own word, 2 cycles of the SM per lane.
	CASCycles     float64 `json:"cas_cycles,omitempty"`
	CASLaneCycles float64 `json:"cas_lane_cycles,omitempty"`
	CASDataFactor float64 `json:"cas_data_factor,omitempty"`
}

// Fetch models instruction fetch: each SM caches the kernel's code by line
// (its instruction cache: CacheBytes, lines leaving in the order they came
// once it is full); a warp that reaches code its SM does not have waits
// for it (no_instruction).
// Machine code is laid out as ptxas does: each function on a line
// boundary, each PTX instruction as many 16-byte machine instructions as
// the SASS table gives it. Going on to the next line costs little: the
// fetch unit asks for the line after the one a warp reads.
type Fetch struct {
	// LineBytes is the instruction cache's line (a power of two, at least
	// 16); -1 leaves fetch out (0: the built-in profile's; the GF100's has
	// no fetch model).
	LineBytes int `json:"line_bytes,omitempty"`
	// MissCycles is how long a warp waits for a line that no warp of its SM
	// has read or asked for (a jump, a call or a return to code not
	// cached).
	MissCycles float64 `json:"miss_cycles,omitempty"`
	// SequentialCycles is how long after a line the next one arrives when
	// it is fetched ahead (straight-line code streaming in).
	SequentialCycles float64 `json:"sequential_cycles,omitempty"`
	// CacheBytes is the SM's instruction cache (0: as large as any
	// kernel). H100: a loop of 2,048 FFMAs (32 KB) runs from the cache,
	// one of 4,096 (64 KB) streams its code in on every pass at about 2.2
	// cycles an instruction for one warp, 16 for 64 warps (the icache
	// probe, testdata/perf/micro/sched/icache.*); 48 KB lies between.
	CacheBytes int `json:"cache_bytes,omitempty"`
}

// Pipe is one execution pipe's throughput and latency.
type Pipe struct {
	// Cycles a warp instruction occupies the pipe of one sub-partition.
	Cycles float64 `json:"cycles"`
	// Latency until its results can be used.
	Latency int `json:"latency"`
}
