package spec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// Fill says how a buffer's contents are generated instead of read from a
// file (docs/launch-spec.md, "fill"). The numbers stay as written in the
// JSON: whether they are integers, and values beyond 64 bits, matter.
//
//	{"kind": "rand", "seed": 7, "lo": -1, "hi": 1}
//	{"kind": "iota", "start": 0, "step": 3}
//	{"kind": "const", "value": 0.5}
//
// The Python runner that records the GPU's outputs
// (testdata/nvcc/gen/runspec.py, fill_array) generates the same bytes.
type Fill struct {
	Kind  string      `json:"kind"`
	Seed  json.Number `json:"seed,omitempty"`
	Lo    json.Number `json:"lo,omitempty"`
	Hi    json.Number `json:"hi,omitempty"`
	Start json.Number `json:"start,omitempty"`
	Step  json.Number `json:"step,omitempty"`
	Value json.Number `json:"value,omitempty"`
}

// splitmix64 constants.
const (
	smGamma = 0x9E3779B97F4A7C15
	smM1    = 0xBF58476D1CE4E5B9
	smM2    = 0x94D049BB133111EB
)

// SplitMix64 is element i of the rand fill with this seed:
//
//	s = seed + (i+1)·0x9E3779B97F4A7C15
//	z = (s ^ (s >> 30)) · 0xBF58476D1CE4E5B9
//	z = (z ^ (z >> 27)) · 0x94D049BB133111EB
//	z ^ (z >> 31)
//
// all modulo 2^64.
func SplitMix64(seed, i uint64) uint64 {
	s := seed + (i+1)*smGamma
	z := (s ^ s>>30) * smM1
	z = (z ^ z>>27) * smM2
	return z ^ z>>31
}

var (
	two64   = new(big.Int).Lsh(big.NewInt(1), 64)
	minus63 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))
)

// intRange is the range of an integer element type.
func intRange(t string) (lo, hi *big.Int, ok bool) {
	bits := map[string]uint{"u8": 8, "s8": 8, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64}[t]
	if bits == 0 {
		return nil, nil, false
	}
	if t[0] == 'u' {
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1)), true
	}
	h := new(big.Int).Lsh(big.NewInt(1), bits-1)
	return new(big.Int).Neg(h), h.Sub(h, big.NewInt(1)), true
}

func isFloatType(t string) bool { return t == "f16" || t == "f32" || t == "f64" }

// jsonInt parses a JSON number that must be an integer (no fraction, no
// exponent: 1.0 is not an integer here, as in the Python runner).
func jsonInt(n json.Number) (*big.Int, bool) {
	s := string(n)
	if s == "" || strings.ContainsAny(s, ".eE") {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok
}

func jsonFloat(n json.Number) (float64, bool) {
	if n == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		// Out of float64's range: ParseFloat returns ±Inf with an error,
		// as Python's float() would raise.
		return 0, false
	}
	return f, true
}

// check lists what is wrong with f for elements of type t (nil: fine).
func (f *Fill) check(t string) []string {
	switch f.Kind {
	case "rand", "iota", "const":
	default:
		return []string{fmt.Sprintf("kind %q is not one of rand iota const", f.Kind)}
	}
	_, _, isInt := intRange(t)
	isf := isFloatType(t)
	if !isInt && !isf {
		return []string{"not defined for type " + t}
	}
	var errs []string
	set := map[string]json.Number{"seed": f.Seed, "lo": f.Lo, "hi": f.Hi, "start": f.Start, "step": f.Step, "value": f.Value}
	allowed := map[string][]string{"rand": {"seed", "lo", "hi"}, "iota": {"start", "step"}, "const": {"value"}}[f.Kind]
	for _, k := range []string{"seed", "lo", "hi", "start", "step", "value"} {
		if set[k] != "" && !contains(allowed, k) {
			errs = append(errs, fmt.Sprintf("unknown field %q for kind %s", k, f.Kind))
		}
	}
	num := func(k string, n json.Number) {
		if isf {
			if _, ok := jsonFloat(n); !ok {
				errs = append(errs, fmt.Sprintf("%s %s is not a number", k, show(n)))
			}
		} else if _, ok := jsonInt(n); !ok {
			errs = append(errs, fmt.Sprintf("%s %s is not an integer", k, show(n)))
		}
	}
	switch f.Kind {
	case "rand":
		if s, ok := jsonInt(f.Seed); !ok || s.Sign() < 0 || s.Cmp(two64) >= 0 {
			errs = append(errs, fmt.Sprintf("seed %s is not an unsigned 64-bit integer", show(f.Seed)))
		}
		if isf {
			for _, k := range []string{"lo", "hi"} {
				if _, ok := jsonFloat(set[k]); !ok {
					errs = append(errs, fmt.Sprintf("%s %s: a float fill needs numbers lo and hi", k, show(set[k])))
				}
			}
			break
		}
		lo, hi, ok := f.intBounds(t)
		if !ok {
			errs = append(errs, fmt.Sprintf("lo/hi %s/%s: an integer fill needs integers", show(f.Lo), show(f.Hi)))
			break
		}
		if lo.Cmp(minus63) < 0 || lo.Cmp(hi) > 0 || hi.Cmp(two64) >= 0 || new(big.Int).Sub(hi, lo).Cmp(two64) >= 0 {
			errs = append(errs, fmt.Sprintf("lo/hi %s/%s: want -2^63 <= lo <= hi < 2^64", lo, hi))
		}
	case "iota":
		for _, k := range []string{"start", "step"} {
			if set[k] != "" {
				num(k, set[k])
			}
		}
	case "const":
		num("value", f.Value)
	}
	return errs
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func show(n json.Number) string {
	if n == "" {
		return "(missing)"
	}
	return string(n)
}

// intBounds returns lo and hi of an integer rand fill, defaulting to the
// type's range.
func (f *Fill) intBounds(t string) (*big.Int, *big.Int, bool) {
	lo, hi, _ := intRange(t)
	if f.Lo != "" {
		v, ok := jsonInt(f.Lo)
		if !ok {
			return nil, nil, false
		}
		lo = v
	}
	if f.Hi != "" {
		v, ok := jsonInt(f.Hi)
		if !ok {
			return nil, nil, false
		}
		hi = v
	}
	return lo, hi, true
}

// mod64 is v modulo 2^64 (non-negative, as Python's %).
func mod64(v *big.Int) uint64 { return new(big.Int).Mod(v, two64).Uint64() }

// Bytes generates n elements of type t as little-endian bytes.
func (f *Fill) Bytes(t string, n uint64) ([]byte, error) {
	if errs := f.check(t); len(errs) > 0 {
		return nil, fmt.Errorf("fill: %s", strings.Join(errs, "; "))
	}
	es := uint64(compare.ElemSize(t))
	if n > (1<<62)/es {
		return nil, fmt.Errorf("fill: %d elements are too many", n)
	}
	out := make([]byte, n*es)
	if isFloatType(t) {
		gen := f.floatGen()
		for i := uint64(0); i < n; i++ {
			putFloat(out[i*es:], t, gen(i))
		}
		return out, nil
	}
	gen := f.intGen(t)
	for i := uint64(0); i < n; i++ {
		memspace.PutUint(out[i*es:], es, gen(i))
	}
	return out, nil
}

// floatGen returns element i as a float64, before rounding to the type.
// Each operation is one IEEE double operation: the explicit conversions
// keep the compiler from fusing a multiply and an add.
func (f *Fill) floatGen() func(uint64) float64 {
	switch f.Kind {
	case "rand":
		seed := mod64(must(jsonInt(f.Seed)))
		lo, _ := jsonFloat(f.Lo)
		hi, _ := jsonFloat(f.Hi)
		w := hi - lo
		return func(i uint64) float64 {
			u := float64(SplitMix64(seed, i)>>11) * 0x1p-53 // exact: < 2^53 times a power of two
			return lo + float64(w*u)
		}
	case "iota":
		start, step := 0.0, 1.0
		if f.Start != "" {
			start, _ = jsonFloat(f.Start)
		}
		if f.Step != "" {
			step, _ = jsonFloat(f.Step)
		}
		return func(i uint64) float64 { return start + float64(float64(i)*step) }
	}
	v, _ := jsonFloat(f.Value)
	return func(uint64) float64 { return v }
}

// intGen returns element i modulo 2^64, before wrapping to the type.
func (f *Fill) intGen(t string) func(uint64) uint64 {
	switch f.Kind {
	case "rand":
		seed := mod64(must(jsonInt(f.Seed)))
		lo, hi, _ := f.intBounds(t)
		width := mod64(new(big.Int).Add(new(big.Int).Sub(hi, lo), big.NewInt(1)))
		base := mod64(lo)
		return func(i uint64) uint64 {
			z := SplitMix64(seed, i)
			if width != 0 {
				z %= width
			}
			return base + z
		}
	case "iota":
		start, step := uint64(0), uint64(1)
		if f.Start != "" {
			start = mod64(must(jsonInt(f.Start)))
		}
		if f.Step != "" {
			step = mod64(must(jsonInt(f.Step)))
		}
		return func(i uint64) uint64 { return i*step + start }
	}
	v := mod64(must(jsonInt(f.Value)))
	return func(uint64) uint64 { return v }
}

func must(v *big.Int, ok bool) *big.Int {
	if !ok {
		return new(big.Int) // unreachable after check
	}
	return v
}

func putFloat(b []byte, t string, v float64) {
	switch t {
	case "f16":
		binary.LittleEndian.PutUint16(b, fpu.F64ToF16(math.Float64bits(v), fpu.RN, false))
	case "f32":
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	default:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	}
}
