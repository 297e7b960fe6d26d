package occupancy

import (
	"fmt"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// Input is what decides how many blocks of a launch one SM holds.
type Input struct {
	// Threads is the number of threads of a block.
	Threads int
	// Registers is the registers per thread, as ptxas allocated them (ncu's
	// launch__registers_per_thread); 0 when the kernel uses none that
	// count.
	Registers int
	// Shared is a block's own shared memory, static + dynamic, in bytes
	// (without the driver's reserve).
	Shared int
	// Barriers is the number of hardware barriers a block uses (ncu's
	// launch__barrier_count; Barriers of a kernel).
	Barriers int
	// Carveout is the shared-memory carveout of the SM in bytes; 0: the one
	// the driver would pick (hier.Config.CarveoutFor), which reproduces 221
	// of the 222 nvcc corpus launches.
	Carveout int
	// Blocks is the number of blocks of the grid (0: unknown; only the
	// waves metric needs it).
	Blocks int
}

// Result is the theoretical occupancy of a launch and what limits it,
// under Nsight Compute's names.
type Result struct {
	WarpsPerBlock int
	// RegistersPerWarp is the registers a warp is allocated (a multiple of
	// the profile's allocation unit).
	RegistersPerWarp int
	// SharedAllocated is the shared memory one block takes: its own, the
	// driver's reserve, rounded up to the allocation unit
	// (launch__shared_mem_per_block_allocated).
	SharedAllocated int
	// Carveout is the SM's shared-memory carveout
	// (launch__shared_mem_config_size), and CarveoutPredicted whether it
	// is the driver's choice as this package predicts it.
	Carveout          int
	CarveoutPredicted bool
	// The blocks per SM each resource allows (launch__occupancy_limit_*).
	LimitRegisters int
	LimitShared    int
	LimitWarps     int
	LimitBlocks    int
	LimitBarriers  int
	// BlocksPerSM is the smallest limit; WarpsPerSM the warps it keeps
	// resident; Pct those warps as a percentage of the SM's maximum
	// (sm__maximum_warps_per_active_cycle_pct).
	BlocksPerSM int
	WarpsPerSM  int
	Pct         float64
	// Waves is the grid's blocks over what all SMs hold at once
	// (launch__waves_per_multiprocessor; 0 when Input.Blocks is 0).
	Waves float64
	// BlocksOtherThanShared is the smallest limit but that of shared
	// memory: what the carveout is chosen for (hier.Launch.Occupancy);
	// BlocksByThreads the smallest of the warp, block and barrier limits
	// (hier.Launch.ThreadOccupancy).
	BlocksOtherThanShared int
	BlocksByThreads       int
}

// Compute returns the theoretical occupancy of a launch on p, as the CUDA
// occupancy calculator and Nsight Compute compute it:
//
//   - warps: max_warps / warps per block;
//   - blocks: max_blocks;
//   - registers: a warp gets registers × 32 rounded up to the allocation
//     unit, from one part of the register file; the limit is the warps
//     every part holds, over the warps of a block;
//   - shared memory: the carveout over the block's shared memory plus the
//     driver's reserve, rounded up to the allocation unit;
//   - barriers: the SM's barriers over those a block uses (at most
//     max_blocks).
//
// It fails for a launch the GPU would refuse (too many threads, registers
// or shared memory for one block).
func Compute(p *gpu.Profile, in Input) (Result, error) {
	s := &p.SM
	if in.Threads <= 0 || in.Threads > p.Launch.MaxThreadsPerBlock {
		return Result{}, fmt.Errorf("a block of %d threads: the %s allows 1 to %d", in.Threads, p.Name, p.Launch.MaxThreadsPerBlock)
	}
	if in.Registers < 0 || in.Registers > s.MaxRegsPerThread {
		return Result{}, fmt.Errorf("%d registers per thread: the %s allows at most %d", in.Registers, p.Name, s.MaxRegsPerThread)
	}
	if in.Shared < 0 || in.Shared > p.Launch.MaxSharedPerBlock {
		return Result{}, fmt.Errorf("%d bytes of shared memory per block: the %s allows at most %d", in.Shared, p.Name, p.Launch.MaxSharedPerBlock)
	}
	if in.Barriers < 0 || in.Carveout < 0 || in.Blocks < 0 {
		return Result{}, fmt.Errorf("negative barriers, carveout or blocks")
	}
	r := Result{WarpsPerBlock: (in.Threads + 31) / 32}
	wpb := r.WarpsPerBlock

	r.LimitWarps = s.MaxWarps / wpb
	r.LimitBlocks = s.MaxBlocks

	r.LimitRegisters = s.MaxBlocks
	if in.Registers > 0 {
		r.RegistersPerWarp = roundUp(in.Registers*32, s.RegAllocUnit)
		if r.RegistersPerWarp*wpb > s.Registers {
			return Result{}, fmt.Errorf("%d registers per thread × %d threads exceed the %s's %d registers per block", in.Registers, in.Threads, p.Name, s.Registers)
		}
		perPart := s.Registers / s.RegisterFileParts
		r.LimitRegisters = perPart / r.RegistersPerWarp * s.RegisterFileParts / wpb
	}

	r.LimitBarriers = s.MaxBlocks
	if in.Barriers > 0 && s.Barriers > 0 {
		r.LimitBarriers = min(s.MaxBlocks, s.Barriers/in.Barriers)
	}

	r.BlocksOtherThanShared = min(r.LimitWarps, r.LimitBlocks, r.LimitRegisters, r.LimitBarriers)
	r.BlocksByThreads = min(r.LimitWarps, r.LimitBlocks, r.LimitBarriers)

	r.SharedAllocated = roundUp(in.Shared+p.Memory.L1.ReservedSharedPerCTA, s.SharedAllocUnit)
	r.Carveout = in.Carveout
	if r.Carveout == 0 {
		r.Carveout, _ = p.Memory.CarveoutFor(in.Shared, r.BlocksOtherThanShared, r.BlocksByThreads)
		r.CarveoutPredicted = true
	}
	if r.SharedAllocated > r.Carveout {
		return Result{}, fmt.Errorf("a block's %d bytes of shared memory (with the driver's reserve) do not fit in the %d-byte carveout", r.SharedAllocated, r.Carveout)
	}
	r.LimitShared = s.MaxBlocks
	if r.SharedAllocated > 0 {
		r.LimitShared = r.Carveout / r.SharedAllocated
	}

	r.BlocksPerSM = min(r.BlocksOtherThanShared, r.LimitShared)
	r.WarpsPerSM = r.BlocksPerSM * wpb
	r.Pct = 100 * float64(r.WarpsPerSM) / float64(s.MaxWarps)
	if in.Blocks > 0 && r.BlocksPerSM > 0 {
		r.Waves = float64(in.Blocks) / float64(r.BlocksPerSM*p.SMs)
	}
	return r, nil
}

func roundUp(v, unit int) int {
	if unit <= 1 {
		return v
	}
	return (v + unit - 1) / unit * unit
}

// Limiters names the resources whose limit is the occupancy (several when
// they tie), in the order registers, shared memory, warps, blocks,
// barriers.
func (r *Result) Limiters() []string {
	var out []string
	for _, l := range []struct {
		name string
		v    int
	}{{"registers", r.LimitRegisters}, {"shared memory", r.LimitShared}, {"warps", r.LimitWarps}, {"blocks", r.LimitBlocks}, {"barriers", r.LimitBarriers}} {
		if l.v == r.BlocksPerSM {
			out = append(out, l.name)
		}
	}
	return out
}

// Metric is one occupancy figure under its metric name, with a one-line
// meaning.
type Metric struct {
	Name  string
	Value float64
	Help  string
}

// Metrics returns the occupancy figures under Nsight Compute's names
// (launch__waves_per_multiprocessor only when the grid size was given).
func (r *Result) Metrics() []Metric {
	m := []Metric{
		{"sm__maximum_warps_per_active_cycle_pct", r.Pct, "theoretical occupancy: 100 × warps per SM the limits allow / the SM's maximum warps"},
		{"sm__maximum_warps_avg_per_active_cycle", float64(r.WarpsPerSM), "warps per SM the limits allow (blocks per SM × warps per block)"},
		{"launch__occupancy_limit_registers", float64(r.LimitRegisters), "blocks per SM the register file allows (registers × 32 per warp, rounded up to the allocation unit, per register-file part)"},
		{"launch__occupancy_limit_shared_mem", float64(r.LimitShared), "blocks per SM the shared-memory carveout allows (carveout / allocated shared memory per block)"},
		{"launch__occupancy_limit_warps", float64(r.LimitWarps), "blocks per SM the warp slots allow (max warps / warps per block)"},
		{"launch__occupancy_limit_blocks", float64(r.LimitBlocks), "blocks per SM the block slots allow"},
		{"launch__occupancy_limit_barriers", float64(r.LimitBarriers), "blocks per SM the hardware barriers allow (SM barriers / barriers per block)"},
		{"launch__shared_mem_config_size", float64(r.Carveout), "the SM's shared-memory carveout in bytes (predicted as the driver picks it unless given)"},
		{"launch__shared_mem_per_block_allocated", float64(r.SharedAllocated), "shared memory a block takes: its own + the driver's reserve, rounded up to the allocation unit"},
	}
	if r.Waves > 0 {
		m = append(m, Metric{"launch__waves_per_multiprocessor", r.Waves, "grid blocks / (blocks per SM × SMs)"})
	}
	return m
}
