package hier

// Carveout returns the shared-memory carveout the driver configures for a
// launch, and the L1 capacity the carveout leaves, both in bytes.
//
// sharedPerCTA is the block's own shared memory (static + dynamic, without
// the system's per-block reserve); occupancy is how many blocks per SM the
// other limits (threads, warps, registers, the block limit) allow.
//
// The CUDA driver documents no rule. This one reproduces 220 of the 222
// launch__shared_mem_config_size values the H100 corpus recorded (O3 and G):
// a kernel with no shared memory of its own gets the default carveout;
// otherwise the driver takes the smallest carveout that holds
// min(max(occ, min(2·occ, HeadroomCTAs)), fit) blocks, where occ is the
// occupancy limited also by what the largest carveout can hold (fit). The
// two misses are cg_tiled at -G (8 KiB chosen, 32 predicted) and
// generic_ptr at -G (64 KiB chosen, 32 predicted).
func (c *Config) Carveout(sharedPerCTA, occupancy int) (shared, l1 int) {
	return c.CarveoutFor(sharedPerCTA, occupancy, 0)
}

// CarveoutFor is Carveout knowing also threadOccupancy: the blocks per SM
// the warp, block and barrier limits allow, registers aside (0: unknown).
// With it, a kernel with no shared memory of its own, whose blocks need
// only the driver's per-block reserve, gets the smallest non-zero carveout
// when that holds the reserve of twice threadOccupancy blocks, and the
// default otherwise. This reproduces the corpora's launches with 1024-thread
// blocks (bfs_block, l1_ws: 8 KiB chosen) and cg_tiled at -G (16 barriers
// per block: 8 KiB), and keeps 32 KiB for every other kernel without
// shared memory; threadOccupancy is used for them alone.
func (c *Config) CarveoutFor(sharedPerCTA, occupancy, threadOccupancy int) (shared, l1 int) {
	l := &c.L1
	k := l.DefaultCarveoutKiB
	if sharedPerCTA == 0 && threadOccupancy > 0 && l.ReservedSharedPerCTA > 0 {
		for _, kk := range l.SharedCarveoutsKiB {
			if kk == 0 {
				continue
			}
			if 2*threadOccupancy*l.ReservedSharedPerCTA <= kk<<10 && kk < k {
				k = kk
			}
			break
		}
	}
	if sharedPerCTA > 0 {
		k = l.SharedCarveoutsKiB[len(l.SharedCarveoutsKiB)-1]
		per := sharedPerCTA + l.ReservedSharedPerCTA
		fit := (k << 10) / per
		occ := max(1, min(occupancy, fit))
		want := min(max(occ, min(2*occ, l.HeadroomCTAs)), fit)
		for _, kk := range l.SharedCarveoutsKiB {
			if kk<<10 >= want*per {
				k = kk
				break
			}
		}
	}
	return k << 10, l.UnifiedBytes - k<<10
}
