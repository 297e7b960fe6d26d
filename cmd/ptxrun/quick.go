package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec"
	"github.com/ptxvm/ptxvm/vm/spec/npy"
)

// A quick launch describes a spec on the command line:
//
//	ptxrun run kernel.ptx --kernel matmul_tiled --grid 16,16 --block 16,16 \
//	    --arg C=f32[65536] --arg A=f32[65536]:rand --arg B=B.npy --arg n=u32:256
//
// Each --arg is the next kernel parameter, in order:
//
//	NAME=TYPE[COUNT]            a buffer of COUNT zeros
//	NAME=TYPE[COUNT]:rand       random contents: floats in [0,1), integers over the type's range
//	NAME=TYPE[COUNT]:rand(LO,HI[,SEED])
//	NAME=TYPE[COUNT]:iota[(START[,STEP])]
//	NAME=TYPE[COUNT]:VALUE      every element VALUE
//	NAME=TYPE[COUNT]:FILE       contents from a raw .bin or a .npy file (COUNT may be empty: TYPE[])
//	NAME=FILE.npy               type and count from the .npy file
//	[NAME=]TYPE:VALUE           a scalar: u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 (VALUE may be
//	                            hex bits 0x..., nan, inf)
type quickArgs []string

func (q *quickArgs) String() string     { return strings.Join(*q, " ") }
func (q *quickArgs) Set(s string) error { *q = append(*q, s); return nil }

// parseDims reads "64", "64,64", "64x64x2".
func parseDims(what, s string) ([]uint32, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == 'x' || r == 'X' })
	if len(f) == 0 || len(f) > 3 {
		return nil, fmt.Errorf("--%s %q: want 1 to 3 sizes, such as 64,64", what, s)
	}
	var out []uint32
	for _, x := range f {
		v, err := strconv.ParseUint(strings.TrimSpace(x), 10, 32)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("--%s %q: %q is not a positive size", what, s, x)
		}
		out = append(out, uint32(v))
	}
	return out, nil
}

var scalarKinds = map[string]bool{"u8": true, "s8": true, "u16": true, "s16": true, "u32": true, "s32": true, "u64": true, "s64": true, "f32": true, "f64": true}

// buildQuickSpec makes a spec from a quick launch's flags. Paths stay as
// given (relative to the current folder).
func buildQuickSpec(module, kernel, grid, block string, dyn uint64, args []string, outputs string) (*spec.Spec, error) {
	if kernel == "" {
		return nil, errors.New("a quick launch needs --kernel (a name, a C++ signature or a unique part of one)")
	}
	if grid == "" || block == "" {
		return nil, errors.New("a quick launch needs --grid and --block")
	}
	sp := &spec.Spec{Module: module, Kernel: kernel, DynamicSharedBytes: dyn, Dir: "."}
	var err error
	if sp.Grid, err = parseDims("grid", grid); err != nil {
		return nil, err
	}
	if sp.Block, err = parseDims("block", block); err != nil {
		return nil, err
	}
	sp.Args = []spec.Arg{}
	initialised := map[string]bool{}
	for i, a := range args {
		buf, arg, err := parseQuickArg(i, a)
		if err != nil {
			return nil, fmt.Errorf("--arg %s: %w", a, err)
		}
		if buf != nil {
			for _, b := range sp.Buffers {
				if b.Name == buf.Name {
					return nil, fmt.Errorf("--arg %s: buffer %s is given twice", a, buf.Name)
				}
			}
			sp.Buffers = append(sp.Buffers, *buf)
			initialised[buf.Name] = buf.File != "" || buf.Fill != nil
		}
		sp.Args = append(sp.Args, arg)
	}
	if outputs != "" {
		for _, o := range strings.Split(outputs, ",") {
			sp.Outputs = append(sp.Outputs, strings.TrimSpace(o))
		}
	} else {
		// The buffers the kernel is given empty are what it produces;
		// when every buffer has contents, all of them.
		for _, b := range sp.Buffers {
			if !initialised[b.Name] {
				sp.Outputs = append(sp.Outputs, b.Name)
			}
		}
		if len(sp.Outputs) == 0 {
			for _, b := range sp.Buffers {
				sp.Outputs = append(sp.Outputs, b.Name)
			}
		}
	}
	// The checks a spec file gets.
	data, err := json.Marshal(sp)
	if err != nil {
		return nil, err
	}
	checked, err := spec.Parse(data, ".")
	if err != nil {
		return nil, err
	}
	checked.Quick = true
	return checked, nil
}

// parseQuickArg reads argument i: a buffer (and the argument naming it) or
// a scalar.
func parseQuickArg(i int, s string) (*spec.Buffer, spec.Arg, error) {
	name, rest, named := strings.Cut(s, "=")
	if !named {
		name, rest = "", s
	}
	if named && name == "" {
		return nil, spec.Arg{}, errors.New("empty name before '='")
	}
	// NAME=FILE.npy
	if spec.IsNpy(rest) && !strings.Contains(rest, "[") {
		if name == "" {
			return nil, spec.Arg{}, errors.New("a buffer needs a name: NAME=FILE.npy")
		}
		h, err := readNpyHeader(rest)
		if err != nil {
			return nil, spec.Arg{}, err
		}
		t := npy.TypeOf(h.Descr)
		if t == "" {
			return nil, spec.Arg{}, fmt.Errorf("%s holds %s, which no buffer type matches", rest, npy.Describe(h.Descr))
		}
		return &spec.Buffer{Name: name, Type: t, Count: h.Count(), File: rest}, spec.Arg{Kind: "buffer", Name: name}, nil
	}
	head, init, hasInit := strings.Cut(rest, ":")
	// A buffer: TYPE[COUNT]...
	if open := strings.IndexByte(head, '['); open >= 0 {
		if !strings.HasSuffix(head, "]") {
			return nil, spec.Arg{}, errors.New("want TYPE[COUNT], such as f32[1024]")
		}
		if name == "" {
			return nil, spec.Arg{}, fmt.Errorf("a buffer needs a name: NAME=%s", rest)
		}
		typ, count := head[:open], head[open+1:len(head)-1]
		if compare.ElemSize(typ) == 0 {
			return nil, spec.Arg{}, fmt.Errorf("unknown type %q (want u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64)", typ)
		}
		b := &spec.Buffer{Name: name, Type: typ}
		if count != "" {
			n, err := strconv.ParseUint(count, 10, 64)
			if err != nil || n == 0 {
				return nil, spec.Arg{}, fmt.Errorf("count %q is not a positive number", count)
			}
			b.Count = n
		}
		if hasInit {
			if err := quickInit(b, init, uint64(i)+1); err != nil {
				return nil, spec.Arg{}, err
			}
		}
		if b.Count == 0 {
			return nil, spec.Arg{}, fmt.Errorf("%s[] needs a file to take its count from", typ)
		}
		return b, spec.Arg{Kind: "buffer", Name: name}, nil
	}
	// A scalar: TYPE:VALUE.
	if !hasInit || !scalarKinds[head] {
		return nil, spec.Arg{}, errors.New("want NAME=TYPE[COUNT][:INIT], NAME=FILE.npy or [NAME=]TYPE:VALUE (see ptxrun run -h)")
	}
	raw, err := json.Marshal(map[string]json.RawMessage{head: scalarJSON(init)})
	if err != nil {
		return nil, spec.Arg{}, err
	}
	var a spec.Arg
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, spec.Arg{}, err
	}
	if _, err := spec.ArgBytes(&a); err != nil {
		return nil, spec.Arg{}, err
	}
	return nil, a, nil
}

// scalarJSON is a scalar's value as JSON: a number as is, anything else
// (hex bits, nan, inf) as a string.
func scalarJSON(v string) json.RawMessage {
	if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(strings.ToLower(v), "xni") {
		return json.RawMessage(v)
	}
	b, _ := json.Marshal(v)
	return b
}

// quickInit sets a buffer's initial contents from the text after ':'.
func quickInit(b *spec.Buffer, init string, seed uint64) error {
	fn, params := init, ""
	if open := strings.IndexByte(init, '('); open >= 0 && strings.HasSuffix(init, ")") {
		fn, params = init[:open], init[open+1:len(init)-1]
	}
	var ps []json.Number
	if params != "" {
		for _, p := range strings.Split(params, ",") {
			p = strings.TrimSpace(p)
			if _, err := strconv.ParseFloat(p, 64); err != nil {
				if _, ok := new(big.Int).SetString(p, 10); !ok {
					return fmt.Errorf("%q is not a number", p)
				}
			}
			ps = append(ps, json.Number(p))
		}
	}
	float := b.Type == "f16" || b.Type == "f32" || b.Type == "f64"
	switch fn {
	case "rand":
		f := &spec.Fill{Kind: "rand", Seed: json.Number(strconv.FormatUint(seed, 10))}
		switch len(ps) {
		case 0:
			if float {
				f.Lo, f.Hi = "0", "1"
			}
		case 2, 3:
			f.Lo, f.Hi = ps[0], ps[1]
			if len(ps) == 3 {
				f.Seed = ps[2]
			}
		default:
			return errors.New("rand takes (LO,HI) or (LO,HI,SEED)")
		}
		b.Fill = f
	case "iota":
		f := &spec.Fill{Kind: "iota"}
		if len(ps) > 2 {
			return errors.New("iota takes (START) or (START,STEP)")
		}
		if len(ps) > 0 {
			f.Start = ps[0]
		}
		if len(ps) > 1 {
			f.Step = ps[1]
		}
		b.Fill = f
	default:
		if params != "" {
			return fmt.Errorf("unknown contents %q (want rand, iota, a number or a file)", fn)
		}
		if _, err := strconv.ParseFloat(init, 64); err == nil {
			b.Fill = &spec.Fill{Kind: "const", Value: json.Number(init)}
			return nil
		}
		// A file.
		st, err := os.Stat(init)
		if err != nil {
			return fmt.Errorf("contents %q: not rand, iota, a number or a file: %w", init, err)
		}
		b.File = init
		if b.Count == 0 {
			if spec.IsNpy(init) {
				h, err := readNpyHeader(init)
				if err != nil {
					return err
				}
				b.Count = h.Count()
			} else {
				es := uint64(compare.ElemSize(b.Type))
				if uint64(st.Size())%es != 0 {
					return fmt.Errorf("%s has %d bytes, not a whole number of %s", init, st.Size(), b.Type)
				}
				b.Count = uint64(st.Size()) / es
			}
		}
	}
	return nil
}

func readNpyHeader(path string) (*npy.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := f.Read(head)
	h, err := npy.Parse(head[:n])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// saveSpec writes sp as a spec file at path, its file names made relative
// to the spec's folder.
func saveSpec(sp *spec.Spec, path string) error {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	rel := func(p string) (string, error) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		r, err := filepath.Rel(dir, abs)
		if err != nil {
			return abs, nil
		}
		return filepath.ToSlash(r), nil
	}
	out := *sp
	if out.Module, err = rel(sp.Module); err != nil {
		return err
	}
	out.Buffers = append([]spec.Buffer(nil), sp.Buffers...)
	for i := range out.Buffers {
		if out.Buffers[i].File != "" {
			if out.Buffers[i].File, err = rel(out.Buffers[i].File); err != nil {
				return err
			}
		}
	}
	data, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
