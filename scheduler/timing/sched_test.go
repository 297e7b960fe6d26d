package timing

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// The H100's warp placement and instruction fetch, recorded by
// testdata/perf/gen/micro/sched.cu (sched.sh) into testdata/perf/micro/sched.
const schedDir = "../../testdata/perf/micro/sched"

// schedRecord is one line of sched.jsonl.gz.
type schedRecord struct {
	Probe  string   `json:"probe"`
	Name   string   `json:"name"`
	Grid   int      `json:"grid"`
	Block  int      `json:"block"`
	Fields []string `json:"fields"`
	Rec    []uint64 `json:"rec"`
	// partition
	Mask  uint32 `json:"mask"`
	Mufu  int    `json:"mufu"`
	Warps []struct {
		Warp   int    `json:"warp"`
		Cycles uint64 `json:"cycles"`
	} `json:"warps"`
	// fetch
	Kernel string      `json:"kernel"`
	N      int         `json:"n"`
	Launch int         `json:"launch"`
	Passes [][]float64 `json:"passes_mean_max"`
}

func gunzipFile(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(schedDir, name))
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	return b
}

func schedRecords(t *testing.T, probe string) []schedRecord {
	return probeRecords(t, "sched.jsonl.gz", probe, func(r *schedRecord) string { return r.Probe })
}

// probeRecords reads the records of probe from file (JSON lines,
// gzipped, in schedDir); probeOf gives a record's probe.
func probeRecords[T any](t *testing.T, file, probe string, probeOf func(*T) string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join(schedDir, file))
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	var out []T
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		if probeOf(&r) == probe {
			out = append(out, r)
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "probe %s recorded in %s", probe, file)
	return out
}

// Every warp of every block the H100 ran in the placement probes sits on
// the sub-partition smspOf and nextRot give it (%warpid % 4), from the
// first block an SM received on: blocks of 1 to 32 warps, first waves and
// refills.
func TestWarpPlacementMatchesH100(t *testing.T) {
	const parts = 4
	for _, r := range schedRecords(t, "placement") {
		t.Run(r.Name, func(t *testing.T) {
			require.Equal(t, []string{"block", "warp", "smid", "warpid", "clock"}, r.Fields)
			type key struct{ sm, block uint64 }
			blocks := map[key]map[int]int{} // warp of the block -> %warpid
			for i := 0; i+5 <= len(r.Rec); i += 5 {
				k := key{r.Rec[i+2], r.Rec[i]}
				if blocks[k] == nil {
					blocks[k] = map[int]int{}
				}
				blocks[k][int(r.Rec[i+1])] = int(r.Rec[i+3])
			}
			perSM := map[uint64][]uint64{}
			for k := range blocks {
				perSM[k.sm] = append(perSM[k.sm], k.block)
			}
			nw := r.Block / 32
			warps, wrong := 0, 0
			for sm, bs := range perSM {
				sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
				rot := blocks[key{sm, bs[0]}][0] % parts // where the SM stood: not known beforehand
				for _, b := range bs {
					for w, id := range blocks[key{sm, b}] {
						warps++
						if smspOf(rot, w, parts) != id%parts {
							wrong++
						}
					}
					rot = nextRot(rot, nw, parts)
				}
			}
			assert.Equal(t, r.Grid*nw, warps, "every warp recorded")
			assert.Zero(t, wrong, "warps on another sub-partition than the rule gives")
		})
	}
}

var (
	probeMu  sync.Mutex
	probePTX = map[string][]byte{}
)

// schedLaunch prepares kernel name of sched.ptx on a fresh device with
// the buffers and scalars args gives (a buffer: its size in bytes, zeroed;
// else a 4-byte scalar). It returns the launch, the device and the
// buffers' addresses.
func schedLaunch(t *testing.T, name string, grid, block uint32, args ...any) (*vm.Launch, *vm.Device, []uint64) {
	t.Helper()
	return probeLaunch(t, "sched", name, vm.LaunchConfig{Grid: [3]uint32{grid, 1, 1}, Block: [3]uint32{block, 1, 1}}, args...)
}

// probeLaunch is schedLaunch for a kernel of probe's PTX (probe.ptx.gz)
// and a launch configuration.
func probeLaunch(t *testing.T, probe, name string, cfg vm.LaunchConfig, args ...any) (*vm.Launch, *vm.Device, []uint64) {
	t.Helper()
	probeMu.Lock()
	src, ok := probePTX[probe]
	if !ok {
		src = gunzipFile(t, probe+".ptx.gz")
		probePTX[probe] = src
	}
	probeMu.Unlock()
	dev := vm.NewDevice()
	m, err := dev.LoadModule(probe+".ptx", src)
	require.NoError(t, err)
	var raw [][]byte
	var bufs []uint64
	for _, a := range args {
		switch a := a.(type) {
		case buffer:
			p, err := dev.Malloc(uint64(a), "buf")
			require.NoError(t, err)
			bufs = append(bufs, p)
			raw = append(raw, binary.LittleEndian.AppendUint64(nil, p))
		case float32:
			raw = append(raw, binary.LittleEndian.AppendUint32(nil, math.Float32bits(a)))
		case int:
			raw = append(raw, binary.LittleEndian.AppendUint32(nil, uint32(a)))
		default:
			t.Fatalf("argument %T", a)
		}
	}
	l, err := m.PrepareLaunch(name, cfg, raw)
	require.NoError(t, err)
	return l, dev, bufs
}

// buffer is a device buffer argument of schedLaunch: its size in bytes.
type buffer uint64

// readLE reads n little-endian words of T from the device at p.
func readLE[T uint32 | uint64](t *testing.T, dev *vm.Device, p uint64, n int) []T {
	t.Helper()
	size := binary.Size(T(0))
	b := make([]byte, size*n)
	require.NoError(t, dev.MemcpyDtoH(b, p))
	out := make([]T, n)
	for i := range out {
		if size == 4 {
			out[i] = T(binary.LittleEndian.Uint32(b[4*i:]))
		} else {
			out[i] = T(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return out
}

// Warps that share a sub-partition share its SFU: in one block of 32
// warps, the SFU-bound warps of each partition-probe launch take, against
// one such warp alone, what they took on the H100 (1x when they sit on
// different sub-partitions, about 1.8x for two on one, 3.5x for four).
func TestSubPartitionsShareSFU(t *testing.T) {
	const iters = 256
	prof := gpu.MustLookup("h100")
	cycles := func(mask uint32) []uint64 {
		l, dev, b := schedLaunch(t, "_Z8sfu_pairPfjiPyPj", 1, 1024, buffer(1024*4), int(mask), iters, buffer(32*8), buffer(32*4))
		_, err := Run(context.Background(), l, prof, Options{BlocksPerSM: 1, Workers: 1})
		require.NoError(t, err)
		return readLE[uint64](t, dev, b[1], 32)
	}
	recs := schedRecords(t, "partition")
	var alone float64
	for _, r := range recs {
		if r.Name == "w0" {
			alone = float64(r.Warps[0].Cycles)
		}
	}
	require.NotZero(t, alone)
	modelAlone := float64(cycles(1)[0])
	for _, r := range recs {
		t.Run(r.Name, func(t *testing.T) {
			got := cycles(r.Mask)
			for _, w := range r.Warps {
				gpuRatio := float64(w.Cycles) / alone
				ratio := float64(got[w.Warp]) / modelAlone
				assert.InEpsilon(t, gpuRatio, ratio, 0.15, "warp %d: %.2fx on the H100, %.2fx in the model", w.Warp, gpuRatio, ratio)
			}
		})
	}
}

// Straight-line code runs slower the first time an SM reads it: each
// pass of the fetch probe's FFMA loop takes, cold and warm, the cycles it
// took on the H100 in the first launch of that code (one warp; later
// launches find the code still cached on the GPU, while each launch of the
// model starts cold; the calibration's launches are ncu's, whose cache
// control flushes caches between passes). Code of
// 128 KB and more, which thrashes the H100's instruction cache, is not
// modelled: the 8192-FFMA kernel is left out.
func TestFetchMatchesH100(t *testing.T) {
	const passes = 4
	prof := gpu.MustLookup("h100")
	kernels := map[int]string{512: "_Z8straightILi512EEvPffiPy", 2048: "_Z8straightILi2048EEvPffiPy"}
	seen := map[string]bool{}
	for _, r := range schedRecords(t, "fetch") {
		name, ok := kernels[r.N]
		if r.Kernel != "ffma" || !ok || seen[name] {
			continue
		}
		seen[name] = true
		require.Equal(t, 0, r.Launch, "the first launch of %s", name)
		t.Run(r.Name, func(t *testing.T) {
			warps := r.Block / 32
			l, dev, b := schedLaunch(t, name, 1, uint32(r.Block), buffer(64*4), float32(0.999), passes, buffer(warps*(passes+1)*8))
			_, err := Run(context.Background(), l, prof, Options{BlocksPerSM: 1, Workers: 1})
			require.NoError(t, err)
			clk := readLE[uint64](t, dev, b[1], warps*(passes+1))
			for p := 0; p < passes; p++ {
				var sum float64
				for w := 0; w < warps; w++ {
					sum += float64(clk[w*(passes+1)+p+1] - clk[w*(passes+1)+p])
				}
				mean := sum / float64(warps)
				assert.InEpsilon(t, r.Passes[p][0], mean, 0.15, "pass %d: %.0f cycles on the H100, %.0f in the model", p, r.Passes[p][0], mean)
			}
		})
	}
}

// Blocks take turns on the sub-partitions (nextRot): four blocks of four
// warps on one SM, only each block's warp 0 SFU-bound, run side by side
// on four sub-partitions, as the H100's rotation puts them (where warp
// slot mod 4 would stack all four on one and take four times as long).
func TestBlocksRotateOverSubPartitions(t *testing.T) {
	prof := *gpu.MustLookup("h100")
	prof.SMs = 1
	cycles := func(blocks uint32) uint64 {
		l, _, _ := schedLaunch(t, "_Z8sfu_pairPfjiPyPj", blocks, 128, buffer(1024*4), 1, 128, buffer(32*8), buffer(32*4))
		res, err := Run(context.Background(), l, &prof, Options{BlocksPerSM: 4, Workers: 1})
		require.NoError(t, err)
		return res.Cycles
	}
	one, four := cycles(1), cycles(4)
	assert.Less(t, float64(four), 1.3*float64(one), "four blocks' SFU warps on four sub-partitions: %d cycles, one block %d", four, one)
}

// A memory instruction whose guard is false in every lane still takes its
// unit's latency before what reads its destination may issue (ncu's
// source view of reduce_shared: the IADD after each tree level's LDS
// waits as long at the last level, where only one lane is on, as at the
// first).
func TestGuardFalseLoadKeepsLatency(t *testing.T) {
	src := guardFalsePTX(1, `	sub.s64 %rd5, %rd4, %rd3;
	st.global.u64 [%rd2], %rd5;
	st.global.u32 [%rd2+64], %r3;`)
	prof := gpu.MustLookup("h100")
	l, dev, buf := ptxLaunch(t, src, 1, 32, 128)
	_, err := Run(context.Background(), l, prof, Options{BlocksPerSM: 1, Workers: 1})
	require.NoError(t, err)
	d := readLE[uint64](t, dev, buf, 1)[0]
	assert.GreaterOrEqual(t, d, uint64(prof.Memory.Latency.Shared), "the add waits out the shared load's latency")
	assert.Less(t, d, uint64(3*prof.Memory.Latency.Shared))
}

// And a shared-memory one still passes the SM's data path once (ncu
// counts a l1tex__data_pipe_lsu_wavefronts_mem_shared for each on
// reduce_shared): with the data path slowed to 4 cycles a wavefront, 32
// warps of 64 guard-false LDS each take 32·64·4 cycles of it, about four
// times what their issue takes (2,237 cycles without the wavefront).
func TestGuardFalseSharedTakesDataPath(t *testing.T) {
	const dataCycles = 4
	const loads = 64
	src := guardFalsePTX(loads, `	shr.u32 %r4, %r1, 5;
	mul.wide.u32 %rd5, %r4, 16;
	add.s64 %rd6, %rd2, %rd5;
	st.global.v2.u64 [%rd6], {%rd3, %rd4};
	st.global.u32 [%rd2+1024], %r3;`)
	prof := *gpu.MustLookup("h100")
	prof.Timing.DataCycles = dataCycles
	l, dev, buf := ptxLaunch(t, src, 1, 1024, 2048)
	_, err := Run(context.Background(), l, &prof, Options{BlocksPerSM: 1, Workers: 1})
	require.NoError(t, err)
	clk := readLE[uint64](t, dev, buf, 64)
	first, last := uint64(math.MaxUint64), uint64(0)
	for w := 0; w < 32; w++ {
		first, last = min(first, clk[2*w]), max(last, clk[2*w+1])
	}
	assert.GreaterOrEqual(t, last-first, uint64(32*loads*dataCycles), "one data-path wavefront per guard-false LDS")
}

// guardFalsePTX is a kernel k(out) whose warps read the clock into %rd3,
// issue loads ld.shared.u32 whose guard is false in every lane, add one to
// the loaded register into %r3, read the clock into %rd4 and end with tail
// (%rd2 is out, %r1 the thread index).
func guardFalsePTX(loads int, tail string) string {
	return outKernel(`	mov.u32 %r1, %tid.x;
	setp.gt.u32 %p1, %r1, 4096;
	mov.u64 %rd3, %clock64;
`+strings.Repeat("	@%p1 ld.shared.u32 %r2, [s];\n", loads)+`	add.s32 %r3, %r2, 1;
	mov.u64 %rd4, %clock64;
`+tail+`
	ret;
`, ".shared .align 4 .b32 s[32];")
}
