package hier

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

// smallConfig is the H100 profile with 16 SMs and an L2 small enough for
// the order of the SMs' traffic to change its hits.
func smallConfig(t testing.TB) *Config {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.SMs = 16
	cfg.L2.Slices = 4
	cfg.L2.SizeBytes = 4 * 8 * 128 * 16 // 8 sets of 16 ways per slice
	require.NoError(t, cfg.Validate())
	return cfg
}

// streams makes, for each SM, a seeded sequence of epochs of accesses that
// share data across SMs (so L2 order matters).
func streams(nsm, epochs, perEpoch int) [][][]memspace.Access {
	out := make([][][]memspace.Access, nsm)
	for sm := range out {
		r := rand.New(rand.NewPCG(uint64(sm), 7))
		out[sm] = make([][]memspace.Access, epochs)
		for e := range out[sm] {
			for i := 0; i < perEpoch; i++ {
				var a memspace.Access
				a.Mask = all
				a.Size = 4
				a.Origin = memspace.Origin{SM: int32(sm), CTA: uint64(e), Warp: int32(i % 8), Inst: int32(r.IntN(12))}
				row := uint64(r.IntN(64))
				switch k := r.IntN(10); {
				case k < 5:
					a.Space, a.Kind = memspace.Global, memspace.Load
				case k < 7:
					a.Space, a.Kind = memspace.Global, memspace.Store
				case k < 8:
					a.Space, a.Kind = memspace.Global, memspace.Atomic
				case k < 9:
					a.Space, a.Kind = memspace.Shared, memspace.Load
					row = 0
				default:
					a.Space, a.Kind = memspace.Local, memspace.Store
					row = 0
				}
				stride := uint64(1 + r.IntN(4)*7)
				for l := range a.Addr {
					a.Addr[l] = base + row*4096 + uint64(l)*4*stride
				}
				if a.Space != memspace.Global {
					for l := range a.Addr {
						a.Addr[l] -= base
					}
				}
				out[sm][e] = append(out[sm][e], a)
			}
		}
	}
	return out
}

// runWorkers drives the SM sides with workers goroutines (SM s on worker
// s % workers, as the functional scheduler deals them), draining after each
// epoch, and returns the totals and the per-instruction counts.
func runWorkers(t *testing.T, cfg *Config, st [][][]memspace.Access, workers int, shuffle bool) (Counts, []Counts) {
	h, err := New(cfg, Launch{Occupancy: 8}, Functional)
	require.NoError(t, err)
	for e := range st[0] {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sms := []int{}
				for sm := w; sm < len(st); sm += workers {
					sms = append(sms, sm)
				}
				if shuffle {
					rand.Shuffle(len(sms), func(i, j int) { sms[i], sms[j] = sms[j], sms[i] })
				}
				for _, sm := range sms {
					for i := range st[sm][e] {
						h.SM(sm).Observe(&st[sm][e][i])
						if i%17 == 0 {
							runtime.Gosched()
						}
					}
				}
			}()
		}
		wg.Wait()
		h.Drain()
	}
	tally := h.Tally()
	var per []Counts
	for _, id := range tally.Insts() {
		per = append(per, tally.Inst(id))
	}
	return h.Counts(), per
}

// The order-dependent counters (L1/L2 hits, DRAM traffic) come out the same
// whatever the number of host goroutines and however they interleave.
func TestDrainDeterminism(t *testing.T) {
	cfg := smallConfig(t)
	st := streams(cfg.SMs, 3, 200)
	want, wantPer := runWorkers(t, cfg, st, 1, false)
	require.NotZero(t, want[L2ReadHit])
	require.NotZero(t, want[DRAMWriteSectors], "the small L2 evicts")
	for _, workers := range []int{2, 3, 8, 16} {
		for _, shuffle := range []bool{false, true} {
			got, gotPer := runWorkers(t, cfg, st, workers, shuffle)
			assert.Equal(t, want, got, "workers %d shuffle %v", workers, shuffle)
			assert.Equal(t, wantPer, gotPer, "per-instruction counts, workers %d", workers)
		}
	}
}

// The drain order is what decides the L2 counters: served in another order
// (all of SM 0's traffic, then SM 1's, ...) the same traffic gives other
// hits. This is why Drain fixes the order.
func TestDrainOrderMatters(t *testing.T) {
	cfg := smallConfig(t)
	st := streams(cfg.SMs, 1, 400)
	roundRobin, _ := runWorkers(t, cfg, st, 4, false)

	h, err := New(cfg, Launch{Occupancy: 8}, Functional)
	require.NoError(t, err)
	for sm := range st {
		for i := range st[sm][0] {
			h.SM(sm).Observe(&st[sm][0][i])
		}
		for _, tx := range h.SM(sm).out {
			h.mem.serve(tx, h.SM(sm).part, 0, h.wb(sm, tx))
		}
		h.SM(sm).out, h.SM(sm).outWB, h.wbPos[sm] = h.SM(sm).out[:0], h.SM(sm).outWB[:0], 0
	}
	smMajor := h.Counts()
	assert.Equal(t, roundRobin[L2TexReadSectors], smMajor[L2TexReadSectors], "the same traffic")
	assert.NotEqual(t, roundRobin[L2ReadHit], smMajor[L2ReadHit], "but other hits")
}

// Per-instruction attribution: counters land on the access's instruction,
// and the per-instruction blocks sum to the totals.
func TestTallyAttribution(t *testing.T) {
	h := newTest(t, "h100")
	a := acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(128*l) })
	a.Origin.Inst = 5
	h.SM(3).Observe(a)
	b := acc(memspace.Shared, memspace.Store, 4, all, func(l int) uint64 { return uint64(128 * l) })
	b.Origin.Inst = 9
	h.SM(7).Observe(b)
	b.Origin.Inst = -1 // no instruction id
	h.SM(7).Observe(b)
	h.Drain()
	tally := h.Tally()
	assert.Equal(t, []int32{-1, 5, 9}, tally.Insts())
	i5 := tally.Inst(5)
	assert.Equal(t, uint64(32), i5[GlobalLdSectors])
	assert.Equal(t, uint64(32), i5[L2TexReadSectors], "the shared side attributes to the same instruction")
	i9 := tally.Inst(9)
	assert.Equal(t, uint64(31), i9[SharedStConflicts])
	assert.Equal(t, tally.Total(), h.Counts())
	assert.Equal(t, Counts{}, tally.Inst(100))
}

// A generic access is split by the window each lane's address is in; the
// parts are counted in their spaces. The far-partition counter sees the L2
// sectors homed in the other partition.
func TestGenericSplitAndPartitions(t *testing.T) {
	h := newTest(t, "h100")
	a := acc(memspace.Generic, memspace.Load, 4, all, func(l int) uint64 {
		if l < 16 {
			return memspace.SharedWindow + uint64(4*l)
		}
		return base + uint64(4*l)
	})
	h.SM(0).Observe(a)
	h.Drain()
	c := h.Counts()
	assert.Equal(t, uint64(1), c[SharedLdRequests])
	assert.Equal(t, uint64(1), c[SharedLdWavefronts])
	assert.Equal(t, uint64(1), c[GlobalLdRequests])
	assert.Equal(t, uint64(2), c[GlobalLdSectors], "lanes 16-31: 64 bytes")

	// Many lines from SM 0 and from the last SM: each sees about half its
	// sectors in the far partition, and they disagree on which.
	h = newTest(t, "h100")
	for i := 0; i < 256; i++ {
		h.SM(0).Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return base + uint64(i)*128 }))
	}
	h.Drain()
	far0 := h.Counts()[L2FarSectors]
	assert.InDelta(t, 128, float64(far0), 40)
	h = newTest(t, "h100")
	for i := 0; i < 256; i++ {
		h.SM(131).Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return base + uint64(i)*128 }))
	}
	h.Drain()
	assert.Equal(t, uint64(256)-far0, h.Counts()[L2FarSectors])
}
