package kernels

import (
	"embed"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/vm"
)

// The PTX files are nvcc 13 output (-arch=sm_90 -O3 -lineinfo) of the
// sources in testdata/nvcc/gen/kernels, copied from the recorded corpus.
//
//go:embed ptx/*.ptx
var ptxFiles embed.FS

// The CUDA sources of the PTX files (copies of testdata/nvcc/gen/kernels),
// so that reports can show the lines .loc names.
//
//go:embed cuda/*.cu
var cudaFiles embed.FS

// Example is a bundled kernel: nvcc-emitted PTX, a launch, inputs it
// generates itself and a Go reference that checks the outputs.
type Example struct {
	Name        string
	Description string
	Module      string // file name under ptx/
	Kernel      string // mangled .entry name
	Grid        [3]uint32
	Block       [3]uint32
	// Size is the problem size (matrix side).
	Size int
	// Tile is the side of the square tile of the output a block computes:
	// the grid is ⌈Size/Tile⌉ blocks each way.
	Tile int
	// Whole: the kernel has no bounds checks, so Size must be a multiple of
	// Tile (WithSize rounds it up).
	Whole bool

	build func(e *Example, rng *rand.Rand) *instance
}

// instance is one set of buffers for an example.
type instance struct {
	buffers [][]byte // device buffers, in argument order
	scalars [][]byte // trailing scalar arguments
	outputs []int    // indices of output buffers
	check   func(out [][]byte) error
}

// PTX returns the module source.
func (e *Example) PTX() ([]byte, error) {
	return ptxFiles.ReadFile("ptx/" + e.Module)
}

// CUDASources returns the CUDA source files of the example's module by
// file name ("matmul.cu"), as its .loc directives name them.
func (e *Example) CUDASources() map[string]string {
	out := map[string]string{}
	name := strings.TrimSuffix(e.Module, ".ptx") + ".cu"
	if b, err := cudaFiles.ReadFile("cuda/" + name); err == nil {
		out[name] = string(b)
	}
	return out
}

// Setup is an example made ready to launch on a device.
type Setup struct {
	Launch *vm.Launch
	dev    *vm.Device
	addrs  []uint64
	inst   *instance
}

// Prepare loads the example's module into dev, generates its inputs from
// seed and prepares the launch.
func (e *Example) Prepare(dev *vm.Device, seed uint64) (*Setup, error) {
	src, err := e.PTX()
	if err != nil {
		return nil, err
	}
	m, err := dev.LoadModule(e.Module, src)
	if err != nil {
		return nil, err
	}
	inst := e.build(e, rand.New(rand.NewPCG(seed, 0x5eed)))
	s := &Setup{dev: dev, inst: inst}
	var args [][]byte
	for i, b := range inst.buffers {
		a, err := dev.Malloc(uint64(len(b)), fmt.Sprintf("%s buffer %d", e.Name, i))
		if err != nil {
			return nil, err
		}
		if err := dev.MemcpyHtoD(a, b); err != nil {
			return nil, err
		}
		s.addrs = append(s.addrs, a)
		args = append(args, binary.LittleEndian.AppendUint64(nil, a))
	}
	args = append(args, inst.scalars...)
	s.Launch, err = m.PrepareLaunch(e.Kernel, vm.LaunchConfig{Grid: e.Grid, Block: e.Block}, args)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Check reads the outputs back and compares them with the Go reference.
func (s *Setup) Check() error {
	out, err := s.read()
	if err != nil {
		return err
	}
	return s.inst.check(out)
}

// Outputs reads the output buffers back, in argument order.
func (s *Setup) Outputs() ([][]byte, error) {
	out, err := s.read()
	if err != nil {
		return nil, err
	}
	var res [][]byte
	for _, i := range s.inst.outputs {
		res = append(res, out[i])
	}
	return res, nil
}

// read returns the device buffers, the outputs read back (others nil).
func (s *Setup) read() ([][]byte, error) {
	out := make([][]byte, len(s.inst.buffers))
	for _, i := range s.inst.outputs {
		out[i] = make([]byte, len(s.inst.buffers[i]))
		if err := s.dev.MemcpyDtoH(out[i], s.addrs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var all = []*Example{
	{Name: "matmul_naive", Description: "C = A·B, one thread per element, A and B read from global memory",
		Module: "matmul.ptx", Kernel: "_Z12matmul_naivePfPKfS1_j", Size: 256, Tile: 16,
		Grid: [3]uint32{16, 16, 1}, Block: [3]uint32{16, 16, 1}, build: buildMatmul},
	{Name: "matmul_tiled", Description: "C = A·B through 16×16 shared-memory tiles",
		Module: "matmul.ptx", Kernel: "_Z12matmul_tiledPfPKfS1_j", Size: 256, Tile: 16,
		Grid: [3]uint32{16, 16, 1}, Block: [3]uint32{16, 16, 1}, build: buildMatmul},
	{Name: "matmul_wmma", Description: "C = A·B on tensor cores (wmma 16×16×16, f16 inputs, f32 sums) through 64×32 shared tiles, n a multiple of 64",
		Module: "tensor.ptx", Kernel: "_Z18matmul_wmma_sharedPfPK6__halfS2_j", Size: 256, Tile: 64, Whole: true,
		Grid: [3]uint32{4, 4, 1}, Block: [3]uint32{128, 1, 1}, build: buildMatmulF16},
	{Name: "transpose_naive", Description: "out = inᵀ, coalesced reads, strided writes",
		Module: "transpose.ptx", Kernel: "_Z15transpose_naivePfPKfjj", Size: 1024, Tile: 32,
		Grid: [3]uint32{32, 32, 1}, Block: [3]uint32{32, 8, 1}, build: buildTranspose},
	{Name: "transpose_shared", Description: "out = inᵀ through a 32×32 shared tile (bank conflicts on the column read)",
		Module: "transpose.ptx", Kernel: "_Z16transpose_sharedPfPKfjj", Size: 1024, Tile: 32,
		Grid: [3]uint32{32, 32, 1}, Block: [3]uint32{32, 8, 1}, build: buildTranspose},
	{Name: "transpose_padded", Description: "out = inᵀ through a 32×33 shared tile (conflict-free)",
		Module: "transpose.ptx", Kernel: "_Z16transpose_paddedPfPKfjj", Size: 1024, Tile: 32,
		Grid: [3]uint32{32, 32, 1}, Block: [3]uint32{32, 8, 1}, build: buildTranspose},
}

// All returns the bundled examples in a stable order.
func All() []*Example { return all }

// Lookup finds an example by name.
func Lookup(name string) (*Example, error) {
	for _, e := range all {
		if e.Name == name {
			return e, nil
		}
	}
	var names []string
	for _, e := range all {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("no bundled kernel named %q (have %v)", name, names)
}

// WithSize returns a copy of an example for an n×n problem, with the grid
// grown to cover it. Any n ≥ 1 works: the multiplies and transposes check
// their bounds, so n need not be a multiple of the tile (16 for the
// multiplies, 32 for the transposes); the tensor-core multiply has no
// bounds checks, and n is rounded up to a multiple of its 64.
func (e *Example) WithSize(n int) *Example {
	c := *e
	if e.Whole {
		n = (n + e.Tile - 1) / e.Tile * e.Tile
	}
	c.Size = n
	g := uint32((n + e.Tile - 1) / e.Tile)
	c.Grid = [3]uint32{g, g, 1}
	return &c
}

func f32s(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func randMatrix(rng *rand.Rand, n int) []float32 {
	m := make([]float32, n)
	for i := range m {
		m[i] = float32(rng.Float64()*2 - 1)
	}
	return m
}

func buildMatmul(e *Example, rng *rand.Rand) *instance {
	n := e.Size
	a, b := randMatrix(rng, n*n), randMatrix(rng, n*n)
	return &instance{
		buffers: [][]byte{make([]byte, 4*n*n), f32bytes(a), f32bytes(b)},
		scalars: [][]byte{binary.LittleEndian.AppendUint32(nil, uint32(n))},
		outputs: []int{0},
		check: func(out [][]byte) error {
			// A float32 dot product of n terms is within n·2⁻²⁴·Σ|aᵢbᵢ| of the exact sum.
			return checkMatmul(f32s(out[0]), a, b, n, 0x1p-24)
		},
	}
}

// buildMatmulF16 is buildMatmul with A and B in half precision (the
// tensor-core multiply's inputs), each element of [-1, 1) rounded to f16.
func buildMatmulF16(e *Example, rng *rand.Rand) *instance {
	n := e.Size
	a, b := randMatrix(rng, n*n), randMatrix(rng, n*n)
	for i := range a {
		a[i], b[i] = roundF16(a[i]), roundF16(b[i])
	}
	return &instance{
		buffers: [][]byte{make([]byte, 4*n*n), f16bytes(a), f16bytes(b)},
		scalars: [][]byte{binary.LittleEndian.AppendUint32(nil, uint32(n))},
		outputs: []int{0},
		check: func(out [][]byte) error {
			// The products of f16 values are exact; the tensor cores' sums
			// truncate: within n·2⁻²³·Σ|aᵢbᵢ| of the exact sum.
			return checkMatmul(f32s(out[0]), a, b, n, 0x1p-23)
		},
	}
}

// checkMatmul checks each element of c = a·b (n×n, row-major) against the
// float64 sum of its products, in order of k: it must lie within
// n·eps·Σ|aᵢₖbₖⱼ| of it. The sums run a row at a time in i-k-j order, which
// reads b along its rows (an i-j-k loop reading b down its columns missed
// the host's caches at nearly every product: 3.5 s of `ptxrun run
// matmul_tiled --size 1024`); each element's sum adds the same products
// in the same order as before.
func checkMatmul(c, a, b []float32, n int, eps float64) error {
	ref, mag := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		clear(ref)
		clear(mag)
		for k := 0; k < n; k++ {
			aik, bk := float64(a[i*n+k]), b[k*n:k*n+n]
			for j, x := range bk {
				p := aik * float64(x)
				ref[j] += p
				mag[j] += math.Abs(p)
			}
		}
		for j := 0; j < n; j++ {
			got := float64(c[i*n+j])
			if d := math.Abs(got - ref[j]); d > float64(n)*eps*mag[j] || math.IsNaN(got) {
				return fmt.Errorf("C[%d][%d] = %g, reference %g (difference %g)", i, j, c[i*n+j], ref[j], d)
			}
		}
	}
	return nil
}

// roundF16 rounds x (|x| < 1, or 0) to the nearest half-precision value
// (ties to even): a normal f16 has 11 significant bits; below 2⁻¹⁴ the
// spacing is 2⁻²⁴.
func roundF16(x float32) float32 {
	if x == 0 {
		return 0
	}
	e := max(math.Floor(math.Log2(math.Abs(float64(x)))), -14)
	ulp := math.Ldexp(1, int(e)-10)
	return float32(math.RoundToEven(float64(x)/ulp) * ulp)
}

// f16bytes encodes values that are exactly representable in half
// precision.
func f16bytes(v []float32) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], f16bits(x))
	}
	return b
}

// f16bits is the half-precision encoding of x, which must be a finite
// value representable in half precision.
func f16bits(x float32) uint16 {
	u := math.Float32bits(x)
	sign := uint16(u>>16) & 0x8000
	exp := int(u>>23&0xff) - 127
	mant := u & 0x7fffff
	switch {
	case x == 0:
		return sign
	case exp < -14: // subnormal: value = m·2⁻²⁴
		m := (mant | 0x800000) >> uint(-exp-14+13)
		return sign | uint16(m)
	default:
		return sign | uint16(exp+15)<<10 | uint16(mant>>13)
	}
}

// MatmulGo is the plain Go multiply the benchmark compares with, in the
// cache-friendly i-k-j order (a row of b at a time) the issue names, in
// float32: each C element is summed over k in the kernels' order, so the
// result is the i-j-k loop's, bit for bit.
//
// The row loop does four elements a step. The plain one-element loop ran
// 4.5 ms or 8.5 ms at 256² depending only on where the linker happened to
// place it (the same source, in test binaries built at neighbouring
// commits), which made the emulator's ratio to native jump between
// builds; four a step runs at the fast figure in every build measured
// (2026-11-28, docs/performance.md).
func MatmulGo(c, a, b []float32, n int) {
	for i := 0; i < n; i++ {
		ci := c[i*n : i*n+n]
		clear(ci)
		for k := 0; k < n; k++ {
			aik, bk := a[i*n+k], b[k*n:k*n+n]
			bk = bk[:len(ci)]
			j := 0
			for ; j+4 <= len(ci); j += 4 {
				c4, b4 := ci[j:j+4:j+4], bk[j:j+4:j+4]
				c4[0] += aik * b4[0]
				c4[1] += aik * b4[1]
				c4[2] += aik * b4[2]
				c4[3] += aik * b4[3]
			}
			for ; j < len(ci); j++ {
				ci[j] += aik * bk[j]
			}
		}
	}
}

func buildTranspose(e *Example, rng *rand.Rand) *instance {
	n := e.Size
	in := randMatrix(rng, n*n)
	return &instance{
		buffers: [][]byte{make([]byte, 4*n*n), f32bytes(in)},
		scalars: [][]byte{binary.LittleEndian.AppendUint32(nil, uint32(n)), binary.LittleEndian.AppendUint32(nil, uint32(n))},
		outputs: []int{0},
		check: func(out [][]byte) error {
			o := f32s(out[0])
			for y := 0; y < n; y++ {
				for x := 0; x < n; x++ {
					if got, want := math.Float32bits(o[x*n+y]), math.Float32bits(in[y*n+x]); got != want {
						return fmt.Errorf("out[%d][%d] = %g, want in[%d][%d] = %g", x, y, o[x*n+y], y, x, in[y*n+x])
					}
				}
			}
			return nil
		},
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }
