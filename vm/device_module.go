package vm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

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
	if err := refusedModule(filename, src); err != nil {
		return nil, err
	}
	return d.LoadAST(filename, ast)
}

// LoadAST loads a module that was parsed already (ptx.Parse or ptx.ParseLazy):
// callers that launch one module many times parse it once. The tree must not
// be modified afterwards; function bodies not yet parsed are parsed on first
// use.
func (d *Device) LoadAST(filename string, ast *ptx.Module) (*Module, error) {
	m := &Module{dev: d, Filename: filename, AST: ast, funcs: map[string]*ptx.Function{},
		syms: map[string]*Symbol{}, files: map[int]string{}, kernels: map[string]*Kernel{}}
	for _, f := range ast.Files {
		m.files[f.Index] = f.Name
	}
	var errs ptx.ErrorList
	for _, fn := range ast.Funcs {
		if old := m.funcs[fn.Name]; old != nil {
			if old.HasBody && fn.HasBody {
				errs = append(errs, &ptx.Error{Pos: fn.Pos, Msg: "function " + fn.Name + " is defined twice"})
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
		size, align, t, err := VarLayout(v)
		if err != nil {
			errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: err.Error()})
			continue
		}
		if _, dup := m.syms[v.Name]; dup {
			errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: "variable " + v.Name + " is declared twice"})
			continue
		}
		s := &Symbol{Name: v.Name, Size: size, Align: max(align, 1), Type: t, Decl: v, Extern: v.Linkage == ".extern"}
		switch v.Space {
		case ".global":
			s.Space = memspace.Global
			if s.Extern {
				errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: "extern .global variable " + v.Name + " is defined in another module; linking modules is not supported"})
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
				errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: fmt.Sprintf("constant variable %s does not fit in the 64 KiB constant bank", v.Name)})
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
			errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: "module-scope " + v.Space + " variables are not supported"})
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
			// A large variable is sparse: initialise what the
			// initialiser covers, then copy it in.
			buf = s.Alloc.Data
			if buf == nil {
				buf = make([]byte, min(s.Size, uint64(len(v.Init))*uint64(max(s.Type.Size(), 1))))
			}
		case memspace.Const:
			buf = bank.Data[s.Addr : s.Addr+s.Size]
		default:
			errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: "initialisers are allowed only on .global and .const variables"})
			continue
		}
		if err := m.writeInit(buf, s); err != nil {
			errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: err.Error()})
		} else if s.Space == memspace.Global && s.Alloc.Sparse() {
			if err := s.Alloc.WriteAt(buf, 0); err != nil {
				errs = append(errs, &ptx.Error{Pos: v.Pos, Msg: err.Error()})
			}
		}
	}
	errs.Sort()
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
		return s.Alloc.WriteAt(data, 0)
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
		b := make([]byte, s.Size)
		return b, s.Alloc.ReadAt(b, 0)
	case memspace.Const:
		return append([]byte(nil), m.constBank.Data[s.Addr:s.Addr+s.Size]...), nil
	}
	return nil, fmt.Errorf("symbol %s is a %s variable", name, s.Space)
}

// EntryDecl returns the declaration of kernel name (its AST; the body may
// not be parsed yet), or an error naming the module's kernels.
func (m *Module) EntryDecl(name string) (*ptx.Function, error) {
	fn := m.funcs[name]
	if fn == nil || !fn.Entry {
		return nil, fmt.Errorf("%s: no kernel named %q (entries: %s)", m.Filename, name, strings.Join(m.EntryNames(), ", "))
	}
	return fn, nil
}

// FuncDecl returns the function or kernel called name (the definition when
// there is one), or nil.
func (m *Module) FuncDecl(name string) *ptx.Function { return m.funcs[name] }

// Symbols lists the module-scope variables in source order.
func (m *Module) Symbols() []*Symbol { return m.symList }

// LookupSymbol returns the module-scope variable called name, or nil.
func (m *Module) LookupSymbol(name string) *Symbol { return m.syms[name] }

// ConstBytes is the size of the module's constant bank in use.
func (m *Module) ConstBytes() uint64 { return m.constSize }

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
	for _, f := range k.Funcs {
		f.ident = identityLayout(f)
		f.lay = computeLayout(f)
	}
	m.kernels[name] = k
	return k, nil
}

// refusedSuq are the suq queries whose presence makes the driver refuse a
// module as a whole (recorded on the H200, sm_90, driver 580: every kernel
// of it, even one without the query, fails with cudaErrorNotSupported).
var refusedSuq = []string{"suq.channel_data_type", "suq.channel_order", "suq.array_size", "suq.memory_layout"}

// refusedModule finds the first refused suq query outside comments, so that
// the module fails to load as it does on the GPU (the lowering of a kernel
// that holds one reports it too, for modules loaded from a parsed tree).
func refusedModule(filename string, src []byte) error {
	line := 1
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src) - off
		}
		text := src[off : off+end]
		if c := bytes.Index(text, []byte("//")); c >= 0 {
			text = text[:c]
		}
		for _, q := range refusedSuq {
			if col := bytes.Index(text, []byte(q)); col >= 0 {
				return &ptx.Error{Pos: ptx.Pos{Filename: filename, Offset: off + col, Line: line, Column: col + 1},
					Msg: q + ": the GPU refuses to load a module that holds this query (sm_90: CUDA_ERROR_NOT_SUPPORTED at module load, for every kernel of the module; only .width, .height and .depth load)"}
			}
		}
		off += end + 1
		line++
	}
	return nil
}
