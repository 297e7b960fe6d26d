// Package sweep runs a sweep: a JSONL file whose every line asks for one
// launch (a launch spec, a GPU profile, a mode: functional or timing, and
// any fields of the user's own, carried through), and writes one JSONL
// result per line: the line's input echoed, the cycles and the key
// counters, or the error that stopped it.
//
// A sweep is made to be split and resumed. Its output is appended a
// result at a time as launches finish, so a process that is stopped loses
// only the launches under way, and a rerun with the same output skips the
// lines already done (Output); when every line of the run is done the file
// is rewritten in input order. A result holds no host time, and the
// launches are deterministic, so a result is the same bytes whichever
// process or machine ran it (given the sweep file by the same path: an
// error names the files it concerns): the outputs of N shards (package
// shard) merged in line order (Merge) are exactly the output of one
// process running the whole sweep.
//
// It does not run launches itself (package scheduler does), compare
// outputs with a GPU's (package suite does), or decide the split (package
// shard).
package sweep
