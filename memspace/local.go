package memspace

// The physical layout of local memory, as Access reports it.
//
// A program addresses local memory per thread: offset 0 of every thread's
// stack is a different place. The GPU interleaves the threads of a warp so
// that one instruction's accesses coalesce: the copies of one 4-byte word of
// the warp's 32 threads are adjacent (128 bytes), the next word of all 32
// threads follows, and so on. Thread offset o of lane l of a warp lies at
//
//	base(warp) + (o/4)*128 + l*4 + o%4
//
// and the k-th word of an access wider than 4 bytes at Addr + k*128
// (Access.WordStride). Each resident warp slot of each SM gets a region of
// its own, so that different warps never alias:
//
//	base(warp) = LocalPhysBase + sm*LocalSMStride + slot*LocalWarpStride
//
// A region holds DefaultLocalSize bytes per thread. The regions lie above
// every global allocation and below the generic windows, so a cache model
// can put local and global lines in one address space.
const (
	LocalPhysBase   uint64 = 0x0000_6000_0000_0000
	LocalWarpStride uint64 = 32 * DefaultLocalSize // 2 MiB per warp slot
	LocalSMStride   uint64 = 1 << 36               // 32,768 warp slots per SM
	LocalWordStride uint32 = 128                   // bytes between a lane's consecutive words
)

// LocalPhysical returns the physical address of offset off of lane lane's
// local memory, for the warp in slot slot of SM sm.
func LocalPhysical(sm, slot, lane int, off uint64) uint64 {
	return LocalPhysBase + uint64(sm)*LocalSMStride + uint64(slot)*LocalWarpStride +
		off>>2*uint64(LocalWordStride) + uint64(lane)*4 + off&3
}
