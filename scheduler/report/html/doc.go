// Package html renders a report (package scheduler/report) as one
// self-contained HTML file: no network, no external scripts, fonts or
// styles, so that it can be mailed, archived or opened offline.
//
// Write renders one run: the launch and its occupancy; the figures at a
// glance and the worst accesses in plain words; charts drawn as inline SVG
// (sectors per request of each global, local and texture instruction
// against what its bytes need, shared-memory wavefronts per request, that
// is the bank-conflict ways, the cache hit rates, the bytes moved at each
// level); the source view, the CUDA lines (.loc's file:line labels, with
// their text where the CUDA file is given, see FindSources) and the PTX,
// each line with heat for its requests, sectors, sectors per request,
// excess sectors, wavefronts and bank conflicts; the top instructions; and
// every counter the run produced with its one-line meaning.
//
// A timed report (report.Timing) adds: the cycles, achieved occupancy, IPC
// and top stall reason among the cards; where the time goes, the stall
// sentences linked to their lines; a chart of the stall reasons per issued
// instruction and one of the stall cycles per source line stacked by
// reason, one colour per reason everywhere; stall-cycle heat columns in the
// source views; and the timeline (report.Timeline) as inline SVG drawn
// with one path per colour: blocks resident per SM over the cycles, the
// sampled SMs' warp slots coloured by state, and a detail of the first
// block's start.
//
// WriteCompare renders two runs side by side (report.Compare): what
// changed, biggest first, in words and as paired bars, the diagnoses that
// differ, both runs' charts and CUDA lines on the same scales, and every
// metric with its ratio; when both runs were timed, the cycles lead, the
// stall charts pair up and both timelines share one cycle axis.
//
// Templates, the style sheet and the few lines of script (a filter for the
// counter table; opening folded sections before printing) are embedded;
// html/template escapes every value. Colours are the Okabe–Ito palette and
// a single-hue heat scale, and every coloured bar and cell carries its
// number, so that nothing depends on telling red from green (the
// timeline's states are named in its legend and in each path's title).
//
// It does not run kernels or count anything (packages scheduler and
// scheduler/report do), and reads no files but the CUDA sources
// FindSources is asked to look for.
package html
