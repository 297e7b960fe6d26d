// Package timing is the cycle-level timing model: it runs a launch on the
// SMs of a GPU profile one warp instruction at a time (vm.SM.Step) and
// decides when each instruction issues, so that a launch has cycles, stall
// reasons, achieved occupancy and a timeline, while the VM computes exactly
// what the functional run computes.
//
// It owns:
//   - the block scheduler: blocks dealt to SMs in waves up to the
//     launch's occupancy, the next block going to the SM where one ended,
//     at the scheduler's pace (gpu.Timing.CTADispatchCycles), each
//     launching in CTALaunchCycles plus CTALaunchWarpCycles per warp (the
//     H100's turnaround, testdata/perf/micro/sched/turnaround.*);
//   - per SM sub-partition a warp scheduler (gto_rr, greedy-then-oldest
//     or loose round robin: gpu.Timing.Scheduler), one issue per cycle, a
//     block's warps dealt to the sub-partitions in turn from where the
//     SM's rotation stands, as the H100 deals them (smspOf, nextRot);
//     instruction fetch by line into a per-SM instruction cache
//     (gpu.Timing.Fetch: no_instruction); per warp a scoreboard of its
//     registers, predicates and carry flag (from vm.InstInfo; a predicate
//     that guards an instruction gpu.Timing.GuardCycles later than it can
//     be an operand), fixed
//     latencies per pipe with their throughputs, the MIO, LSU and texture
//     queues with their throttles, the SM's L1/shared data path (one
//     wavefront per gpu.Timing.DataCycles; shared-memory operations served
//     in arrival order or in round robin over warps, gpu.Timing.SharedOrder:
//     datapath.go), barriers (completed one after another by the SM's
//     barrier unit: gpu.Timing.BarrierUnitCycles), branches, memory
//     barriers;
//   - what each PTX instruction issues, from the SASS cost table (package
//     sasscost): machine instructions (fractional ones carried per warp),
//     pipe, latency of expansions such as div.rn.f32, CAS loops per round;
//     calls and returns of functions with a stack frame also issue the
//     frame's stores and loads (sasscost.FrameSaves), and a return waits
//     for its return address to load from L1;
//   - ptxas's scheduling: each basic block is list scheduled over its
//     dependencies before the run (reorder.go), so that loads issue early as
//     in the machine code and register-only work goes ahead of a barrier;
//     functional results are unchanged;
//   - memory latencies from the hierarchy (memspace/hier in windowed mode):
//     what the SM serves itself at once, L2 and DRAM at the end of each
//     window; a parameter load that misses the SM's constant cache holds
//     its warp until the line arrives (ImcMiss: ptxas reads parameters as
//     constant operands);
//   - the stall accounting: every cycle of every resident warp is one of
//     Nsight Compute's stall reasons (Stall), per instruction too, and the
//     plain-words report of where they went (StallSources);
//   - sampled timing of huge launches (docs/sampling.md): a slice of the
//     GPU (spatial.go), the first waves in detail and the rest
//     extrapolated (sample.go), and --sample auto's decision, taken before
//     the launch from 16 of its blocks run ahead and undone (auto.go);
//   - the timeline (Trace, Chrome Trace Event JSON);
//   - the calibration tool (calibrate/, a command).
//
// # Parallel and deterministic
//
// SMs advance independently within a window of cycles shorter than the
// shortest L2 round trip, on any number of host goroutines; at the window's
// end their L2 and DRAM traffic is merged in a fixed order (hier.Resolve)
// and the blocks that ended make room for new ones. A warp waiting on L2
// data cannot issue before the window ends anyway, so nothing is lost, and
// cycles, counters and traces do not depend on the number of goroutines
// (for kernels whose blocks do not race with one another; a kernel whose
// blocks interact through global atomics runs on one goroutine unless
// Options.Workers asks for more). A window's SMs go to whichever worker is
// free (shares.go), and each SM dates its own L1 fills at the start of its
// next advance (hier.Hierarchy.DeferFills), so that little runs between
// windows on one goroutine. Idle cycles are
// skipped: a sub-partition with nothing to issue sleeps until its next
// event, an SM with nothing to do until the next window with work.
//
// It does not interpret instructions (package vm does), model caches
// (memspace/hier), compute occupancy (scheduler/occupancy) or hold the
// profiles (scheduler/gpu).
package timing
