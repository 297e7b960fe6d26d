package spec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// Fill generates a buffer's or symbol's contents from a rule, in place of a
// file (the perf corpus's large inputs; the same rules as the corpus runner,
// testdata/nvcc/gen/runspec.py fill_array):
//
//   - {"kind": "rand", "seed": S, "lo": a, "hi": b}: element i is
//     z = splitmix64(S, i) mapped to the type: integers lo + z mod
//     (hi − lo + 1) (lo and hi inclusive, default the type's range), floats
//     lo + (hi − lo)·(z >> 11)·2⁻⁵³;
//   - {"kind": "iota", "start": a, "step": d}: element i is a + i·d;
//   - {"kind": "const", "value": v}.
//
// Floats are computed in float64 and rounded to the type to nearest even;
// integers wrap to the type (two's complement). Fills are defined for the
// integer types, f16, f32 and f64.
type Fill struct {
	Kind  string       `json:"kind"`
	Seed  *json.Number `json:"seed,omitempty"`
	Lo    *json.Number `json:"lo,omitempty"`
	Hi    *json.Number `json:"hi,omitempty"`
	Start *json.Number `json:"start,omitempty"`
	Step  *json.Number `json:"step,omitempty"`
	Value *json.Number `json:"value,omitempty"`
}

var intRanges = map[string][2]*big.Int{}

func init() {
	for _, t := range []struct {
		name   string
		bits   uint
		signed bool
	}{{"u8", 8, false}, {"s8", 8, true}, {"u16", 16, false}, {"s16", 16, true},
		{"u32", 32, false}, {"s32", 32, true}, {"u64", 64, false}, {"s64", 64, true}} {
		lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), t.bits)
		if t.signed {
			lo.Neg(new(big.Int).Lsh(big.NewInt(1), t.bits-1))
			hi.Lsh(big.NewInt(1), t.bits-1)
		}
		hi.Sub(hi, big.NewInt(1))
		intRanges[t.name] = [2]*big.Int{lo, hi}
	}
}

func isFloatType(t string) bool { return t == "f16" || t == "f32" || t == "f64" }

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// bigInt parses an integer field.
func bigInt(n *json.Number, field string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(n.String(), 10)
	if !ok {
		return nil, fmt.Errorf("%s %s is not an integer", field, n)
	}
	return v, nil
}

func floatOf(n *json.Number, field string) (float64, error) {
	v, err := n.Float64()
	if err != nil {
		return 0, fmt.Errorf("%s %s is not a number", field, n)
	}
	return v, nil
}

// mod64 is v mod 2^64 as a uint64.
func mod64(v *big.Int) uint64 { return new(big.Int).Mod(v, two64).Uint64() }

// check validates the rule for element type t.
func (f *Fill) check(t string) error {
	_, isInt := intRanges[t]
	if !isInt && !isFloatType(t) {
		return fmt.Errorf("not defined for type %s", t)
	}
	allowed := map[string][]string{"rand": {"seed", "lo", "hi"}, "iota": {"start", "step"}, "const": {"value"}}
	fields, ok := allowed[f.Kind]
	if !ok {
		return fmt.Errorf("kind %q is not one of rand iota const", f.Kind)
	}
	present := map[string]*json.Number{"seed": f.Seed, "lo": f.Lo, "hi": f.Hi, "start": f.Start, "step": f.Step, "value": f.Value}
	for name, v := range present {
		if v == nil {
			continue
		}
		found := false
		for _, a := range fields {
			found = found || a == name
		}
		if !found {
			return fmt.Errorf("unknown field %q for kind %s", name, f.Kind)
		}
	}
	num := func(v *json.Number, field string, need bool) error {
		if v == nil {
			if need {
				return fmt.Errorf("%s is missing", field)
			}
			return nil
		}
		if isFloatType(t) {
			_, err := floatOf(v, field)
			return err
		}
		_, err := bigInt(v, field)
		return err
	}
	switch f.Kind {
	case "rand":
		if f.Seed == nil {
			return fmt.Errorf("seed is missing")
		}
		s, err := bigInt(f.Seed, "seed")
		if err != nil || s.Sign() < 0 || s.Cmp(two64) >= 0 {
			return fmt.Errorf("seed %s is not an unsigned 64-bit integer", f.Seed)
		}
		if err := num(f.Lo, "lo", isFloatType(t)); err != nil {
			return err
		}
		if err := num(f.Hi, "hi", isFloatType(t)); err != nil {
			return err
		}
		if !isFloatType(t) {
			lo, hi := f.intRange(t)
			if lo.Cmp(hi) > 0 || lo.Cmp(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))) < 0 || hi.Cmp(two64) >= 0 {
				return fmt.Errorf("lo/hi %s/%s: want -2^63 <= lo <= hi < 2^64", lo, hi)
			}
		}
	case "iota":
		if err := num(f.Start, "start", false); err != nil {
			return err
		}
		return num(f.Step, "step", false)
	case "const":
		return num(f.Value, "value", true)
	}
	return nil
}

func (f *Fill) intRange(t string) (lo, hi *big.Int) {
	r := intRanges[t]
	lo, hi = r[0], r[1]
	if f.Lo != nil {
		lo, _ = bigInt(f.Lo, "lo")
	}
	if f.Hi != nil {
		hi, _ = bigInt(f.Hi, "hi")
	}
	return lo, hi
}

func splitmix64(seed, i uint64) uint64 {
	s := (i+1)*0x9E3779B97F4A7C15 + seed
	z := (s ^ s>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// bytes generates n elements of type t, little-endian.
func (f *Fill) bytes(t string, n uint64) ([]byte, error) {
	if err := f.check(t); err != nil {
		return nil, err
	}
	size := uint64(sizeOf(t))
	out := make([]byte, n*size)
	put := func(i, bits uint64) {
		switch size {
		case 1:
			out[i] = byte(bits)
		case 2:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(bits))
		case 4:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(bits))
		case 8:
			binary.LittleEndian.PutUint64(out[8*i:], bits)
		}
	}
	if isFloatType(t) {
		enc := func(v float64) uint64 {
			switch t {
			case "f16":
				return uint64(fpu.F64ToF16(math.Float64bits(v), fpu.RN, false))
			case "f32":
				return uint64(math.Float32bits(float32(v)))
			}
			return math.Float64bits(v)
		}
		get := func(v *json.Number, def float64) float64 {
			if v == nil {
				return def
			}
			x, _ := floatOf(v, "")
			return x
		}
		switch f.Kind {
		case "rand":
			seed := mod64(mustBig(f.Seed))
			lo, hi := get(f.Lo, 0), get(f.Hi, 0)
			for i := uint64(0); i < n; i++ {
				u := float64(splitmix64(seed, i)>>11) * 0x1p-53
				put(i, enc(lo+(hi-lo)*u))
			}
		case "iota":
			start, step := get(f.Start, 0), get(f.Step, 1)
			for i := uint64(0); i < n; i++ {
				put(i, enc(start+float64(i)*step))
			}
		case "const":
			b := enc(get(f.Value, 0))
			for i := uint64(0); i < n; i++ {
				put(i, b)
			}
		}
		return out, nil
	}
	get := func(v *json.Number, def int64) uint64 {
		if v == nil {
			return uint64(def)
		}
		return mod64(mustBig(v))
	}
	switch f.Kind {
	case "rand":
		seed := mod64(mustBig(f.Seed))
		lo, hi := f.intRange(t)
		width := mod64(new(big.Int).Add(new(big.Int).Sub(hi, lo), big.NewInt(1)))
		base := mod64(lo)
		for i := uint64(0); i < n; i++ {
			z := splitmix64(seed, i)
			if width != 0 {
				z %= width
			}
			put(i, z+base)
		}
	case "iota":
		start, step := get(f.Start, 0), get(f.Step, 1)
		for i := uint64(0); i < n; i++ {
			put(i, i*step+start)
		}
	case "const":
		v := get(f.Value, 0)
		for i := uint64(0); i < n; i++ {
			put(i, v)
		}
	}
	return out, nil
}

func mustBig(n *json.Number) *big.Int {
	v, _ := bigInt(n, "")
	return v
}

func sizeOf(t string) int {
	switch t {
	case "u8", "s8":
		return 1
	case "u16", "s16", "f16", "bf16":
		return 2
	case "u32", "s32", "f32":
		return 4
	}
	return 8
}

// checkFill checks a buffer's or symbol's fill rule.
func checkFill(b Buffer) error {
	if b.Fill == nil {
		return nil
	}
	if b.File != "" {
		return fmt.Errorf("fill and file are exclusive")
	}
	if err := b.Fill.check(b.Type); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	return nil
}
