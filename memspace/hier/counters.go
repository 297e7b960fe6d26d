package hier

// Counter names one raw event count of the hierarchy. Counters are plain
// integers: a per-instruction block is an array indexed by Counter, so
// counting an event is one increment and no map is consulted per access.
type Counter uint8

// The raw counters. A name that starts with a unit of Nsight Compute
// (l1tex__, lts__, dram__) means exactly what ncu means by it for accesses
// that map one to one onto machine instructions; figures ncu does not have,
// or computes differently, carry a ptxvm__ name.
const (
	// Global memory through the LSU pipe, by operation.
	GlobalLdRequests Counter = iota
	GlobalLdSectors
	GlobalLdHit
	GlobalLdMiss
	GlobalLdBytes
	GlobalLdFetched
	GlobalStRequests
	GlobalStSectors
	GlobalStHit
	GlobalStMiss
	GlobalStBytes
	GlobalStWritten
	GlobalAtomRequests
	GlobalAtomSectors
	GlobalAtomMiss
	GlobalRedRequests
	GlobalRedSectors
	GlobalRedMiss

	// Local memory.
	LocalLdRequests
	LocalLdSectors
	LocalLdHit
	LocalLdMiss
	LocalStRequests
	LocalStSectors
	LocalStHit
	LocalStMiss

	// Texture fetches.
	TexInstructions
	TexRequests
	TexSectors
	TexHit
	TexMiss

	// Surface loads, stores and reductions (suld, sust, sured), served by
	// the texture unit.
	SurfLdRequests
	SurfLdSectors
	SurfLdHit
	SurfLdMiss
	SurfStRequests
	SurfStSectors
	SurfRedRequests
	SurfRedSectors

	// Shared memory.
	SharedLdRequests
	SharedLdWavefronts
	SharedLdConflicts
	SharedStRequests
	SharedStWavefronts
	SharedStConflicts
	SharedAtomRequests
	SharedAtomWavefronts
	SharedAtomConflicts
	SharedSyncRequests
	SharedSyncWavefronts
	SharedAsyncRequests
	SharedAsyncWavefronts

	// Bulk copies' and TMA's global side (through L2, not L1).
	BulkRdRequests
	BulkRdSectors
	BulkRdBytes
	BulkWrRequests
	BulkWrSectors

	// Constant and parameter banks.
	ConstRequests
	ConstWavefronts
	ConstHit
	ConstMiss

	// L2 (counted by the shared side, in its drain order).
	L2ReadSectors
	L2ReadHit
	L2WriteSectors
	L2WriteHit
	L2AtomSectors
	L2AtomHit
	L2RedSectors
	L2RedHit
	L2FarSectors
	L2TexReadSectors
	L2TexReadHit
	L2TexWriteSectors
	L2TexWriteHit
	L2FabricSectors
	L2FabricHit

	// DRAM.
	DRAMReadSectors
	DRAMWriteSectors

	// Host memory (host.go): mapped and pinned memory over the host link,
	// managed memory's migrations.
	L2SysmemReadSectors
	L2SysmemWriteSectors
	HostLinkReadBytes
	HostLinkWriteBytes
	ManagedFaults
	ManagedMigratedBytes

	NumCounters
)

// Unit of a counter or metric, as ncu prints it.
const (
	unitRequest   = "request"
	unitSector    = "sector"
	unitByte      = "byte"
	unitWavefront = "wavefront"
	unitInst      = "inst"
	unitPct       = "%"
	unitRatio     = ""
)

// CounterInfo describes a raw counter.
type CounterInfo struct {
	Name string // metric name (ncu's, or ptxvm__...)
	Unit string
	Help string // one line: what is counted
}

var counterInfo = [NumCounters]CounterInfo{
	GlobalLdRequests:   {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", unitRequest, "warp-level global load requests (one per warp-wide load)"},
	GlobalLdSectors:    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", unitSector, "distinct 32 B sectors the executing lanes of global loads touched, summed over requests"},
	GlobalLdHit:        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", unitSector, "global load sectors found valid in L1"},
	GlobalLdMiss:       {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", unitSector, "global load sectors not valid in L1 (or bypassing it: .cg, .cv, no_allocate)"},
	GlobalLdBytes:      {"ptxvm__global_ld_bytes_requested.sum", unitByte, "bytes the executing lanes of global loads asked for (lanes × width)"},
	GlobalLdFetched:    {"ptxvm__global_ld_bytes_fetched.sum", unitByte, "bytes global loads made L1 fetch from L2 (L1 misses × fill size; uncached loads: their transactions)"},
	GlobalStRequests:   {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", unitRequest, "warp-level global store requests"},
	GlobalStSectors:    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", unitSector, "distinct 32 B sectors global stores touched, summed over requests"},
	GlobalStHit:        {"l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum", unitSector, "global store sectors whose line (or sector, per profile) was present in L1"},
	GlobalStMiss:       {"l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_miss.sum", unitSector, "global store sectors not present in L1"},
	GlobalStBytes:      {"ptxvm__global_st_bytes_requested.sum", unitByte, "bytes the executing lanes of global stores wrote (lanes × width)"},
	GlobalStWritten:    {"ptxvm__global_st_bytes_written.sum", unitByte, "bytes global stores sent to L2 (store transactions × their size)"},
	GlobalAtomRequests: {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", unitRequest, "warp-level global atomic requests"},
	GlobalAtomSectors:  {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", unitSector, "distinct 32 B sectors global atomics touched"},
	GlobalAtomMiss:     {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom_lookup_miss.sum", unitSector, "global atomic sectors (atomics are performed in L2: every sector is an L1 miss)"},
	GlobalRedRequests:  {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", unitRequest, "warp-level global reduction requests"},
	GlobalRedSectors:   {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", unitSector, "distinct 32 B sectors global reductions touched"},
	GlobalRedMiss:      {"l1tex__t_sectors_pipe_lsu_mem_global_op_red_lookup_miss.sum", unitSector, "global reduction sectors (performed in L2: every sector is an L1 miss)"},

	LocalLdRequests: {"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", unitRequest, "local memory load requests: one per 4-byte word a lane loads (the interleaved layout puts each word of the warp in a 128 B chunk of its own)"},
	LocalLdSectors:  {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", unitSector, "distinct 32 B sectors local loads touched (interleaved layout)"},
	LocalLdHit:      {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum", unitSector, "local load sectors found valid in L1"},
	LocalLdMiss:     {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum", unitSector, "local load sectors not valid in L1"},
	LocalStRequests: {"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", unitRequest, "local memory store requests: one per 4-byte word a lane stores"},
	LocalStSectors:  {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", unitSector, "distinct 32 B sectors local stores touched (interleaved layout)"},
	LocalStHit:      {"l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum", unitSector, "local store sectors present in L1"},
	LocalStMiss:     {"l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum", unitSector, "local store sectors not present in L1"},

	TexInstructions: {"ptxvm__tex_inst_executed.sum", unitInst, "warp-level texture fetch instructions (tex, tld4)"},
	TexRequests:     {"l1tex__t_requests_pipe_tex_mem_texture.sum", unitRequest, "texture requests: one per group of lanes (quads; 8 lanes for 4-byte linear-memory fetches) with a texel to read"},
	TexSectors:      {"l1tex__t_sectors_pipe_tex_mem_texture.sum", unitSector, "distinct 32 B sectors of the texels each request read"},
	TexHit:          {"l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum", unitSector, "texture sectors found in the texture (L1TEX) cache"},
	TexMiss:         {"l1tex__t_sectors_pipe_tex_mem_texture_lookup_miss.sum", unitSector, "texture sectors not in the texture (L1TEX) cache"},

	SurfLdRequests:  {"l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum", unitRequest, "surface load requests (suld): one per group of lanes (quads) with an element to read"},
	SurfLdSectors:   {"l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum", unitSector, "distinct 32 B sectors of the elements each surface load request read"},
	SurfLdHit:       {"l1tex__t_sectors_pipe_tex_mem_surface_op_ld_lookup_hit.sum", unitSector, "surface load sectors found in L1TEX"},
	SurfLdMiss:      {"l1tex__t_sectors_pipe_tex_mem_surface_op_ld_lookup_miss.sum", unitSector, "surface load sectors not in L1TEX"},
	SurfStRequests:  {"l1tex__t_requests_pipe_tex_mem_surface_op_st.sum", unitRequest, "surface store requests (sust): one per group of lanes with an element to write"},
	SurfStSectors:   {"l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum", unitSector, "distinct 32 B sectors surface store requests wrote (written through to L2)"},
	SurfRedRequests: {"l1tex__t_requests_pipe_tex_mem_surface_op_red.sum", unitRequest, "surface reduction requests (sured): one per group of lanes"},
	SurfRedSectors:  {"l1tex__t_sectors_pipe_tex_mem_surface_op_red.sum", unitSector, "distinct 32 B sectors surface reductions touched (performed in L2)"},

	SharedLdRequests:      {"ptxvm__shared_requests_op_ld.sum", unitRequest, "warp-level shared loads (PTX instructions; ptxas may merge or split them)"},
	SharedLdWavefronts:    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", unitWavefront, "shared-memory data-stage wavefronts of shared loads (1 per conflict-free 32-bit request)"},
	SharedLdConflicts:     {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", unitWavefront, "wavefronts of shared loads beyond the minimum their width needs (bank conflicts)"},
	SharedStRequests:      {"ptxvm__shared_requests_op_st.sum", unitRequest, "warp-level shared stores (PTX instructions)"},
	SharedStWavefronts:    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", unitWavefront, "shared-memory data-stage wavefronts of shared stores"},
	SharedStConflicts:     {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", unitWavefront, "wavefronts of shared stores beyond the minimum their width needs (bank conflicts)"},
	SharedAtomRequests:    {"ptxvm__shared_requests_op_atom.sum", unitRequest, "warp-level shared atomics and reductions (PTX instructions)"},
	SharedAtomWavefronts:  {"ptxvm__shared_wavefronts_op_atom.sum", unitWavefront, "wavefronts of shared atomics: lanes on one word serialise (ptxas turns some into CAS loops, which ncu counts as loads and atomics)"},
	SharedAtomConflicts:   {"ptxvm__shared_bank_conflicts_op_atom.sum", unitWavefront, "wavefronts of shared atomics beyond one"},
	SharedSyncRequests:    {"ptxvm__shared_requests_op_mbarrier.sum", unitRequest, "warp-level mbarrier operations on shared memory (sm_90 runs them in its synchronisation unit, SYNCS: not LSU shared loads or stores for ncu)"},
	SharedSyncWavefronts:  {"ptxvm__shared_wavefronts_op_mbarrier.sum", unitWavefront, "shared-memory wavefronts of mbarrier operations"},
	SharedAsyncRequests:   {"ptxvm__shared_requests_op_cp_async.sum", unitRequest, "warp-level shared-memory writes of cp.async (LDGSTS: ncu counts their global reads as global loads, their shared writes as neither shared loads nor stores)"},
	SharedAsyncWavefronts: {"ptxvm__shared_wavefronts_op_cp_async.sum", unitWavefront, "shared-memory wavefronts of cp.async's writes"},
	BulkRdRequests:        {"ptxvm__bulk_requests_op_read.sum", unitRequest, "reads of global memory by bulk copies and TMA loads, in pieces of up to 512 contiguous bytes (the TMA unit's traffic, to L2 without L1)"},
	BulkRdSectors:         {"ptxvm__bulk_sectors_op_read.sum", unitSector, "32 B sectors bulk copies and TMA loads read from L2"},
	BulkRdBytes:           {"ptxvm__bulk_bytes_read.sum", unitByte, "bytes bulk copies and TMA loads fetched from L2 (sectors × 32)"},
	BulkWrRequests:        {"ptxvm__bulk_requests_op_write.sum", unitRequest, "writes and reductions of global memory by bulk copies and TMA stores, in pieces of up to 512 contiguous bytes"},
	BulkWrSectors:         {"ptxvm__bulk_sectors_op_write.sum", unitSector, "32 B sectors bulk copies and TMA stores and reductions wrote to L2"},

	ConstRequests:   {"ptxvm__const_requests.sum", unitRequest, "warp-level constant and kernel-parameter bank loads (ptxas turns most into instruction operands)"},
	ConstWavefronts: {"ptxvm__const_wavefronts.sum", unitWavefront, "constant-cache accesses: one per distinct address of a request (a uniform address is one broadcast)"},
	ConstHit:        {"ptxvm__const_lookup_hit.sum", unitWavefront, "constant-cache accesses found in the SM's constant cache"},
	ConstMiss:       {"ptxvm__const_lookup_miss.sum", unitWavefront, "constant-cache accesses that missed and went to L2"},

	L2ReadSectors:     {"lts__t_sectors_op_read.sum", unitSector, "32 B sector reads looked up in L2 (L1, texture and constant misses, and their lookups over the fabric)"},
	L2ReadHit:         {"lts__t_sectors_op_read_lookup_hit.sum", unitSector, "L2 read sectors that hit"},
	L2WriteSectors:    {"lts__t_sectors_op_write.sum", unitSector, "32 B sector writes looked up in L2 (stores pass through L1; a line homed in the other partition is written at both)"},
	L2WriteHit:        {"lts__t_sectors_op_write_lookup_hit.sum", unitSector, "L2 write sectors already present"},
	L2AtomSectors:     {"ptxvm__lts_sectors_op_atom.sum", unitSector, "distinct 32 B sectors of each global atomic request, performed in L2 (ncu's lts__t_sectors_op_atom can count more per request)"},
	L2AtomHit:         {"ptxvm__lts_sectors_op_atom_lookup_hit.sum", unitSector, "L2 atomic sectors that hit"},
	L2RedSectors:      {"ptxvm__lts_sectors_op_red.sum", unitSector, "distinct 32 B sectors of each global reduction request, performed in L2"},
	L2RedHit:          {"ptxvm__lts_sectors_op_red_lookup_hit.sum", unitSector, "L2 reduction sectors that hit"},
	L2FarSectors:      {"ptxvm__lts_sectors_far.sum", unitSector, "L2 sectors whose home slice is in the other partition than the requesting SM's"},
	L2TexReadSectors:  {"lts__t_sectors_srcunit_tex_op_read.sum", unitSector, "L2 read sectors requested by L1TEX (global, local and texture misses; not constant misses, not the fabric's lookups)"},
	L2TexReadHit:      {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", unitSector, "L1TEX read sectors that hit in the SM's L2 slice"},
	L2TexWriteSectors: {"lts__t_sectors_srcunit_tex_op_write.sum", unitSector, "L2 write sectors from L1TEX (stores)"},
	L2TexWriteHit:     {"lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum", unitSector, "L1TEX write sectors counted as hits"},
	L2FabricSectors:   {"lts__t_sectors_srcunit_ltcfabric.sum", unitSector, "L2 sectors looked up at their home slice for the other partition (near-copy misses, writes, atomics), over the fabric between partitions"},
	L2FabricHit:       {"lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum", unitSector, "fabric lookups that hit at the home slice"},

	DRAMReadSectors:  {"dram__sectors_read.sum", unitSector, "32 B sectors read from DRAM (L2 misses)"},
	DRAMWriteSectors: {"dram__sectors_write.sum", unitSector, "32 B sectors written to DRAM (dirty L2 evictions, write-through stores)"},

	L2SysmemReadSectors:  {"lts__t_sectors_aperture_sysmem_op_read.sum", unitSector, "L2 read sectors of system memory (mapped and pinned host memory a kernel reads)"},
	L2SysmemWriteSectors: {"lts__t_sectors_aperture_sysmem_op_write.sum", unitSector, "L2 write sectors of system memory (mapped and pinned host memory a kernel writes)"},
	HostLinkReadBytes:    {"ptxvm__host_link_bytes_read.sum", unitByte, "bytes kernels read over the host link from mapped and pinned memory (the L2's sysmem misses × 32 B)"},
	HostLinkWriteBytes:   {"ptxvm__host_link_bytes_write.sum", unitByte, "bytes kernels wrote over the host link to mapped and pinned memory (32 B a sector written whole, the bytes written of a sector written in part)"},
	ManagedFaults:        {"ptxvm__managed_faults.sum", unitRequest, "faults on managed memory: touches of a page not on the device and not on its way (each moves its page and the pages after it, up to the profile's prefetch size)"},
	ManagedMigratedBytes: {"ptxvm__managed_bytes_migrated_htod.sum", unitByte, "managed-memory bytes those faults moved from the host to the device (pages no one had touched are made on the device and move nothing)"},
}

// Info describes counter c.
func (c Counter) Info() CounterInfo {
	if c < NumCounters {
		return counterInfo[c]
	}
	return CounterInfo{Name: "ptxvm__unknown"}
}

// String is the counter's metric name.
func (c Counter) String() string { return c.Info().Name }

// Counts is one set of raw counters.
type Counts [NumCounters]uint64

// Add adds o into c.
func (c *Counts) Add(o *Counts) {
	for i := range c {
		c[i] += o[i]
	}
}
