package main

// A stopgap until the launch-spec loader (vm/spec) reads the "fill"
// extension of FILL.md, which the perf and apps corpora use: the spec is
// rewritten into a temporary folder with every filled buffer generated into
// a file. Remove this file once spec.Load understands "fill".

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// expandFill returns the path of spec file p with its fills generated, or
// p itself when it has none; cleanup removes what it wrote.
func expandFill(p string) (string, func(), error) {
	none := func() {}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", none, err
	}
	if !bytes.Contains(data, []byte(`"fill"`)) {
		return p, none, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return "", none, err
	}
	dir, err := os.MkdirTemp("", "ptxvm-fill-")
	if err != nil {
		return "", none, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	src := filepath.Dir(p)
	abs := func(f string) string {
		if filepath.IsAbs(f) {
			return f
		}
		a, _ := filepath.Abs(filepath.Join(src, f))
		return a
	}
	if mod, ok := m["module"].(string); ok {
		m["module"] = abs(mod)
	}
	for _, key := range []string{"buffers", "symbols"} {
		list, _ := m[key].([]any)
		for i, x := range list {
			b, _ := x.(map[string]any)
			if b == nil {
				continue
			}
			if f, ok := b["file"].(string); ok {
				b["file"] = abs(f)
			}
			fill, ok := b["fill"].(map[string]any)
			if !ok {
				continue
			}
			typ, _ := b["type"].(string)
			n, err := b["count"].(json.Number).Int64()
			if err != nil {
				return "", cleanup, fmt.Errorf("%s: %s[%d]: count: %w", p, key, i, err)
			}
			raw, err := generate(typ, int(n), fill)
			if err != nil {
				return "", cleanup, fmt.Errorf("%s: %s[%d]: %w", p, key, i, err)
			}
			out := filepath.Join(dir, fmt.Sprintf("%s%d.bin", key, i))
			if err := os.WriteFile(out, raw, 0o644); err != nil {
				return "", cleanup, err
			}
			delete(b, "fill")
			b["file"] = out
		}
	}
	nd, err := json.Marshal(m)
	if err != nil {
		return "", cleanup, err
	}
	np := filepath.Join(dir, "spec.json")
	return np, cleanup, os.WriteFile(np, nd, 0o644)
}

func splitmix(seed, i uint64) uint64 {
	s := seed + (i+1)*0x9E3779B97F4A7C15
	z := (s ^ s>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

type elemType struct {
	size   int
	float  bool
	signed bool
}

var elemTypes = map[string]elemType{
	"u8": {1, false, false}, "s8": {1, false, true}, "u16": {2, false, false}, "s16": {2, false, true},
	"u32": {4, false, false}, "s32": {4, false, true}, "u64": {8, false, false}, "s64": {8, false, true},
	"f16": {2, true, false}, "f32": {4, true, false}, "f64": {8, true, false},
}

func num(m map[string]any, k string) (json.Number, bool) {
	v, ok := m[k].(json.Number)
	return v, ok
}

// asUint parses an integer JSON number as its two's-complement 64 bits.
func asUint(n json.Number) (uint64, error) {
	if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
		return u, nil
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return uint64(i), err
}

func generate(typ string, n int, fill map[string]any) ([]byte, error) {
	et, ok := elemTypes[typ]
	if !ok {
		return nil, fmt.Errorf("fill: type %q", typ)
	}
	out := make([]byte, n*et.size)
	put := func(i int, bits uint64) {
		switch et.size {
		case 1:
			out[i] = byte(bits)
		case 2:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(bits))
		case 4:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(bits))
		default:
			binary.LittleEndian.PutUint64(out[8*i:], bits)
		}
	}
	putFloat := func(i int, v float64) {
		switch typ {
		case "f16":
			put(i, uint64(f16bits(v)))
		case "f32":
			put(i, uint64(math.Float32bits(float32(v))))
		default:
			put(i, math.Float64bits(v))
		}
	}
	fnum := func(k string, def float64) float64 {
		if v, ok := num(fill, k); ok {
			f, _ := v.Float64()
			return f
		}
		return def
	}
	kind, _ := fill["kind"].(string)
	switch kind {
	case "rand":
		var seed uint64
		if v, ok := num(fill, "seed"); ok {
			seed, _ = asUint(v)
		}
		if et.float {
			lo, hi := fnum("lo", 0), fnum("hi", 1)
			for i := 0; i < n; i++ {
				u := float64(splitmix(seed, uint64(i))>>11) * (1.0 / (1 << 53))
				putFloat(i, lo+(hi-lo)*u)
			}
			return out, nil
		}
		bits := uint(8 * et.size)
		var lo, hi uint64
		if et.signed {
			lo, hi = ^uint64(0)<<(bits-1), 1<<(bits-1)-1
		} else {
			lo, hi = 0, ^uint64(0)>>(64-bits)
		}
		if v, ok := num(fill, "lo"); ok {
			lo, _ = asUint(v)
		}
		if v, ok := num(fill, "hi"); ok {
			hi, _ = asUint(v)
		}
		width := hi - lo + 1
		for i := 0; i < n; i++ {
			z := splitmix(seed, uint64(i))
			v := lo + z
			if width != 0 {
				v = lo + z%width
			}
			put(i, v)
		}
	case "iota":
		if et.float {
			start, step := fnum("start", 0), fnum("step", 1)
			for i := 0; i < n; i++ {
				putFloat(i, start+float64(i)*step)
			}
			return out, nil
		}
		var start, step uint64 = 0, 1
		if v, ok := num(fill, "start"); ok {
			start, _ = asUint(v)
		}
		if v, ok := num(fill, "step"); ok {
			step, _ = asUint(v)
		}
		for i := 0; i < n; i++ {
			put(i, start+uint64(i)*step)
		}
	case "const":
		if et.float {
			v := fnum("value", 0)
			for i := 0; i < n; i++ {
				putFloat(i, v)
			}
			return out, nil
		}
		var v uint64
		if x, ok := num(fill, "value"); ok {
			v, _ = asUint(x)
		}
		for i := 0; i < n; i++ {
			put(i, v)
		}
	default:
		return nil, fmt.Errorf("fill: kind %q", kind)
	}
	return out, nil
}

// f16bits rounds v to IEEE binary16, to nearest even.
func f16bits(v float64) uint16 {
	b := math.Float64bits(v)
	sign := uint16(b>>48) & 0x8000
	if math.IsNaN(v) {
		return sign | 0x7e00
	}
	a := math.Abs(v)
	if a >= 65520 {
		return sign | 0x7c00
	}
	if a < math.Ldexp(1, -25) {
		if a > math.Ldexp(1, -25) {
			return sign | 1
		}
		return sign
	}
	exp := math.Ilogb(a)
	if exp < -14 {
		// subnormal: units of 2^-24
		q := math.RoundToEven(a / math.Ldexp(1, -24))
		return sign | uint16(q)
	}
	m := a/math.Ldexp(1, exp) - 1 // [0,1)
	q := math.RoundToEven(m * 1024)
	e := exp + 15
	if q == 1024 {
		q = 0
		e++
	}
	if e >= 31 {
		return sign | 0x7c00
	}
	return sign | uint16(e)<<10 | uint16(q)
}
