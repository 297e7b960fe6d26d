// Package shard splits an ordered list of work (the cases of a suite, the
// lines of a sweep) between N processes that share nothing: shard I of N
// takes the items whose index i in the list has i mod N = I. Every process
// that sees the same list makes the same split, so N machines can each run
// one shard and their results, put back in list order, are what one process
// running the whole list gives. Dealing the items round robin, rather than
// in N runs of consecutive items, spreads neighbours (often the same kernel
// at growing sizes) over the shards, which keeps the shards' times close.
//
// A shard is written I/N, I counting from 0 as a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX does; env/N and env take I (and N) from the
// environment of a Kubernetes Indexed Job or a Slurm job array (Parse).
//
// It does not run anything, or know what the items are.
package shard
