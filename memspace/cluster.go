package memspace

// Distributed shared memory.
//
// The blocks (CTAs) of a cluster address one another's shared memory
// through the shared::cluster window, laid out in 16 MiB slots as on the
// H100 (recorded: testdata/clusters, the mapa launch):
//
//	bits 24-31  the rank of the block whose shared memory it is
//	bits  0-23  the offset in that block's shared memory
//
// A block's own shared::cta addresses are those of its slot (ptxas
// computes a shared variable's address as %cluster_ctarank<<24 plus its
// offset: S2UR SR_CgaCtaId, then a shift by 24), so every shared::cta
// address is the shared::cluster address of the same byte, and a launch
// without clusters (rank 0) sees plain offsets. mapa replaces the rank
// (ClusterAddr), getctarank reads it (ClusterRank). A generic address of
// shared memory is SharedWindow plus its shared::cluster address. A block
// holds at most 227 KiB of shared memory and a cluster at most 16 blocks.

// ClusterSlotBits is the width of the offset in a shared::cluster address.
const ClusterSlotBits = 24

// ClusterOffsetMask selects the offset of a shared::cluster address.
const ClusterOffsetMask = 1<<ClusterSlotBits - 1

// MaxClusterSize is the most blocks a cluster may hold (the H100's limit
// with cudaFuncAttributeNonPortableClusterSizeAllowed; 8 without).
const MaxClusterSize = 16

// ClusterAddr returns the shared::cluster address of the byte at shared
// address a in the block of rank r: what mapa.shared::cluster computes.
func ClusterAddr(a uint64, r uint32) uint64 {
	return uint64(r)<<ClusterSlotBits | a&ClusterOffsetMask
}

// ClusterRank returns the rank of the block whose shared memory
// shared::cluster address a is in: what getctarank computes.
func ClusterRank(a uint64) uint32 { return uint32(a >> ClusterSlotBits) }

// SharedCluster is the shared memory of a cluster's blocks, by rank, as the
// View of each of its warps sees it: nil for a block not resident (not yet
// admitted, or retired).
type SharedCluster struct {
	Blocks [][]byte
}

// clusterBytes returns the n bytes at shared::cluster address addr (one
// outside the executing block's own shared memory) for lane l.
func (v *View) clusterBytes(addr, n uint64, l int) ([]byte, *Fault) {
	slot := addr >> ClusterSlotBits
	off := addr & ClusterOffsetMask
	own := v.SharedBase >> ClusterSlotBits
	if v.Cluster == nil || slot == own {
		return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: outOf("shared memory", addr-v.SharedBase, n, uint64(len(v.Shared)))}
	}
	if slot >= uint64(len(v.Cluster.Blocks)) {
		return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: "the shared::cluster address names rank " + itoa(slot) + "; the cluster has " + itoa(uint64(len(v.Cluster.Blocks))) + " blocks"}
	}
	sh := v.Cluster.Blocks[slot]
	if sh == nil {
		return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: "the block of rank " + itoa(slot) + " in the cluster has exited (distributed shared memory is valid only while every block of the cluster runs)"}
	}
	if off < uint64(len(sh)) && off+n <= uint64(len(sh)) {
		return sh[off : off+n], nil
	}
	return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: outOf("the shared memory of the block of rank "+itoa(slot), off, n, uint64(len(sh)))}
}
