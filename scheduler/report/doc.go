// Package report turns a counted run (scheduler.SpecRun with its memory
// hierarchy) into what a person asks of it: the launch and its occupancy,
// a memory summary, every memory instruction with its PTX line, CUDA line
// (from .loc), counters and a plain-words diagnosis ("stride-32 access (128
// B between lanes): 32 sectors per request where 4 would do", "32-way bank
// conflict", "uniform address: broadcast"), the traffic per CUDA line, and
// the top instructions by sectors, excess sectors and bank conflicts (New,
// WriteText; the JSON encoding of Report for machines). Compare lays two
// reports side by side. Catalogue lists every metric a run can report with
// its one-line meaning.
//
// It does not run kernels (package scheduler does) or count anything itself
// (memspace/hier does); cmd/ptxrun only prints what it builds.
package report
