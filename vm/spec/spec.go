package spec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/listing"
)

// Spec is a launch spec, version 1 (docs/launch-spec.md): a module, a kernel, the
// launch geometry, buffers with their initial contents, arguments, and the
// buffers to write back.
type Spec struct {
	Module             string    `json:"module"`
	Kernel             string    `json:"kernel"`
	Grid               []uint32  `json:"grid"`
	Block              []uint32  `json:"block"`
	DynamicSharedBytes uint64    `json:"dynamic_shared_bytes,omitempty"`
	Buffers            []Buffer  `json:"buffers,omitempty"`
	Symbols            []Buffer  `json:"symbols,omitempty"`
	Textures           []Texture `json:"textures,omitempty"`
	Surfaces           []Surface `json:"surfaces,omitempty"`
	// TensorMaps are the tensor maps that tensormap arguments pass
	// (tensormap.go).
	TensorMaps []TensorMap `json:"tensor_maps,omitempty"`
	Args       []Arg       `json:"args"`
	Outputs    []string    `json:"outputs,omitempty"`
	// Steps makes the spec a program of several steps (program.go): copies,
	// memsets, prefetches and launches, run in order over the same
	// buffers. A spec with steps has no top-level kernel, grid, block or
	// args: each launch step gives its own.
	Steps []Step `json:"steps,omitempty"`
	// Optional fields beyond v1's core (they never change its meaning).
	Tolerance   *compare.Tolerance `json:"tolerance,omitempty"`
	Description string             `json:"description,omitempty"`
	// StackBytes raises cudaLimitStackSize, the per-thread stack a
	// recursive kernel may use, to at least this many bytes (default 1024).
	StackBytes uint64 `json:"stack_bytes,omitempty"`
	// Registers is the registers per thread ptxas allocates for the kernel
	// (ptxas -v, or ncu's launch__registers_per_thread); the occupancy
	// calculator uses it. 0: estimated from the PTX.
	Registers int `json:"registers,omitempty"`
	// Cluster is the cluster shape in blocks, 1 to 3 dimensions (what
	// cudaLaunchKernelEx's cudaLaunchAttributeClusterDimension gives);
	// absent: the kernel's .reqnctapercluster, else no clusters.
	Cluster []uint32 `json:"cluster,omitempty"`

	// Path is the spec file ("" when parsed from memory); Dir resolves
	// relative paths.
	Path string `json:"-"`
	Dir  string `json:"-"`
	// Quick marks a spec made from a quick launch's flags: its messages
	// speak of --arg values, not of the spec's args.
	Quick bool `json:"-"`
}

// Buffer is a device buffer (or, under "symbols", a module variable). Its
// contents come from File (a raw little-endian array, or a NumPy .npy
// file), from Fill, or are zeros.
type Buffer struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Count uint64 `json:"count"`
	File  string `json:"file,omitempty"`
	Fill  *Fill  `json:"fill,omitempty"`
	// Memory is where the buffer lives (program.go): "device" (the
	// default), "pinned" or "mapped" (page-locked host memory a kernel
	// reads over the host link), or "managed" (migrated on demand).
	// The bytes are the same wherever it lives; only the cost differs.
	Memory string `json:"memory,omitempty"`
	// WriteCombined marks pinned or mapped memory allocated
	// write-combined (cudaHostAllocWriteCombined).
	WriteCombined bool `json:"write_combined,omitempty"`
}

// Texture is a texture object over a buffer.
type Texture struct {
	Name       string   `json:"name"`
	Buffer     string   `json:"buffer"`
	Dims       []uint32 `json:"dims"`
	Format     string   `json:"format"`
	Address    string   `json:"address,omitempty"`
	Filter     string   `json:"filter,omitempty"`
	Normalized bool     `json:"normalized,omitempty"`
	Linear     bool     `json:"linear,omitempty"`
	Channels   int      `json:"channels,omitempty"`
	Read       string   `json:"read,omitempty"`
	Gather     bool     `json:"gather,omitempty"` // the array allows tex2Dgather (no effect here)
	// Layers makes a layered 1D or 2D array of this many layers (tex.a1d,
	// tex.a2d), one after another in the buffer.
	Layers uint32 `json:"layers,omitempty"`
	// Cube makes a cube map (tex.cube; tex.acube with layers) of dims
	// [w, w]: 6 faces (+x, −x, +y, −y, +z, −z) per layer in the buffer.
	Cube bool `json:"cube,omitempty"`
	// Levels makes a mipmapped array of this many levels: the buffer holds
	// level 0, then level 1 (each extent halved, at least 1), ...
	Levels uint32 `json:"levels,omitempty"`
	// MipFilter is the mipmap filter: point (the nearest level, the
	// default) or linear (the two nearest levels blended).
	MipFilter string `json:"mip_filter,omitempty"`
	// LODBias, MinLOD and MaxLOD are cudaTextureDesc's mipmapLevelBias,
	// minMipmapLevelClamp and maxMipmapLevelClamp; MaxLOD defaults to the
	// last level (CUDA's default, 0, would clamp every fetch to level 0).
	LODBias float32  `json:"lod_bias,omitempty"`
	MinLOD  float32  `json:"min_lod,omitempty"`
	MaxLOD  *float32 `json:"max_lod,omitempty"`
	// MaxAnisotropy is cudaTextureDesc's maxAnisotropy: 0 or 1 (isotropic
	// filtering, what ptxvm models); anything more is refused, since the
	// GPU's anisotropic level of detail and footprint are not modelled.
	MaxAnisotropy uint32 `json:"max_anisotropy,omitempty"`
}

// Surface is a surface object over a CUDA array whose elements a buffer
// holds (x fastest, then y, z and the layer, channels interleaved).
// Surface stores write the buffer: name it in outputs to read them back.
type Surface struct {
	Name     string   `json:"name"`
	Buffer   string   `json:"buffer"`
	Dims     []uint32 `json:"dims"`             // 1 to 3 extents, in elements
	Layers   uint32   `json:"layers,omitempty"` // a layered 1D or 2D array of this many layers
	Format   string   `json:"format,omitempty"` // channel type (default: the buffer's type)
	Channels int      `json:"channels,omitempty"`
	// Normalized makes a u8 array an unsigned-normalized one: sust.p
	// converts floats to it.
	Normalized bool `json:"normalized,omitempty"`
}

// Arg is one kernel argument: a buffer's address, a texture or surface
// handle, or a typed scalar.
type Arg struct {
	Kind  string // "buffer", "texture", "surface", "tensormap", or a scalar type
	Name  string // buffer, texture or surface name
	Value json.Number
	Raw   string // a scalar given as a string: hex bits, "nan", "inf", "-inf"
}

// UnmarshalJSON reads {"buffer": "A"}, {"u32": 5}, {"f32": "0x3f800000"}, ...
func (a *Arg) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return fmt.Errorf("an argument must be an object such as {\"buffer\": \"A\"} or {\"u32\": 5}: %v", err)
	}
	if len(m) != 1 {
		return fmt.Errorf("an argument must have exactly one key, found %d", len(m))
	}
	for k, v := range m {
		a.Kind = k
		switch k {
		case "buffer", "texture", "surface", "tensormap":
			if err := json.Unmarshal(v, &a.Name); err != nil {
				return fmt.Errorf("%q argument must name a %s: %v", k, k, err)
			}
			return nil
		}
		if _, ok := scalarSize[k]; !ok {
			return fmt.Errorf("unknown argument kind %q (want buffer, texture, surface, u8, s8, u16, s16, u32, s32, u64, s64, f32 or f64)", k)
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			a.Raw = s
			return nil
		}
		vd := json.NewDecoder(bytes.NewReader(v))
		vd.UseNumber()
		if err := vd.Decode(&a.Value); err != nil {
			return fmt.Errorf("%q argument must be a number: %v", k, err)
		}
	}
	return nil
}

// MarshalJSON writes the one-key form.
func (a Arg) MarshalJSON() ([]byte, error) {
	switch {
	case a.Kind == "buffer" || a.Kind == "texture" || a.Kind == "surface" || a.Kind == "tensormap":
		return json.Marshal(map[string]string{a.Kind: a.Name})
	case a.Raw != "":
		return json.Marshal(map[string]string{a.Kind: a.Raw})
	}
	return json.Marshal(map[string]json.Number{a.Kind: a.Value})
}

var scalarSize = map[string]int{"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8, "f32": 4, "f64": 8}

// Load reads and checks a launch spec file.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Path = path
	return s, nil
}

// Parse parses and checks a launch spec; dir resolves relative paths.
func Parse(data []byte, dir string) (*Spec, error) {
	var s Spec
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return nil, jsonError(data, err)
	}
	if d.More() {
		return nil, errors.New("trailing data after the spec object")
	}
	s.Dir = dir
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offending byte
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("invalid spec: %v", err)
	}
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	if te != nil {
		what := "the spec"
		if te.Field != "" {
			what = fmt.Sprintf("%q", te.Field)
		}
		return fmt.Errorf("invalid spec at line %d, column %d: %s should be %s, not a JSON %s", line, col, what, jsonKind(te.Type), te.Value)
	}
	return fmt.Errorf("invalid spec at line %d, column %d: %v", line, col, err)
}

// jsonKind describes the JSON a Go type decodes from, for error messages.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return "a base64 string"
		}
		return "an array, each element " + jsonKind(t.Elem())
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("an integer (%d-bit)", t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("a non-negative integer (%d-bit)", t.Bits())
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a value of another kind"
}

func (s *Spec) check() error {
	if s.Module == "" {
		return errors.New(`"module" is missing`)
	}
	if len(s.Steps) == 0 {
		if s.Kernel == "" {
			return errors.New(`"kernel" is missing`)
		}
		if _, err := dims3("grid", s.Grid); err != nil {
			return err
		}
		if _, err := dims3("block", s.Block); err != nil {
			return err
		}
	} else if s.Kernel != "" || s.Grid != nil || s.Block != nil || s.Args != nil || s.DynamicSharedBytes != 0 || s.Cluster != nil {
		return errors.New(`a spec with "steps" gives each launch's kernel, grid, block, args and cluster in its launch step, not at the top level`)
	}
	if s.Cluster != nil {
		if _, err := dims3("cluster", s.Cluster); err != nil {
			return err
		}
	}
	if s.Registers < 0 || s.Registers > 255 {
		return fmt.Errorf(`"registers" is %d; a thread has 1 to 255 registers`, s.Registers)
	}
	names := map[string]string{}
	for i, b := range s.Buffers {
		what := fmt.Sprintf("buffers[%d]", i)
		if b.Name == "" {
			return fmt.Errorf("%s has no name", what)
		}
		if _, dup := names[b.Name]; dup {
			return fmt.Errorf("%s: name %q is used twice", what, b.Name)
		}
		names[b.Name] = "buffer"
		if compare.ElemSize(b.Type) == 0 {
			return fmt.Errorf("%s (%s): unknown type %q (want u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64)", what, b.Name, b.Type)
		}
		if b.Count == 0 || b.Count > memspace.MaxAllocation/uint64(compare.ElemSize(b.Type)) {
			return fmt.Errorf("%s (%s): count %d is out of range (1 to %d elements of %s)", what, b.Name, b.Count, memspace.MaxAllocation/uint64(compare.ElemSize(b.Type)), b.Type)
		}
		if err := checkContents(what, b); err != nil {
			return err
		}
		if err := checkMemory(what, b); err != nil {
			return err
		}
	}
	for i, b := range s.Symbols {
		if b.Name == "" || compare.ElemSize(b.Type) == 0 || b.Count == 0 || b.Count > 1<<32 {
			return fmt.Errorf("symbols[%d]: needs a name, a known type and a positive count", i)
		}
		if err := checkContents(fmt.Sprintf("symbols[%d]", i), b); err != nil {
			return err
		}
	}
	for i, t := range s.Textures {
		if t.Name == "" {
			return fmt.Errorf("textures[%d] has no name", i)
		}
		if _, dup := names[t.Name]; dup {
			return fmt.Errorf("textures[%d]: name %q is used twice", i, t.Name)
		}
		names[t.Name] = "texture"
		if names[t.Buffer] != "buffer" {
			return fmt.Errorf("textures[%d] (%s): buffer %q is not a buffer of this spec", i, t.Name, t.Buffer)
		}
		if t.MaxAnisotropy > 1 {
			// (recorded on the H200: with maxAnisotropy 4 or 16, tex.grad
			// returns other values than isotropic filtering does, even for
			// isotropic gradients, and with 16 tex.level blends two levels
			// with other weights: docs/semantics.md)
			return fmt.Errorf("textures[%d] (%s): max_anisotropy %d: anisotropic filtering is not modelled; ptxvm filters isotropically (max_anisotropy 0 or 1)", i, t.Name, t.MaxAnisotropy)
		}
	}
	for i, t := range s.Surfaces {
		if t.Name == "" {
			return fmt.Errorf("surfaces[%d] has no name", i)
		}
		if _, dup := names[t.Name]; dup {
			return fmt.Errorf("surfaces[%d]: name %q is used twice", i, t.Name)
		}
		names[t.Name] = "surface"
		if names[t.Buffer] != "buffer" {
			return fmt.Errorf("surfaces[%d] (%s): buffer %q is not a buffer of this spec", i, t.Name, t.Buffer)
		}
	}
	if err := s.checkTensorMaps(names); err != nil {
		return err
	}
	if err := checkArgList("args", s.Args, names); err != nil {
		return err
	}
	if err := s.checkSteps(names); err != nil {
		return err
	}
	for _, o := range s.Outputs {
		if names[o] != "buffer" {
			return fmt.Errorf("output %q is not a buffer of this spec", o)
		}
	}
	if s.StackBytes > memspace.DefaultLocalSize {
		return fmt.Errorf("stack_bytes %d is more than this emulator gives a thread (%d)", s.StackBytes, memspace.DefaultLocalSize)
	}
	if s.DynamicSharedBytes > 1<<20 {
		return fmt.Errorf("dynamic_shared_bytes %d is out of range", s.DynamicSharedBytes)
	}
	return nil
}

// checkArgList checks a launch's arguments against the spec's buffers and
// textures and surfaces (names: name -> "buffer", "texture" or "surface").
func checkArgList(what string, args []Arg, names map[string]string) error {
	for i, a := range args {
		switch a.Kind {
		case "buffer", "texture", "surface", "tensormap":
			if names[a.Name] != a.Kind {
				return fmt.Errorf("%s[%d]: %q is not a %s of this spec", what, i, a.Name, a.Kind)
			}
		default:
			if _, err := a.bytes(); err != nil {
				return fmt.Errorf("%s[%d]: %v", what, i, err)
			}
		}
	}
	return nil
}

// checkContents checks a buffer's fill rule.
func checkContents(what string, b Buffer) error {
	if b.Fill == nil {
		return nil
	}
	if b.File != "" {
		return fmt.Errorf("%s (%s): fill and file are exclusive", what, b.Name)
	}
	if errs := b.Fill.check(b.Type); len(errs) > 0 {
		return fmt.Errorf("%s (%s): fill: %s", what, b.Name, strings.Join(errs, "; "))
	}
	return nil
}

func dims3(what string, v []uint32) ([3]uint32, error) {
	out := [3]uint32{1, 1, 1}
	if len(v) == 0 || len(v) > 3 {
		return out, fmt.Errorf("%q must have 1 to 3 dimensions", what)
	}
	for i, x := range v {
		if x == 0 {
			return out, fmt.Errorf("%q dimension %d is zero", what, i)
		}
		out[i] = x
	}
	return out, nil
}

// bytes encodes a scalar argument.
func (a *Arg) bytes() ([]byte, error) {
	n := scalarSize[a.Kind]
	buf := make([]byte, n)
	var bitsv uint64
	if a.Raw != "" {
		r := strings.ToLower(strings.TrimSpace(a.Raw))
		switch {
		case strings.HasPrefix(r, "0x"):
			v, err := strconv.ParseUint(r[2:], 16, n*8)
			if err != nil {
				return nil, fmt.Errorf("%s argument %q: %v", a.Kind, a.Raw, err)
			}
			bitsv = v
		case a.Kind == "f32" || a.Kind == "f64":
			var f float64
			switch r {
			case "nan":
				f = math.NaN()
			case "inf", "+inf":
				f = math.Inf(1)
			case "-inf":
				f = math.Inf(-1)
			default:
				return nil, fmt.Errorf("%s argument %q: want a number, hex bits (\"0x...\"), \"nan\", \"inf\" or \"-inf\"", a.Kind, a.Raw)
			}
			if a.Kind == "f32" {
				bitsv = uint64(math.Float32bits(float32(f)))
			} else {
				bitsv = math.Float64bits(f)
			}
		default:
			return nil, fmt.Errorf("%s argument %q: want a number or hex bits", a.Kind, a.Raw)
		}
	} else {
		str := a.Value.String()
		switch a.Kind {
		case "f32":
			f, err := strconv.ParseFloat(str, 32)
			if err != nil {
				return nil, fmt.Errorf("f32 argument %s: %v", str, err)
			}
			bitsv = uint64(math.Float32bits(float32(f)))
		case "f64":
			f, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return nil, fmt.Errorf("f64 argument %s: %v", str, err)
			}
			bitsv = math.Float64bits(f)
		case "s8", "s16", "s32", "s64":
			v, err := strconv.ParseInt(str, 10, n*8)
			if err != nil {
				return nil, fmt.Errorf("%s argument %s: %v", a.Kind, str, err)
			}
			bitsv = uint64(v)
		default:
			v, err := strconv.ParseUint(str, 10, n*8)
			if err != nil {
				return nil, fmt.Errorf("%s argument %s: %v", a.Kind, str, err)
			}
			bitsv = v
		}
	}
	for i := 0; i < n; i++ {
		buf[i] = byte(bitsv >> (8 * i))
	}
	return buf, nil
}

// ModuleCache shares parsed modules between the specs of one run (the
// conformance suite has many specs per module). Modules are parsed in full,
// so the shared trees are never modified afterwards.
type ModuleCache struct {
	mu sync.Mutex
	m  map[string]*cacheEntry
}

type cacheEntry struct {
	once sync.Once
	ast  *ptx.Module
	err  error
}

// NewModuleCache returns an empty cache.
func NewModuleCache() *ModuleCache { return &ModuleCache{m: map[string]*cacheEntry{}} }

func (c *ModuleCache) get(path string) (*ptx.Module, error) {
	c.mu.Lock()
	e := c.m[path]
	if e == nil {
		e = &cacheEntry{}
		c.m[path] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		src, err := os.ReadFile(path)
		if err != nil {
			e.err = err
			return
		}
		e.ast, e.err = ptx.Parse(path, src)
	})
	return e.ast, e.err
}

// Prepared is a spec made ready to run on a device.
type Prepared struct {
	Spec    *Spec
	Device  *vm.Device
	Module  *vm.Module
	Kernel  string // the kernel's mangled name (the spec may give another name for it; see listing.Resolve)
	Launch  *vm.Launch
	Buffers map[string]uint64 // device addresses

	cache    *ModuleCache
	modules  map[string]*vm.Module // by resolved path
	textures map[string]uint64     // texture handles by name
	surfaces map[string]uint64     // surface handles by name
	tmaps    map[string]tmapArg    // tensor maps by name
}

func (s *Spec) resolve(p string) string {
	if filepath.IsAbs(p) || s.Dir == "" {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// Prepare loads the module, allocates and fills the buffers, writes the
// symbols and the arguments, and returns a launch ready to run. cache may
// be nil. A program (a spec with steps) is prepared with PrepareMemory and
// then LaunchStep for each of its launches.
func (s *Spec) Prepare(dev *vm.Device, cache *ModuleCache) (*Prepared, error) {
	if len(s.Steps) > 0 {
		return nil, errors.New(`the spec is a program of several steps ("steps"): run it as a program`)
	}
	p, err := s.PrepareMemory(dev, cache)
	if err != nil {
		return nil, err
	}
	l, kernel, m, err := p.prepareLaunch(s)
	if err != nil {
		return nil, err
	}
	p.Launch, p.Kernel, p.Module = l, kernel, m
	return p, nil
}

// module loads the module at path (resolved against the spec's folder)
// once per Prepared.
func (p *Prepared) module(path string) (*vm.Module, string, error) {
	mpath := p.Spec.resolve(path)
	if m := p.modules[mpath]; m != nil {
		return m, mpath, nil
	}
	var m *vm.Module
	if p.cache != nil {
		ast, err := p.cache.get(mpath)
		if err != nil {
			return nil, mpath, err
		}
		m, err = p.Device.LoadAST(mpath, ast)
		if err != nil {
			return nil, mpath, err
		}
	} else {
		src, err := os.ReadFile(mpath)
		if err != nil {
			return nil, mpath, fmt.Errorf("module: %w", err)
		}
		m, err = p.Device.LoadModule(mpath, src)
		if err != nil {
			return nil, mpath, err
		}
	}
	p.modules[mpath] = m
	return m, mpath, nil
}

// PrepareMemory loads the spec's module, allocates and fills its buffers,
// writes its symbols and makes its textures: everything but a launch.
// Module is the spec's module; Launch and Kernel are left unset.
func (s *Spec) PrepareMemory(dev *vm.Device, cache *ModuleCache) (*Prepared, error) {
	p := &Prepared{Spec: s, Device: dev, Buffers: map[string]uint64{}, cache: cache, modules: map[string]*vm.Module{}, textures: map[string]uint64{}, surfaces: map[string]uint64{}, tmaps: map[string]tmapArg{}}
	m, _, err := p.module(s.Module)
	if err != nil {
		return nil, err
	}
	p.Module = m
	for _, b := range s.Buffers {
		n := b.Count * uint64(compare.ElemSize(b.Type))
		addr, err := dev.Malloc(n, "buffer "+b.Name)
		if err != nil {
			return nil, err
		}
		p.Buffers[b.Name] = addr
		if err := s.fillBuffer(b, dev.Mem.Find(addr, 1)); err != nil {
			return nil, err
		}
	}
	for _, b := range s.Symbols {
		n := b.Count * uint64(compare.ElemSize(b.Type))
		data, err := s.initialBytes(b)
		if err != nil {
			return nil, fmt.Errorf("symbol %w", err)
		}
		if data == nil {
			data = make([]byte, n)
		}
		if err := m.WriteSymbol(b.Name, data); err != nil {
			return nil, fmt.Errorf("symbols: %w", err)
		}
	}
	for i, t := range s.Textures {
		h, err := s.makeTexture(dev, p, t)
		if err != nil {
			return nil, fmt.Errorf("textures[%d] (%s): %w", i, t.Name, err)
		}
		p.textures[t.Name] = h
	}
	for i, t := range s.Surfaces {
		h, err := s.makeSurface(dev, p, t)
		if err != nil {
			return nil, fmt.Errorf("surfaces[%d] (%s): %w", i, t.Name, err)
		}
		p.surfaces[t.Name] = h
	}
	if err := p.makeTensorMaps(dev); err != nil {
		return nil, err
	}
	return p, nil
}

// LaunchStep prepares launch step i of a program (Spec.Steps[i].Launch)
// over the buffers PrepareMemory made. The launch is the caller's to
// release.
func (p *Prepared) LaunchStep(i int) (l *vm.Launch, kernel string, err error) {
	st := p.Spec.Steps[i].Launch
	if st == nil {
		return nil, "", fmt.Errorf("steps[%d] is not a launch", i)
	}
	ls := *p.Spec
	ls.Steps = nil
	ls.Module = st.Module
	if ls.Module == "" {
		ls.Module = p.Spec.Module
	}
	ls.Kernel, ls.Grid, ls.Block, ls.Args = st.Kernel, st.Grid, st.Block, st.Args
	ls.DynamicSharedBytes = st.DynamicSharedBytes
	ls.StackBytes = st.StackBytes
	ls.Cluster = st.Cluster
	l, kernel, _, err = p.prepareLaunch(&ls)
	if err != nil {
		return nil, "", fmt.Errorf("steps[%d] (launch): %w", i, err)
	}
	return l, kernel, nil
}

// prepareLaunch resolves s's kernel in s's module, checks and encodes its
// arguments over p's buffers and textures and makes the launch.
func (p *Prepared) prepareLaunch(s *Spec) (*vm.Launch, string, *vm.Module, error) {
	m, mpath, err := p.module(s.Module)
	if err != nil {
		return nil, "", nil, err
	}
	kernel, err := listing.Resolve(m.EntryNames(), s.Kernel)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: %w", mpath, err)
	}
	fn, err := m.EntryDecl(kernel)
	if err != nil {
		return nil, "", nil, err
	}
	if err := s.checkArgs(kernel, fn); err != nil {
		return nil, "", nil, err
	}
	args := make([][]byte, len(s.Args))
	for i, a := range s.Args {
		switch a.Kind {
		case "buffer":
			args[i] = binary.LittleEndian.AppendUint64(nil, p.Buffers[a.Name])
		case "texture":
			args[i] = binary.LittleEndian.AppendUint64(nil, p.textures[a.Name])
		case "surface":
			args[i] = binary.LittleEndian.AppendUint64(nil, p.surfaces[a.Name])
		case "tensormap":
			args[i] = p.tensorMapArg(a.Name, paramBytes(fn.Params[i]))
		default:
			b, err := a.bytes()
			if err != nil {
				return nil, "", nil, err
			}
			args[i] = b
		}
	}
	grid, err := dims3("grid", s.Grid)
	if err != nil {
		return nil, "", nil, err
	}
	block, err := dims3("block", s.Block)
	if err != nil {
		return nil, "", nil, err
	}
	var cluster [3]uint32
	if s.Cluster != nil {
		if cluster, err = dims3("cluster", s.Cluster); err != nil {
			return nil, "", nil, err
		}
	}
	l, err := m.PrepareLaunch(kernel, vm.LaunchConfig{Grid: grid, Block: block, DynSmem: s.DynamicSharedBytes, Cluster: cluster}, args)
	if err != nil {
		return nil, "", nil, err
	}
	l.StackLimit = max(vm.DefaultStackLimit, s.StackBytes)
	return l, kernel, m, nil
}

// Outputs reads back the spec's output buffers.
func (p *Prepared) Outputs() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range p.Spec.Outputs {
		var b *Buffer
		for i := range p.Spec.Buffers {
			if p.Spec.Buffers[i].Name == name {
				b = &p.Spec.Buffers[i]
			}
		}
		data := make([]byte, b.Count*uint64(compare.ElemSize(b.Type)))
		if err := p.Device.MemcpyDtoH(data, p.Buffers[name]); err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

// WriteOutput writes output buffer name to w a page at a time, so that a
// large output need not be held in host memory.
func (p *Prepared) WriteOutput(name string, w io.Writer) error {
	addr, ok := p.Buffers[name]
	if !ok {
		return fmt.Errorf("no buffer %q", name)
	}
	a := p.Device.Mem.Find(addr, 1)
	if a == nil {
		return fmt.Errorf("buffer %s is no longer allocated", name)
	}
	_, err := a.WriteTo(w)
	return err
}

// OutputNames lists the outputs in spec order.
func (s *Spec) OutputNames() []string { return append([]string(nil), s.Outputs...) }

// BufferType returns the element type of a buffer.
func (s *Spec) BufferType(name string) string {
	for _, b := range s.Buffers {
		if b.Name == name {
			return b.Type
		}
	}
	return ""
}

// SortedBuffers returns buffer names sorted (for stable listings).
func (p *Prepared) SortedBuffers() []string {
	var n []string
	for k := range p.Buffers {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// ArgBytes encodes a scalar argument as the kernel parameter bytes.
func ArgBytes(a *Arg) ([]byte, error) { return a.bytes() }

func (s *Spec) makeTexture(dev *vm.Device, p *Prepared, t Texture) (uint64, error) {
	addr := p.Buffers[t.Buffer]
	var bt string
	for _, b := range s.Buffers {
		if b.Name == t.Buffer {
			bt = b.Type
		}
	}
	format := t.Format
	if format == "" {
		format = bt
	}
	if compare.ElemSize(format) != compare.ElemSize(bt) {
		return 0, fmt.Errorf("format %s does not match buffer %s of type %s", format, t.Buffer, bt)
	}
	a := dev.Mem.Find(addr, 1)
	data := a.Data
	if data == nil {
		// A sparse buffer: the texture reads a snapshot (on the GPU too,
		// texture reads of memory the same kernel writes are undefined).
		data = make([]byte, a.Size)
		if err := a.ReadAt(data, 0); err != nil {
			return 0, err
		}
	}
	desc := vm.TextureDesc{Linear: t.Linear, Format: format, Channels: t.Channels, Normalized: t.Normalized,
		Layers: int(t.Layers), Data: data, Base: addr, Cube: t.Cube, Levels: int(t.Levels),
		LODBias: t.LODBias, MinLOD: t.MinLOD, MaxLOD: float32(max(1, t.Levels) - 1)}
	if t.MaxLOD != nil {
		desc.MaxLOD = *t.MaxLOD
	}
	switch t.MipFilter {
	case "", "point":
	case "linear":
		desc.MipLinear = true
	default:
		return 0, fmt.Errorf("mip_filter %q is not point or linear", t.MipFilter)
	}
	if t.Levels <= 1 && (t.MipFilter != "" || t.LODBias != 0 || t.MinLOD != 0 || t.MaxLOD != nil) {
		return 0, fmt.Errorf("mip_filter, lod_bias, min_lod and max_lod need a mipmapped texture (levels of 2 or more)")
	}
	for _, d := range t.Dims {
		desc.Dims = append(desc.Dims, int(d))
	}
	switch t.Address {
	case "", "clamp":
		desc.Address = vm.AddrClamp
	case "wrap":
		desc.Address = vm.AddrWrap
	case "mirror":
		desc.Address = vm.AddrMirror
	case "border":
		desc.Address = vm.AddrBorder
	default:
		return 0, fmt.Errorf("address mode %q is not one of clamp, wrap, mirror, border", t.Address)
	}
	switch t.Filter {
	case "", "point":
	case "linear":
		desc.FilterLin = true
	default:
		return 0, fmt.Errorf("filter %q is not point or linear", t.Filter)
	}
	switch t.Read {
	case "", "element":
	case "normalized":
		desc.ReadNorm = true
	default:
		return 0, fmt.Errorf("read mode %q is not element or normalized", t.Read)
	}
	if (desc.Address == vm.AddrWrap || desc.Address == vm.AddrMirror) && !desc.Normalized && !desc.Linear {
		return 0, fmt.Errorf("%s addressing needs normalized coordinates", t.Address)
	}
	return dev.CreateTexture(desc)
}

func (s *Spec) makeSurface(dev *vm.Device, p *Prepared, t Surface) (uint64, error) {
	bt := s.BufferType(t.Buffer)
	format := t.Format
	if format == "" {
		format = bt
	}
	desc := vm.SurfaceDesc{Format: format, Channels: t.Channels, Layers: int(t.Layers), Base: p.Buffers[t.Buffer], Normalized: t.Normalized}
	for _, d := range t.Dims {
		desc.Dims = append(desc.Dims, int(d))
	}
	return dev.CreateSurface(desc)
}
