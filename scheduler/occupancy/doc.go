// Package occupancy computes how many blocks of a launch an SM holds (the
// theoretical occupancy) and what limits it, as the CUDA occupancy
// calculator and Nsight Compute do, under ncu's names
// (sm__maximum_warps_per_active_cycle_pct, launch__occupancy_limit_registers,
// _shared_mem, _warps, _blocks, _barriers): Compute on a GPU profile and the
// launch's threads, registers, shared memory and barriers. It also reads the
// barriers a kernel's PTX uses (Barriers) and the registers it declares
// (DeclaredRegisters, an upper bound; the run estimates the count with package
// scheduler/regs instead).
//
// Every figure equals ncu's for every launch of the corpora under testdata
// when given ncu's register count and carveout; the carveout the driver
// picks is predicted by hier.Config.Carveout.
//
// It does not run kernels, place blocks on SMs or model time.
package occupancy
