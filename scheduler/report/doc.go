// Package report turns a counted run (scheduler.SpecRun with its memory
// hierarchy) into what a person asks of it: the launch and its occupancy,
// a memory summary, every memory instruction with its PTX line, CUDA line
// (from .loc), counters and a plain-words diagnosis ("stride-32 access (128
// B between lanes): 32 sectors per request where 4 would do", "32-way bank
// conflict", "uniform address: broadcast"), the traffic per CUDA line, and
// the top instructions by sectors, excess sectors and bank conflicts (New,
// WriteText; the JSON encoding of Report for machines).
//
// A timed run (scheduler.ModeTiming) adds the timing section (Timing): the
// cycles, time, achieved occupancy, issue-slot use and IPC, the stall
// reasons per issued instruction under Nsight Compute's names, where the
// stall cycles went in words ("warps wait on global loads at matmul.cu:14:
// 71% of stalls"), and the stall cycles per PTX instruction and per CUDA
// line, both as ncu's source view counts them (warps waiting to issue the
// instruction) and charged to the instruction whose result the warps
// waited for. AddTimeline aggregates a recorded timing.Trace into a
// Timeline a page can draw in bounded size.
//
// Compare lays two reports side by side (with their timing, when both were
// timed). Catalogue lists every metric a run can report with its one-line
// meaning.
//
// It does not run kernels (package scheduler does) or count anything itself
// (memspace/hier and scheduler/timing do); cmd/ptxrun only prints what it
// builds, and package html draws it.
package report
