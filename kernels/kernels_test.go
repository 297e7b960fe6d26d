package kernels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
)

// run prepares e on a fresh device, runs it as ptxrun demo does and checks
// it against its Go reference.
func run(t *testing.T, e *Example, seed uint64) *Setup {
	t.Helper()
	s, err := e.Prepare(vm.NewDevice(), seed)
	require.NoError(t, err)
	res, err := scheduler.RunFunctional(context.Background(), s.Launch, scheduler.H100, scheduler.Options{MaxInst: 1 << 32})
	require.NoError(t, err)
	assert.EqualValues(t, s.Launch.NumCTAs(), res.Stats.CTAs)
	assert.Greater(t, res.Stats.ThreadInst, uint64(e.Size*e.Size), "at least one instruction per element")
	require.NoError(t, s.Check(), "%s at %d×%d", e.Name, e.Size, e.Size)
	return s
}

// TestExamplesMatchReference runs every bundled example at its default size
// and checks it against its Go reference.
func TestExamplesMatchReference(t *testing.T) {
	require.Len(t, All(), 6)
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			run(t, e, 1)
		})
	}
}

// TestExamplesAtRaggedSizes runs every example at sizes that are not a
// multiple of its tile (16 for the multiplies, 32 for the transposes),
// where the kernels' bounds checks matter.
func TestExamplesAtRaggedSizes(t *testing.T) {
	sizes := map[string][]int{
		"matmul": {1, 15, 17, 37},
		"transp": {1, 31, 33, 45},
	}
	for _, e := range All() {
		for _, n := range sizes[e.Name[:6]] {
			t.Run(fmt.Sprintf("%s/%d", e.Name, n), func(t *testing.T) {
				t.Parallel()
				run(t, e.WithSize(n), uint64(n))
			})
		}
	}
}

// TestExamplesBare runs every example without the counters at a size
// that gives an SM several blocks a wave (the wmma multiply's tiles are
// too large for that at a size that runs quickly), which the bare run takes one
// after another, its warps in long turns (the bundled kernels' blocks and
// warps do not race), and checks it against its Go reference.
func TestExamplesBare(t *testing.T) {
	sizes := map[string]int{"matmul": 320, "transp": 1024}
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			e := e.WithSize(sizes[e.Name[:6]])
			s, err := e.Prepare(vm.NewDevice(), 3)
			require.NoError(t, err)
			require.False(t, s.Launch.Kernel.BlocksCommunicate())
			res, err := scheduler.RunFunctional(context.Background(), s.Launch, scheduler.H100, scheduler.Options{NoCounters: true, MaxInst: 1 << 32})
			require.NoError(t, err)
			assert.EqualValues(t, s.Launch.NumCTAs(), res.Stats.CTAs)
			if e.Name != "matmul_wmma" { // 25 blocks of 64×64
				assert.Greater(t, res.Stats.CTAs, uint64(2*scheduler.H100.SMs))
			}
			require.NoError(t, s.Check(), "%s at %d×%d", e.Name, e.Size, e.Size)
		})
	}
}

func TestWithSize(t *testing.T) {
	tests := []struct {
		name    string
		n, size int // asked for, given
		grid    [3]uint32
	}{
		{"matmul_naive", 100, 100, [3]uint32{7, 7, 1}},
		{"matmul_tiled", 16, 16, [3]uint32{1, 1, 1}},
		{"matmul_tiled", 17, 17, [3]uint32{2, 2, 1}},
		{"matmul_wmma", 64, 64, [3]uint32{1, 1, 1}},
		{"matmul_wmma", 65, 128, [3]uint32{2, 2, 1}}, // no bounds checks: rounded up
		{"matmul_wmma", 1, 64, [3]uint32{1, 1, 1}},
		{"transpose_naive", 100, 100, [3]uint32{4, 4, 1}},
		{"transpose_shared", 32, 32, [3]uint32{1, 1, 1}},
		{"transpose_padded", 33, 33, [3]uint32{2, 2, 1}},
	}
	for _, tt := range tests {
		e, err := Lookup(tt.name)
		require.NoError(t, err)
		orig := *e
		c := e.WithSize(tt.n)
		assert.Equal(t, tt.size, c.Size, tt.name)
		assert.Equal(t, tt.grid, c.Grid, "%s at %d", tt.name, tt.n)
		assert.Equal(t, e.Block, c.Block, tt.name)
		assert.Equal(t, orig.Size, e.Size, "%s: WithSize changed the bundled example", tt.name)
		assert.Equal(t, orig.Grid, e.Grid, "%s: WithSize changed the bundled example", tt.name)
		// The default size is what WithSize would make of it.
		assert.Equal(t, e.Grid, e.WithSize(e.Size).Grid, tt.name)
	}
}

func TestLookupAndAll(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range All() {
		assert.False(t, seen[e.Name], "duplicate name %s", e.Name)
		seen[e.Name] = true
		got, err := Lookup(e.Name)
		require.NoError(t, err)
		assert.Same(t, e, got)
		assert.NotEmpty(t, e.Description)
		src, err := e.PTX()
		require.NoError(t, err, e.Name)
		assert.Contains(t, string(src), ".entry "+e.Kernel+"(", e.Name)
		// The module lists the kernel, and its parameters are what
		// Prepare passes (three or two pointers, then scalars).
		m, err := vm.NewDevice().LoadModule(e.Module, src)
		require.NoError(t, err, e.Name)
		assert.Contains(t, m.EntryNames(), e.Kernel)
	}
	assert.Equal(t, []string{"matmul_naive", "matmul_tiled", "matmul_wmma", "transpose_naive", "transpose_shared", "transpose_padded"}, names(All()))
	_, err := Lookup("matmul")
	require.EqualError(t, err, `no bundled kernel named "matmul" (have [matmul_naive matmul_tiled matmul_wmma transpose_naive transpose_padded transpose_shared])`)
}

func names(es []*Example) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.Name)
	}
	return s
}

// TestCheckCatchesWrongOutput corrupts one element of a correct output and
// expects the reference check to name it: the check can fail.
func TestCheckCatchesWrongOutput(t *testing.T) {
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			e := e.WithSize(20)
			s := run(t, e, 3)
			out := s.inst.outputs[0]
			const row, col = 13, 6
			addr := s.addrs[out] + 4*uint64(row*e.Size+col)
			b := make([]byte, 4)
			require.NoError(t, s.dev.MemcpyDtoH(b, addr))
			v := math.Float32frombits(binary.LittleEndian.Uint32(b))
			if strings.HasPrefix(e.Name, "matmul") {
				v += 1e-3 // well outside the rounding bound
			} else {
				v = math.Float32frombits(math.Float32bits(v) ^ 1) // one ulp
			}
			binary.LittleEndian.PutUint32(b, math.Float32bits(v))
			require.NoError(t, s.dev.MemcpyHtoD(addr, b))
			err := s.Check()
			require.Error(t, err)
			if strings.HasPrefix(e.Name, "matmul") {
				assert.Contains(t, err.Error(), fmt.Sprintf("C[%d][%d] = ", row, col))
			} else {
				assert.Contains(t, err.Error(), fmt.Sprintf("out[%d][%d] = ", row, col))
			}
		})
	}
}

// TestInputsFollowTheSeed: the same seed gives the same inputs (and so the
// same outputs); another seed gives others.
func TestInputsFollowTheSeed(t *testing.T) {
	e, err := Lookup("matmul_tiled")
	require.NoError(t, err)
	e = e.WithSize(24)
	output := func(seed uint64) []byte {
		s := run(t, e, seed)
		b := make([]byte, 4*e.Size*e.Size)
		require.NoError(t, s.dev.MemcpyDtoH(b, s.addrs[0]))
		return b
	}
	a, b, c := output(7), output(7), output(8)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
}

// TestMatmulGo checks the benchmark's native baseline against a float64
// multiply.
func TestMatmulGo(t *testing.T) {
	const n = 33
	rng := newRand(4)
	a, b := randMatrix(rng, n*n), randMatrix(rng, n*n)
	c := make([]float32, n*n)
	MatmulGo(c, a, b, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var ref float64
			for k := 0; k < n; k++ {
				ref += float64(a[i*n+k]) * float64(b[k*n+j])
			}
			assert.InDelta(t, ref, float64(c[i*n+j]), n*0x1p-24*n, "C[%d][%d]", i, j)
		}
	}
}

// TestCUDASources: each example has the CUDA source its .loc directives
// name, the same as the corpus generator's (testdata/nvcc/gen/kernels, or
// testdata/tensor/gen/kernels for the tensor-core multiply).
func TestCUDASources(t *testing.T) {
	for _, e := range All() {
		src := e.CUDASources()
		require.Len(t, src, 1, e.Name)
		ptxText, err := e.PTX()
		require.NoError(t, err)
		for name, text := range src {
			assert.Contains(t, string(ptxText), "/"+name+"\"", "%s: the module's .file names %s", e.Name, name)
			corpus := "nvcc"
			if name == "tensor.cu" {
				corpus = "tensor"
			}
			want, err := os.ReadFile(filepath.Join("..", "testdata", corpus, "gen", "kernels", name))
			require.NoError(t, err)
			assert.Equal(t, string(want), text, "kernels/cuda/%s is a copy of testdata/%s/gen/kernels/%s", name, corpus, name)
			assert.Contains(t, text, "__global__ void "+e.Name)
		}
	}
}

// TestF16Inputs: the tensor-core example's inputs are rounded to half
// precision and encoded as the GPU reads them.
func TestF16Inputs(t *testing.T) {
	for _, tc := range []struct {
		x    float32
		r    float32
		bits uint16
	}{
		{1, 1, 0x3c00},
		{-0.5, -0.5, 0xb800},
		{1.0 / 3, 0.333251953125, 0x3555},
		{0x1p-24, 0x1p-24, 0x0001},
		{0x1.8p-20, 0x1.8p-20, 0x0018},
		{0.99999, 1, 0x3c00},
		{0, 0, 0},
	} {
		r := roundF16(tc.x)
		assert.Equal(t, tc.r, r, "roundF16(%g)", tc.x)
		assert.Equal(t, tc.bits, f16bits(r), "f16bits(%g)", r)
	}
}

// TestTensorExampleTimed: the tensor-core multiply computes the same in
// timing mode, where its instructions run list-scheduled as ptxas orders
// them (its fragment loads from shared memory were once moved above the
// barrier that guards them: the output was wrong from n = 192 on).
func TestTensorExampleTimed(t *testing.T) {
	e, err := Lookup("matmul_wmma")
	require.NoError(t, err)
	e = e.WithSize(192)
	s, err := e.Prepare(vm.NewDevice(), 5)
	require.NoError(t, err)
	_, err = scheduler.RunTimed(context.Background(), s.Launch, scheduler.H100, scheduler.Options{MaxInst: 1 << 32})
	require.NoError(t, err)
	require.NoError(t, s.Check())
}
