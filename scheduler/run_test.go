package scheduler_test

import (
	"context"
	"encoding/binary"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// saxpySpec is saxpy_grid_stride (y = 2.5·x + y over n elements) with a y
// of yCount elements, of which the kernel touches the first n.
func saxpySpec(t *testing.T, yCount, n uint64) *spec.Spec {
	t.Helper()
	text := strings.NewReplacer("YCOUNT", itoa(yCount), "N", itoa(n)).Replace(`{
 "module": "../../../ptx/memspace.O3.ptx", "kernel": "saxpy_grid_stride",
 "grid": [8], "block": [128],
 "buffers": [{"name": "y", "type": "f32", "count": YCOUNT},
             {"name": "x", "type": "f32", "count": N, "fill": {"kind": "const", "value": 1}}],
 "args": [{"buffer": "y"}, {"buffer": "x"}, {"f32": 2.5}, {"u32": N}],
 "outputs": ["y"]}`)
	sp, err := spec.Parse([]byte(text), filepath.Join("..", "testdata", "nvcc", "cases", "saxpy_grid_stride", "O3"))
	require.NoError(t, err)
	return sp
}

func itoa(v uint64) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
		if v == 0 {
			return string(b)
		}
	}
}

// TestSparseLaunch allocates 40 GiB, far more than the test machine's
// memory, of which the kernel writes 28 KiB: host memory follows what is
// touched.
func TestSparseLaunch(t *testing.T) {
	const n = 7168 // 28 KiB of f32
	sp := saxpySpec(t, 10<<30, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var done atomic.Uint64
	run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{StreamOutputs: true, Done: &done}, nil)
	require.NoError(t, err)
	defer run.Release()
	runtime.ReadMemStats(&after)
	assert.Nil(t, run.Outputs, "streamed outputs are not read back")
	assert.Equal(t, uint64(8), done.Load(), "every block counted")
	assert.Positive(t, run.Setup)
	mem := run.Prepared.Device.Mem
	assert.Less(t, mem.HostBytes(), uint64(4<<20), "host bytes held by device memory")
	assert.Less(t, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc), uint64(64<<20), "heap growth")
	got := make([]byte, 4*(n+1))
	require.NoError(t, run.Prepared.Device.MemcpyDtoH(got, run.Prepared.Buffers["y"]))
	for i := 0; i < n; i++ {
		require.Equal(t, float32(2.5), math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])), "y[%d]", i)
	}
	assert.Zero(t, binary.LittleEndian.Uint32(got[4*n:]), "past what the kernel wrote")
}

// TestDeviceMemoryFollowsProfile: what a launch may allocate is the GPU's
// memory (the H100's 85,017,493,504 bytes, the GTX 480's 1.5 GiB).
func TestDeviceMemoryFollowsProfile(t *testing.T) {
	_, err := scheduler.RunSpec(context.Background(), saxpySpec(t, 22<<30, 64), scheduler.H100, scheduler.Options{}, nil)
	require.ErrorContains(t, err, "malloc of 94489280512 bytes for buffer y: out of device memory (")
	require.ErrorContains(t, err, "of the device's 85017493504 bytes are allocated)")
	_, err = scheduler.RunSpec(context.Background(), saxpySpec(t, 1<<29, 64), scheduler.GF100, scheduler.Options{AnyTarget: true}, nil)
	require.ErrorContains(t, err, "of the device's 1610612736 bytes are allocated)")
	// The same 2 GiB on the H100 is fine, and is only allocated, not held.
	run, err := scheduler.RunSpec(context.Background(), saxpySpec(t, 1<<29, 64), scheduler.H100, scheduler.Options{StreamOutputs: true}, nil)
	require.NoError(t, err)
	assert.Less(t, run.Prepared.Device.Mem.HostBytes(), uint64(1<<20))
	run.Release()
	assert.Zero(t, run.Prepared.Device.Mem.HostBytes())
}
