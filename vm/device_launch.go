package vm

import (
	"fmt"

	"github.com/ptxvm/ptxvm/memspace"
)

// LaunchConfig is a kernel launch's geometry.
type LaunchConfig struct {
	Grid    [3]uint32
	Block   [3]uint32
	DynSmem uint64
	// Cluster is the cluster shape in blocks, as cudaLaunchKernelEx's
	// cudaLaunchAttributeClusterDimension gives it; zero: none given (the
	// kernel's .reqnctapercluster, if it declares one, else clusters of
	// one block).
	Cluster [3]uint32
}

// PrepareLaunch checks a launch against the hardware limits and the
// kernel's signature and writes the parameter buffer. args holds one value
// per kernel parameter, each exactly the parameter's size.
func (m *Module) PrepareLaunch(kernel string, cfg LaunchConfig, args [][]byte) (*Launch, error) {
	k, err := m.Kernel(kernel)
	if err != nil {
		return nil, err
	}
	if err := checkGeometry(k, cfg); err != nil {
		return nil, err
	}
	cluster, explicit, err := clusterShape(k, cfg)
	if err != nil {
		return nil, err
	}
	if len(args) != len(k.Params) {
		return nil, fmt.Errorf("kernel %s takes %d parameters, %d arguments were given", kernel, len(k.Params), len(args))
	}
	pa, err := m.dev.Mem.Malloc(max(k.ParamSize, 1), "the parameters of "+kernel)
	if err != nil {
		return nil, err
	}
	for i, p := range k.Params {
		if uint64(len(args[i])) != p.Size {
			_ = m.dev.Mem.Free(pa.Base)
			return nil, fmt.Errorf("kernel %s parameter %d (%s, %s, %d bytes): argument has %d bytes", kernel, i, p.Name, p.Type, p.Size, len(args[i]))
		}
		copy(pa.Data[p.Offset:], args[i])
	}
	m.dev.grids++
	return &Launch{Kernel: k, Module: m, Grid: cfg.Grid, Block: cfg.Block, DynSmem: cfg.DynSmem, Cluster: cluster, ExplicitCluster: explicit,
		params: pa, NumSMs: 1, GridID: m.dev.grids, recursiveKernel: k.recursive()}, nil
}

// clusterShape is the cluster shape of a launch of k: the kernel's
// .reqnctapercluster or the launch's, which must agree when both are
// given; (1,1,1) when neither is. explicit is what %is_explicit_cluster
// reads. The grid must be a multiple of the shape, as CUDA requires.
func clusterShape(k *Kernel, cfg LaunchConfig) (shape [3]uint32, explicit bool, err error) {
	shape = [3]uint32{1, 1, 1}
	req, hasReq := k.Perf[".reqnctapercluster"]
	_, declared := k.Perf[".explicitcluster"]
	given := cfg.Cluster != [3]uint32{}
	c := cfg.Cluster
	if given && (c[0] == 0 || c[1] == 0 || c[2] == 0) {
		return shape, false, fmt.Errorf("kernel %s: cluster (%d,%d,%d) has a zero dimension", k.Name, c[0], c[1], c[2])
	}
	switch {
	case hasReq:
		for i, v := range req {
			if i < 3 {
				if v < 1 || v > memspace.MaxClusterSize {
					return shape, false, fmt.Errorf("kernel %s: .reqnctapercluster %v is out of range", k.Name, req)
				}
				shape[i] = uint32(v)
			}
		}
		if given && c != shape {
			return shape, false, fmt.Errorf("kernel %s declares clusters of (%d,%d,%d) blocks (.reqnctapercluster); the launch asks for (%d,%d,%d)",
				k.Name, shape[0], shape[1], shape[2], c[0], c[1], c[2])
		}
	case given:
		shape = c
	case declared:
		return shape, false, fmt.Errorf("kernel %s is declared .explicitcluster: the launch must give a cluster shape (the spec's \"cluster\")", k.Name)
	}
	n := uint64(shape[0]) * uint64(shape[1]) * uint64(shape[2])
	if n > memspace.MaxClusterSize {
		return shape, false, fmt.Errorf("kernel %s: a cluster of (%d,%d,%d) is %d blocks; at most %d are allowed (8 without cudaFuncAttributeNonPortableClusterSizeAllowed)",
			k.Name, shape[0], shape[1], shape[2], n, memspace.MaxClusterSize)
	}
	if v, ok := k.Perf[".maxclusterrank"]; ok && len(v) > 0 && int64(n) > v[0] {
		return shape, false, fmt.Errorf("kernel %s allows at most %d blocks per cluster (.maxclusterrank); the launch's clusters of (%d,%d,%d) have %d", k.Name, v[0], shape[0], shape[1], shape[2], n)
	}
	g := cfg.Grid
	if g[0]%shape[0] != 0 || g[1]%shape[1] != 0 || g[2]%shape[2] != 0 {
		return shape, false, fmt.Errorf("kernel %s: grid (%d,%d,%d) is not a multiple of the cluster (%d,%d,%d) in every dimension", k.Name, g[0], g[1], g[2], shape[0], shape[1], shape[2])
	}
	return shape, hasReq || declared || given, nil
}

func checkGeometry(k *Kernel, cfg LaunchConfig) error {
	g, b := cfg.Grid, cfg.Block
	for i := 0; i < 3; i++ {
		if g[i] == 0 || b[i] == 0 {
			return fmt.Errorf("kernel %s: grid (%d,%d,%d) and block (%d,%d,%d) must have no zero dimension", k.Name, g[0], g[1], g[2], b[0], b[1], b[2])
		}
	}
	if b[0] > 1024 || b[1] > 1024 || b[2] > MaxBlockDimZ {
		return fmt.Errorf("kernel %s: block (%d,%d,%d) exceeds the limits (1024, 1024, 64)", k.Name, b[0], b[1], b[2])
	}
	if n := uint64(b[0]) * uint64(b[1]) * uint64(b[2]); n > MaxThreadsPerBlock {
		return fmt.Errorf("kernel %s: block (%d,%d,%d) has %d threads; at most %d are allowed", k.Name, b[0], b[1], b[2], n, MaxThreadsPerBlock)
	}
	if g[0] > MaxGridDimX || g[1] > MaxGridDimYZ || g[2] > MaxGridDimYZ {
		return fmt.Errorf("kernel %s: grid (%d,%d,%d) exceeds the limits (2147483647, 65535, 65535)", k.Name, g[0], g[1], g[2])
	}
	threads := b[0] * b[1] * b[2]
	if v, ok := k.Perf[".reqntid"]; ok {
		want := [3]int64{1, 1, 1}
		copy(want[:], v)
		if int64(b[0]) != want[0] || int64(b[1]) != want[1] || int64(b[2]) != want[2] {
			return fmt.Errorf("kernel %s requires block (%d,%d,%d) (.reqntid); the launch uses (%d,%d,%d)", k.Name, want[0], want[1], want[2], b[0], b[1], b[2])
		}
	}
	if v, ok := k.Perf[".maxntid"]; ok {
		max := int64(1)
		for _, x := range v {
			max *= x
		}
		if int64(threads) > max {
			return fmt.Errorf("kernel %s allows at most %d threads per block (.maxntid); the launch uses %d", k.Name, max, threads)
		}
	}
	if s := k.DynamicBase - SharedReserved + cfg.DynSmem; s > memspace.MaxSharedPerCTA {
		return fmt.Errorf("kernel %s: %d bytes of shared memory per block (%d static + %d dynamic) exceed the %d-byte limit", k.Name, s, k.SharedStatic, cfg.DynSmem, memspace.MaxSharedPerCTA)
	}
	return nil
}
