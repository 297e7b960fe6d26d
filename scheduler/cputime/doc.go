// Package cputime reads the CPU time this process has used, user and
// system, all threads. On a host whose cores other processes share, a
// launch's CPU time moves far less with their load than its wall time, so
// the benchmarks (kernels, scheduler/timing) and `calibrate sample` report
// it beside the wall time. It does not time anything itself.
package cputime
