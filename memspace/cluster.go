package memspace

// Distributed shared memory.
//
// The blocks (CTAs) of a cluster address one another's shared memory
// through the shared::cluster window. ptxvm lays it out in 16 MiB slots:
//
//	bits 24-31  0: the executing block's own shared memory (every
//	            shared::cta address is a valid shared::cluster address of
//	            the same byte); r+1: the block of rank r in the cluster
//	bits  0-23  the offset in that block's shared memory
//
// mapa and getctarank compute with this layout (ClusterAddr, ClusterRank);
// a generic address of another block's shared memory is SharedWindow plus
// its shared::cluster address. A block holds at most 227 KiB of shared
// memory and a cluster at most 16 blocks, so both fit.

// ClusterSlotBits is the width of the offset in a shared::cluster address.
const ClusterSlotBits = 24

// ClusterOffsetMask selects the offset of a shared::cluster address.
const ClusterOffsetMask = 1<<ClusterSlotBits - 1

// MaxClusterSize is the most blocks a cluster may hold (the H100's limit
// with cudaFuncAttributeNonPortableClusterSizeAllowed; 8 without).
const MaxClusterSize = 16

// ClusterAddr returns the shared::cluster address of the byte at shared
// (shared::cta or shared::cluster) address a in the block of rank r: what
// mapa.shared::cluster computes.
func ClusterAddr(a uint64, r uint32) uint64 {
	return (uint64(r)+1)<<ClusterSlotBits | a&ClusterOffsetMask
}

// ClusterRank returns the rank of the block whose shared memory
// shared::cluster address a is in, own being the executing block's: what
// getctarank computes.
func ClusterRank(a uint64, own uint32) uint32 {
	if s := uint32(a >> ClusterSlotBits); s != 0 {
		return s - 1
	}
	return own
}

// SharedCluster is the shared memory of a cluster's blocks, by rank, as the
// View of each of its warps sees it: nil for a block not resident (not yet
// admitted, or retired).
type SharedCluster struct {
	Blocks [][]byte
}

// clusterBytes returns the n bytes at shared::cluster address addr (one
// outside the executing block's own window) for lane l.
func (v *View) clusterBytes(addr, n uint64, l int) ([]byte, *Fault) {
	slot := addr >> ClusterSlotBits
	off := addr & ClusterOffsetMask
	if v.Cluster == nil || slot == 0 || slot > uint64(len(v.Cluster.Blocks)) {
		if v.Cluster != nil && slot > uint64(len(v.Cluster.Blocks)) && slot <= 0xff {
			return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: "the shared::cluster address names rank " + itoa(slot-1) + "; the cluster has " + itoa(uint64(len(v.Cluster.Blocks))) + " blocks"}
		}
		return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: outOf("shared memory", addr, n, uint64(len(v.Shared)))}
	}
	sh := v.Cluster.Blocks[slot-1]
	if sh == nil {
		return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: "the block of rank " + itoa(slot-1) + " in the cluster has exited (distributed shared memory is valid only while every block of the cluster runs)"}
	}
	if off < uint64(len(sh)) && off+n <= uint64(len(sh)) {
		return sh[off : off+n], nil
	}
	return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: outOf("the shared memory of the block of rank "+itoa(slot-1), off, n, uint64(len(sh)))}
}
