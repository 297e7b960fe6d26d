// Package program runs a program of several steps: a launch spec with
// "steps" (vm/spec, docs/launch-spec.md), whose copies, memsets, managed
// memory's prefetches and kernel launches run in order over the same
// buffers, and says what each step costs.
//
// It owns the order of the steps, the state that carries from one step to
// the next (where each managed page is, which lines the last copy or
// memset left in the L2) and the costs of the steps that are not kernels
// (cost.go: copies over the host link by host memory kind and direction,
// memsets, prefetches and the host's touches of managed memory, from the
// GPU profile's host section). A launch step is run by package scheduler
// (functionally or with the timing model); what host and managed memory
// cost inside it is memspace/hier's (its host_link section).
//
// It does not parse specs (vm/spec), model the hierarchy (memspace/hier)
// or print anything (cmd/ptxrun).
package program
