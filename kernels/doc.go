// Package kernels bundles example PTX modules (as nvcc emitted them) with
// launch specs, input generators and Go reference implementations, embedded
// with go:embed.
package kernels
