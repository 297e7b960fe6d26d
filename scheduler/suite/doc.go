// Package suite runs regression cases: folders holding a launch spec
// (spec.json) and what a real GPU produced: expected/<output>.bin (or .npy),
// expected/<output>.sha256 (the digest of a large output), or
// expected/ERROR (the launch failed on the GPU). It compares what the
// emulator produces with them. `ptxrun test` and the Go tests over the
// committed corpora both use it.
package suite
