package vm

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Device is an emulated GPU's memory and loaded modules: the device API
// (cudaMalloc, cudaMemcpy, cuModuleLoad, cudaMemcpyToSymbol, launches).
type Device struct {
	Mem      *memspace.GlobalMemory
	modules  []*Module
	grids    uint64
	textures []*Texture
}

// NewDevice returns a device with empty memory.
func NewDevice() *Device {
	return &Device{Mem: memspace.NewGlobalMemory()}
}

// Malloc allocates n bytes of device memory (zeroed), aligned to 256 bytes.
func (d *Device) Malloc(n uint64, name string) (uint64, error) {
	a, err := d.Mem.Malloc(n, name)
	if err != nil {
		return 0, err
	}
	return a.Base, nil
}

// Free releases an allocation.
func (d *Device) Free(addr uint64) error { return d.Mem.Free(addr) }

// MemcpyHtoD copies host bytes to device memory.
func (d *Device) MemcpyHtoD(dst uint64, src []byte) error {
	a := d.Mem.Find(dst, uint64(len(src)))
	if a == nil {
		return fmt.Errorf("copy of %d bytes to device address %#x: %s", len(src), dst, d.Mem.Describe(dst, uint64(len(src))))
	}
	copy(a.Data[dst-a.Base:], src)
	return nil
}

// MemcpyDtoH copies device memory to host bytes.
func (d *Device) MemcpyDtoH(dst []byte, src uint64) error {
	a := d.Mem.Find(src, uint64(len(dst)))
	if a == nil {
		return fmt.Errorf("copy of %d bytes from device address %#x: %s", len(dst), src, d.Mem.Describe(src, uint64(len(dst))))
	}
	copy(dst, a.Data[src-a.Base:])
	return nil
}

// Module is a PTX module loaded into a device: its variables placed, its
// kernels lowered on first use.
type Module struct {
	dev       *Device
	Filename  string
	AST       *ptx.Module
	funcs     map[string]*ptx.Function
	syms      map[string]*Symbol
	symList   []*Symbol
	files     map[int]string
	constBank *memspace.Allocation
	constSize uint64

	mu      sync.Mutex
	kernels map[string]*Kernel
}

// LoadModule parses src (function bodies on demand) and places its
// module-scope variables: .global variables in their own allocations,
// .const variables in a 64 KiB constant bank, initialisers written.
func (d *Device) LoadModule(filename string, src []byte) (*Module, error) {
	ast, err := ptx.ParseLazy(filename, src)
	if err != nil {
		return nil, err
	}
	return d.loadAST(filename, ast)
}

func (d *Device) loadAST(filename string, ast *ptx.Module) (*Module, error) {
	m := &Module{dev: d, Filename: filename, AST: ast, funcs: map[string]*ptx.Function{},
		syms: map[string]*Symbol{}, files: map[int]string{}, kernels: map[string]*Kernel{}}
	for _, f := range ast.Files {
		m.files[f.Index] = f.Name
	}
	var errs ErrorList
	for _, fn := range ast.Funcs {
		if old := m.funcs[fn.Name]; old != nil {
			if old.HasBody && fn.HasBody {
				errs = append(errs, &PosError{Pos: fn.Pos, Msg: "function " + fn.Name + " is defined twice"})
			}
			if !fn.HasBody {
				continue // a declaration after the definition
			}
		}
		m.funcs[fn.Name] = fn
	}
	bank, err := d.Mem.Malloc(memspace.ConstBankSize, "the constant bank of "+filename)
	if err != nil {
		return nil, err
	}
	m.constBank = bank
	for _, v := range ast.Vars {
		size, align, t, err := varLayout(v)
		if err != nil {
			errs = append(errs, &PosError{Pos: v.Pos, Msg: err.Error()})
			continue
		}
		if _, dup := m.syms[v.Name]; dup {
			errs = append(errs, &PosError{Pos: v.Pos, Msg: "variable " + v.Name + " is declared twice"})
			continue
		}
		s := &Symbol{Name: v.Name, Size: size, Align: max(align, 1), Type: t, Decl: v, Extern: v.Linkage == ".extern"}
		switch v.Space {
		case ".global":
			s.Space = memspace.Global
			if s.Extern {
				errs = append(errs, &PosError{Pos: v.Pos, Msg: "extern .global variable " + v.Name + " is defined in another module; linking modules is not supported"})
				continue
			}
			a, err := d.Mem.Malloc(max(size, 1), "global variable "+v.Name)
			if err != nil {
				return nil, err
			}
			s.Addr, s.Alloc = a.Base, a
		case ".const":
			s.Space = memspace.Const
			off := alignUp(m.constSize, s.Align)
			if off+size > memspace.ConstBankSize {
				errs = append(errs, &PosError{Pos: v.Pos, Msg: fmt.Sprintf("constant variable %s does not fit in the 64 KiB constant bank", v.Name)})
				continue
			}
			s.Addr = off
			m.constSize = off + size
		case ".shared":
			s.Space = memspace.Shared
			s.Dynamic = s.Extern && size == 0
		case ".tex", ".surf", ".sampler":
			continue // texture references: not supported by this model
		default:
			if t == TexRef {
				continue
			}
			errs = append(errs, &PosError{Pos: v.Pos, Msg: "module-scope " + v.Space + " variables are not supported"})
			continue
		}
		m.syms[v.Name] = s
		m.symList = append(m.symList, s)
	}
	// Initialisers, once every address is known.
	for _, s := range m.symList {
		v := s.Decl
		if !v.HasInit || len(v.Init) == 0 {
			continue
		}
		var buf []byte
		switch s.Space {
		case memspace.Global:
			buf = s.Alloc.Data
		case memspace.Const:
			buf = bank.Data[s.Addr : s.Addr+s.Size]
		default:
			errs = append(errs, &PosError{Pos: v.Pos, Msg: "initialisers are allowed only on .global and .const variables"})
			continue
		}
		if err := m.writeInit(buf, s); err != nil {
			errs = append(errs, &PosError{Pos: v.Pos, Msg: err.Error()})
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	d.modules = append(d.modules, m)
	return m, nil
}

func (m *Module) writeInit(buf []byte, s *Symbol) error {
	t := s.Type
	esz := t.Size()
	if esz == 0 {
		return fmt.Errorf("variable %s of type %s cannot be initialised", s.Name, t)
	}
	for i, e := range s.Decl.Init {
		off := i * esz
		if off+esz > len(buf) {
			return fmt.Errorf("variable %s: %d initialisers for %d elements", s.Name, len(s.Decl.Init), len(buf)/esz)
		}
		var v uint64
		switch e.Kind {
		case ptx.InitInt:
			v = e.Int
			switch t {
			case F32:
				v = uint64(math.Float32bits(float32(int64(e.Int))))
			case F64:
				v = math.Float64bits(float64(int64(e.Int)))
			}
		case ptx.InitFloat:
			v = e.Float
			switch {
			case t == F32 && e.Double:
				v = uint64(math.Float32bits(float32(math.Float64frombits(e.Float))))
			case t == F64 && !e.Double:
				v = math.Float64bits(float64(math.Float32frombits(uint32(e.Float))))
			}
		case ptx.InitSymbol:
			target := m.syms[e.Symbol]
			if target == nil {
				if _, isFunc := m.funcs[e.Symbol]; isFunc {
					return fmt.Errorf("variable %s: function pointers in initialisers are not supported", s.Name)
				}
				return fmt.Errorf("variable %s: initialiser names unknown symbol %s", s.Name, e.Symbol)
			}
			switch target.Space {
			case memspace.Global:
				v = target.Addr
			case memspace.Const:
				v = m.constBank.Base + target.Addr
				if !e.Generic {
					v = target.Addr
				}
			default:
				return fmt.Errorf("variable %s: the address of %s variable %s is not a link-time constant here", s.Name, target.Space, e.Symbol)
			}
			v += uint64(e.Offset)
		}
		switch esz {
		case 1:
			buf[off] = byte(v)
		case 2:
			binary.LittleEndian.PutUint16(buf[off:], uint16(v))
		case 4:
			binary.LittleEndian.PutUint32(buf[off:], uint32(v))
		case 8:
			binary.LittleEndian.PutUint64(buf[off:], v)
		default:
			return fmt.Errorf("variable %s: cannot initialise %d-byte elements", s.Name, esz)
		}
	}
	return nil
}

// EntryNames lists the kernels of the module in source order.
func (m *Module) EntryNames() []string {
	var out []string
	for _, f := range m.AST.Funcs {
		if f.Entry && f.HasBody {
			out = append(out, f.Name)
		}
	}
	return out
}

// Symbol returns a module-scope variable.
func (m *Module) Symbol(name string) (*Symbol, error) {
	s := m.syms[name]
	if s == nil {
		var names []string
		for _, t := range m.symList {
			if t.Space == memspace.Global || t.Space == memspace.Const {
				names = append(names, t.Name)
			}
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s: no .global or .const variable named %q (variables: %v)", m.Filename, name, names)
	}
	return s, nil
}

// WriteSymbol copies data into a .global or .const variable, as
// cudaMemcpyToSymbol does.
func (m *Module) WriteSymbol(name string, data []byte) error {
	s, err := m.Symbol(name)
	if err != nil {
		return err
	}
	if uint64(len(data)) > s.Size {
		return fmt.Errorf("symbol %s holds %d bytes; %d were given", name, s.Size, len(data))
	}
	switch s.Space {
	case memspace.Global:
		copy(s.Alloc.Data, data)
	case memspace.Const:
		copy(m.constBank.Data[s.Addr:], data)
	default:
		return fmt.Errorf("symbol %s is a %s variable; only .global and .const variables can be written from the host", name, s.Space)
	}
	return nil
}

// ReadSymbol returns a copy of a .global or .const variable's bytes.
func (m *Module) ReadSymbol(name string) ([]byte, error) {
	s, err := m.Symbol(name)
	if err != nil {
		return nil, err
	}
	switch s.Space {
	case memspace.Global:
		return append([]byte(nil), s.Alloc.Data...), nil
	case memspace.Const:
		return append([]byte(nil), m.constBank.Data[s.Addr:s.Addr+s.Size]...), nil
	}
	return nil, fmt.Errorf("symbol %s is a %s variable", name, s.Space)
}

// Kernel lowers (once) and returns the named entry.
func (m *Module) Kernel(name string) (*Kernel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := m.kernels[name]; k != nil {
		return k, nil
	}
	k, err := m.lowerKernel(name)
	if err != nil {
		return nil, err
	}
	k.linkCalls()
	m.kernels[name] = k
	return k, nil
}

// LaunchConfig is a kernel launch's geometry.
type LaunchConfig struct {
	Grid    [3]uint32
	Block   [3]uint32
	DynSmem uint64
}

// PrepareLaunch checks a launch against the hardware limits and the
// kernel's signature and writes the parameter buffer. args holds one value
// per kernel parameter, each exactly the parameter's size.
func (m *Module) PrepareLaunch(kernel string, cfg LaunchConfig, args [][]byte) (*Launch, error) {
	k, err := m.Kernel(kernel)
	if err != nil {
		return nil, err
	}
	if err := checkGeometry(k, cfg); err != nil {
		return nil, err
	}
	if len(args) != len(k.Params) {
		return nil, fmt.Errorf("kernel %s takes %d parameters, %d arguments were given", kernel, len(k.Params), len(args))
	}
	pa, err := m.dev.Mem.Malloc(max(k.ParamSize, 1), "the parameters of "+kernel)
	if err != nil {
		return nil, err
	}
	for i, p := range k.Params {
		if uint64(len(args[i])) != p.Size {
			_ = m.dev.Mem.Free(pa.Base)
			return nil, fmt.Errorf("kernel %s parameter %d (%s, %s, %d bytes): argument has %d bytes", kernel, i, p.Name, p.Type, p.Size, len(args[i]))
		}
		copy(pa.Data[p.Offset:], args[i])
	}
	m.dev.grids++
	return &Launch{Kernel: k, Module: m, Grid: cfg.Grid, Block: cfg.Block, DynSmem: cfg.DynSmem, params: pa, NumSMs: 1, GridID: m.dev.grids}, nil
}

func checkGeometry(k *Kernel, cfg LaunchConfig) error {
	g, b := cfg.Grid, cfg.Block
	for i := 0; i < 3; i++ {
		if g[i] == 0 || b[i] == 0 {
			return fmt.Errorf("kernel %s: grid (%d,%d,%d) and block (%d,%d,%d) must have no zero dimension", k.Name, g[0], g[1], g[2], b[0], b[1], b[2])
		}
	}
	if b[0] > 1024 || b[1] > 1024 || b[2] > MaxBlockDimZ {
		return fmt.Errorf("kernel %s: block (%d,%d,%d) exceeds the limits (1024, 1024, 64)", k.Name, b[0], b[1], b[2])
	}
	if n := uint64(b[0]) * uint64(b[1]) * uint64(b[2]); n > MaxThreadsPerBlock {
		return fmt.Errorf("kernel %s: block (%d,%d,%d) has %d threads; at most %d are allowed", k.Name, b[0], b[1], b[2], n, MaxThreadsPerBlock)
	}
	if g[0] > MaxGridDimX || g[1] > MaxGridDimYZ || g[2] > MaxGridDimYZ {
		return fmt.Errorf("kernel %s: grid (%d,%d,%d) exceeds the limits (2147483647, 65535, 65535)", k.Name, g[0], g[1], g[2])
	}
	threads := b[0] * b[1] * b[2]
	if v, ok := k.Perf[".reqntid"]; ok {
		want := [3]int64{1, 1, 1}
		copy(want[:], v)
		if int64(b[0]) != want[0] || int64(b[1]) != want[1] || int64(b[2]) != want[2] {
			return fmt.Errorf("kernel %s requires block (%d,%d,%d) (.reqntid); the launch uses (%d,%d,%d)", k.Name, want[0], want[1], want[2], b[0], b[1], b[2])
		}
	}
	if v, ok := k.Perf[".maxntid"]; ok {
		max := int64(1)
		for _, x := range v {
			max *= x
		}
		if int64(threads) > max {
			return fmt.Errorf("kernel %s allows at most %d threads per block (.maxntid); the launch uses %d", k.Name, max, threads)
		}
	}
	if s := k.DynamicBase + cfg.DynSmem; s > memspace.MaxSharedPerCTA {
		return fmt.Errorf("kernel %s: %d bytes of shared memory per block (%d static + %d dynamic) exceed the %d-byte limit", k.Name, s, k.SharedStatic, cfg.DynSmem, memspace.MaxSharedPerCTA)
	}
	return nil
}
