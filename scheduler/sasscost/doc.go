// Package sasscost says what the SM issues for each PTX instruction: the
// GPU runs ptxas's machine code (SASS), not PTX, and one PTX form can become
// no machine instruction (address arithmetic folded into a load's offset, a
// move of a constant), one, or a sequence (div.rn.f32, rem, sqrt.rn, f64
// division, 64-bit multiplies).
//
// It owns:
//   - Form, the name of an instruction's PTX form at the granularity the
//     cost table distinguishes;
//   - Table, the cost of each form (issue slots per execution, the pipe it
//     issues to, its latency, the extra rounds of an atomic), loaded from the
//     embedded tables/h100.json or a file, and Lookup on it;
//   - FrameSaves, the registers a function's stack frame saves under
//     ptxas's calling convention (return address, values live across its
//     calls, the caller's convergence barrier), whose stores and loads
//     (form FrameSave, once per saved register per call) a call and a
//     return issue beside their own machine instructions;
//   - Problem, the non-negative least-squares fit that computes a table from
//     per-launch dynamic form counts and the machine instructions ncu counted
//     (smsp__inst_executed.sum).
//
// The fitting data (data/launches.json: form counts of every corpus launch)
// and the priors (priors.json: costs read off the committed SASS) live here;
// the command scheduler/timing/calibrate regenerates them. It does not own
// when instructions issue (package scheduler/timing) nor the pipes'
// latencies and throughputs (the GPU profile, package scheduler/gpu).
package sasscost
