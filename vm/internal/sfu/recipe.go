package sfu

import (
	"fmt"
	"math"
	"strconv"
)

// This file regenerates a dataset's inputs from the recipe in its manifest
// entry, bit for bit as testdata/sfu/gen/sfuspec.py does (segment_values).

// splitmix64 is element k of the splitmix64 stream seed: mix(seed+(k+1)γ).
func splitmix64(seed, k uint64) uint64 {
	z := seed + (k+1)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// segment is one piece of a dataset's input recipe.
type segment struct {
	Kind   string   `json:"kind"`
	Count  int      `json:"count"`
	Start  uint64   `json:"start"`
	Step   *uint64  `json:"step"`
	J0     uint64   `json:"j0"`
	Shift  int      `json:"shift"`
	Sign   int      `json:"sign"`
	Seed   uint64   `json:"seed"`
	Mode   string   `json:"mode"`
	ELo    int      `json:"elo"`
	EHi    int      `json:"ehi"`
	Signs  string   `json:"signs"` // random exp mode: "pos", "neg" or "both" (default)
	A      string   `json:"a"`
	B      string   `json:"b"`
	Values []string `json:"values"`
	Lo     uint64   `json:"lo"`
	LoSeed *uint64  `json:"lo_seed"`

	vals []uint64 // parsed Values
	a, b float64  // parsed A, B
}

func (s *segment) step() uint64 {
	if s.Step == nil {
		return 1
	}
	return *s.Step
}

// prepare parses the string fields once.
func (s *segment) prepare() error {
	switch s.Kind {
	case "list":
		s.vals = make([]uint64, len(s.Values))
		for i, v := range s.Values {
			u, err := strconv.ParseUint(v, 0, 64)
			if err != nil {
				return fmt.Errorf("list value %q: %v", v, err)
			}
			s.vals[i] = u
		}
		if s.Count != len(s.vals) {
			return fmt.Errorf("list: count %d, %d values", s.Count, len(s.vals))
		}
	case "random":
		if s.Mode == "uniform" {
			a, err1 := strconv.ParseUint(s.A, 0, 32)
			b, err2 := strconv.ParseUint(s.B, 0, 32)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("uniform bounds %q %q", s.A, s.B)
			}
			s.a, s.b = f32(uint32(a)), f32(uint32(b))
		}
	case "range", "grid", "sincos", "hirange":
	default:
		return fmt.Errorf("unknown segment kind %q", s.Kind)
	}
	return nil
}

// at returns input i (0 <= i < Count) of the segment; width is 32 or 64.
func (s *segment) at(i uint64, width int) uint64 {
	mask := uint64(math.MaxUint64)
	if width == 32 {
		mask = math.MaxUint32
	}
	switch s.Kind {
	case "range":
		return (s.Start + i*s.step()) & mask
	case "grid":
		j := s.J0 + i*s.step()
		v := float64(j) * math.Ldexp(1, s.Shift)
		if width == 32 {
			b := uint64(math.Float32bits(float32(v)))
			if s.Sign != 0 {
				b |= 1 << 31
			}
			return b
		}
		b := math.Float64bits(v)
		if s.Sign != 0 {
			b |= 1 << 63
		}
		return b
	case "sincos":
		b := uint64(sincosX(s.J0+i*s.step(), s.Shift))
		if s.Sign != 0 {
			b |= 1 << 31
		}
		return b
	case "list":
		return s.vals[i] & mask
	case "hirange":
		hi := (s.Start + i*s.step()) & math.MaxUint32
		lo := s.Lo & math.MaxUint32
		if s.LoSeed != nil {
			lo = splitmix64(*s.LoSeed, i) & math.MaxUint32
		}
		return hi<<32 | lo
	case "random":
		a := splitmix64(s.Seed, 2*i)
		b := splitmix64(s.Seed, 2*i+1)
		switch s.Mode {
		case "bits":
			return a & mask
		case "exp":
			e := uint64(s.ELo) + b%uint64(s.EHi-s.ELo+1)
			var sg uint64
			switch s.Signs {
			case "both", "":
				sg = (b >> 32) & 1
			case "neg":
				sg = 1
			}
			if width == 32 {
				return sg<<31 | e<<23 | a&0x7FFFFF
			}
			return sg<<63 | e<<52 | a&(1<<52-1)
		case "uniform":
			w := float64(a>>40) * 0x1p-24
			prod := float64((s.b - s.a) * w)
			return uint64(math.Float32bits(float32(s.a + prod)))
		}
	}
	panic("sfu: bad segment " + s.Kind + "/" + s.Mode)
}

// sincosX is the smallest f32 x >= 0 with x*c >= j*2^shift (exact product),
// c = 1/2π as f32: the operand for which ptxas's reduction mul.rz(x, c)
// yields the smallest reachable t' >= j*2^shift.
func sincosX(j uint64, shift int) uint32 { return sincosXScaled(j, math.Ldexp(1, shift)) }

// sincosXScaled is sincosX with scale = 2^shift.
func sincosXScaled(j uint64, scale float64) uint32 {
	if j == 0 {
		return 0
	}
	c := f32(c2PiInv)
	t := float64(j) * scale
	x := math.Float32bits(float32(t / c))
	// At most three steps each way; a step that does not move x leaves
	// the rest idle, so the loops stop there.
	for k := 0; k < 3 && f32(x)*c < t; k++ {
		x++
	}
	for k := 0; k < 3 && x != 0 && f32(x-1)*c >= t; k++ {
		x--
	}
	return x
}

// inputs generates all inputs of a dataset (after its stride).
func (d *Dataset) inputs() []uint64 {
	width := d.width()
	out := make([]uint64, 0, d.N)
	var k uint64 // index over the un-strided concatenation
	stride := uint64(d.stride())
	for si := range d.Segments {
		s := &d.Segments[si]
		at := s.atFunc(width)
		if stride == 1 {
			for i := 0; i < s.Count; i++ {
				out = append(out, at(uint64(i)))
			}
			k += uint64(s.Count)
			continue
		}
		for i := 0; i < s.Count; i++ {
			if k%stride == 0 {
				out = append(out, at(uint64(i)))
			}
			k++
		}
	}
	return out
}

// inputFunc returns inputAt as a function, resolved once for a dataset of
// one segment at stride 1 (every table): a table evaluates it for every
// input it decodes and every lookup.
func (d *Dataset) inputFunc() func(i int) uint64 {
	if len(d.Segments) != 1 || d.stride() != 1 {
		return d.inputAt
	}
	at := d.Segments[0].atFunc(d.width())
	return func(i int) uint64 { return at(uint64(i)) }
}

// atFunc returns s.at for one width as a function, its kind and constants
// resolved once for the range, grid and sincos recipes (the others call
// s.at).
func (s *segment) atFunc(width int) func(i uint64) uint64 {
	mask := uint64(math.MaxUint64)
	if width == 32 {
		mask = math.MaxUint32
	}
	var sign32b uint64
	if s.Sign != 0 {
		sign32b = 1 << 31
	}
	step := s.step()
	switch {
	case s.Kind == "range":
		start := s.Start
		return func(i uint64) uint64 { return (start + i*step) & mask }
	case s.Kind == "grid" && width == 32:
		j0, scale := s.J0, math.Ldexp(1, s.Shift)
		return func(i uint64) uint64 {
			return uint64(math.Float32bits(float32(float64(j0+i*step)*scale))) | sign32b
		}
	case s.Kind == "sincos":
		j0, scale := s.J0, math.Ldexp(1, s.Shift)
		return func(i uint64) uint64 { return uint64(sincosXScaled(j0+i*step, scale)) | sign32b }
	}
	return func(i uint64) uint64 { return s.at(i, width) }
}

// inputAt returns input i of a dataset (after its stride).
func (d *Dataset) inputAt(i int) uint64 {
	k := i * d.stride()
	for si := range d.Segments {
		s := &d.Segments[si]
		if k < s.Count {
			return s.at(uint64(k), d.width())
		}
		k -= s.Count
	}
	panic(fmt.Sprintf("sfu: %s: input %d out of range", d.Name, i))
}
