package compare

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// Tolerance says how far an output may be from the expected one. An
// element passes if it is bit-identical; or, when any criterion is set, if
// both values are NaN, or they are at most ULP units in the last place
// apart, or |got - want| <= max(Abs, Rel*|want|). Outputs and Default give
// per-output criteria instead of one for all.
type Tolerance struct {
	ULP uint64  `json:"ulp,omitempty"`
	Abs float64 `json:"abs,omitempty"`
	Rel float64 `json:"rel,omitempty"`
	// AnyNaN accepts a NaN for a NaN whatever their payloads (for results
	// where the GPU's choice among several NaN operands follows ptxas's
	// register order, which PTX does not fix).
	AnyNaN  bool                  `json:"any_nan,omitempty"`
	Outputs map[string]*Tolerance `json:"outputs,omitempty"`
	Default *Tolerance            `json:"default,omitempty"`
}

// For returns the criterion that applies to one output.
func (t *Tolerance) For(output string) Tolerance {
	if t == nil {
		return Tolerance{}
	}
	if o, ok := t.Outputs[output]; ok && o != nil {
		return *o
	}
	if t.Outputs != nil || t.Default != nil {
		if t.Default != nil {
			return *t.Default
		}
		return Tolerance{}
	}
	return Tolerance{ULP: t.ULP, Abs: t.Abs, Rel: t.Rel, AnyNaN: t.AnyNaN}
}

// Active reports whether any criterion is set.
func (t Tolerance) Active() bool { return t.ULP > 0 || t.Abs > 0 || t.Rel > 0 || t.AnyNaN }

// ElemSize is the size of one element of a buffer type (u8 s8 u16 s16 f16
// bf16 u32 s32 f32 u64 s64 f64); 0 if unknown.
func ElemSize(t string) int {
	switch t {
	case "u8", "s8":
		return 1
	case "u16", "s16", "f16", "bf16":
		return 2
	case "u32", "s32", "f32":
		return 4
	case "u64", "s64", "f64":
		return 8
	}
	return 0
}

// Diff is one differing element of an output buffer.
type Diff struct {
	Index int    `json:"index"`
	Got   string `json:"got"`
	Want  string `json:"want"`
	ULP   uint64 `json:"ulp,omitempty"` // for floating-point elements; 0 otherwise
}

// Comparison is the result of comparing one output buffer.
type Comparison struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Elements int     `json:"elements"`
	Differ   int     `json:"differ"`               // elements outside the tolerance
	MaxULP   uint64  `json:"max_ulp"`              // largest ULP distance seen among float elements (within tolerance or not)
	MaxAbs   float64 `json:"max_abs"`              // largest absolute difference seen among non-NaN float elements
	First    []Diff  `json:"first,omitempty"`      // the first few differences
	SizeErr  string  `json:"size_error,omitempty"` // the buffers have different sizes
	// Tolerated counts the elements that differ bit for bit but that the
	// tolerance allows; Allowed says by which of its criteria (the first
	// that held, in the order "nan", "ulp", "abs", "rel"), so that a pass
	// says what its tolerance hid.
	Tolerated int            `json:"tolerated,omitempty"`
	Allowed   map[string]int `json:"allowed,omitempty"`
	// Digest is set when the expected output was recorded as its SHA-256
	// (expected/<name>.sha256): no element can be shown, only whether the
	// digests match.
	Digest *DigestResult `json:"sha256,omitempty"`
}

// DigestResult compares an output with a recorded SHA-256 digest.
type DigestResult struct {
	Got  string `json:"got"`
	Want string `json:"want"`
}

// Allowance criteria, as keys of Comparison.Allowed.
const (
	AllowNaN = "nan" // both values NaN (payloads differ)
	AllowULP = "ulp"
	AllowAbs = "abs"
	AllowRel = "rel"
)

// OK reports whether the buffers match within the tolerance (or, for a
// recorded digest, exactly).
func (c *Comparison) OK() bool {
	return c.Differ == 0 && c.SizeErr == "" && (c.Digest == nil || c.Digest.Got == c.Digest.Want)
}

// maxDiffs is how many differences a Comparison keeps.
const maxDiffs = 8

// CompareBuffer compares got with want, elements of type typ, allowing tol.
// Float elements compare by ULP distance (all NaNs are equal to each other
// only when their bits are, unless the tolerance allows any NaN); integer
// elements must match exactly unless tol.Abs allows a difference.
func CompareBuffer(name, typ string, got, want []byte, tol Tolerance) *Comparison {
	c := &Comparison{Name: name, Type: typ}
	es := ElemSize(typ)
	if es == 0 {
		es = 1
		typ = "u8"
	}
	if len(got) != len(want) {
		c.SizeErr = fmt.Sprintf("got %d bytes, want %d", len(got), len(want))
		return c
	}
	c.Elements = len(want) / es
	for i := 0; i < c.Elements; i++ {
		g := readElem(got[i*es:], es)
		w := readElem(want[i*es:], es)
		if g == w {
			continue
		}
		ok := false
		var ulp uint64
		active := tol.Active()
		switch typ {
		case "f32", "f64", "f16", "bf16":
			ulp = ULPDistance(g, w, typ)
			if ulp > c.MaxULP && ulp != math.MaxUint64 {
				c.MaxULP = ulp
			}
			gv, wv := floatOf(g, typ), floatOf(w, typ)
			if d := math.Abs(gv - wv); d > c.MaxAbs && !math.IsNaN(d) && !math.IsInf(d, 0) {
				c.MaxAbs = d
			}
			if active {
				why := ""
				switch d := math.Abs(gv - wv); {
				case gv != gv && wv != wv:
					why = AllowNaN
				case ulp <= tol.ULP:
					why = AllowULP
				case d <= tol.Abs:
					why = AllowAbs
				case d <= tol.Rel*math.Abs(wv):
					why = AllowRel
				}
				ok = c.allow(why)
			}
		default:
			if active {
				gv, wv := intOf(g, typ), intOf(w, typ)
				why := ""
				switch d := math.Abs(gv - wv); {
				case d <= tol.Abs:
					why = AllowAbs
				case d <= tol.Rel*math.Abs(wv):
					why = AllowRel
				}
				ok = c.allow(why)
			}
		}
		if ok {
			continue
		}
		c.Differ++
		if len(c.First) < maxDiffs {
			c.First = append(c.First, Diff{Index: i, Got: FormatElem(g, typ), Want: FormatElem(w, typ), ULP: ulp})
		}
	}
	return c
}

// allow records an element the tolerance allows by criterion why ("":
// none did).
func (c *Comparison) allow(why string) bool {
	if why == "" {
		return false
	}
	c.Tolerated++
	if c.Allowed == nil {
		c.Allowed = map[string]int{}
	}
	c.Allowed[why]++
	return true
}

// Explain says in words what a tolerance allowed: "12 elements differ bit
// for bit, allowed by the tolerance: 12 NaN with another payload (any_nan)".
func (c *Comparison) Explain(tol Tolerance) string {
	if c.Tolerated == 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{AllowNaN, AllowULP, AllowAbs, AllowRel} {
		n := c.Allowed[k]
		if n == 0 {
			continue
		}
		switch k {
		case AllowNaN:
			parts = append(parts, fmt.Sprintf("%d NaN where the GPU gave another NaN", n))
		case AllowULP:
			parts = append(parts, fmt.Sprintf("%d within %d ulp (largest %d)", n, tol.ULP, c.MaxULP))
		case AllowAbs:
			parts = append(parts, fmt.Sprintf("%d within abs %g (largest difference %g)", n, tol.Abs, c.MaxAbs))
		case AllowRel:
			parts = append(parts, fmt.Sprintf("%d within rel %g", n, tol.Rel))
		}
	}
	return fmt.Sprintf("%d of %d elements differ bit for bit, allowed by the tolerance: %s", c.Tolerated, c.Elements, strings.Join(parts, ", "))
}

// CompareDigest compares output bytes, of which the caller computed the
// SHA-256 (got, lowercase hex) and the length, with a recorded
// expected/<name>.sha256 file's text: the hex digest, optionally a space
// and the byte count.
func CompareDigest(name, typ, got string, length uint64, recorded string) *Comparison {
	c := &Comparison{Name: name, Type: typ}
	if es := ElemSize(typ); es > 0 {
		c.Elements = int(length / uint64(es))
	}
	fields := strings.Fields(recorded)
	if len(fields) == 0 || len(fields) > 2 || len(fields[0]) != 64 {
		c.SizeErr = "the recorded .sha256 is not a SHA-256 digest (64 hex digits, optionally a space and the byte count)"
		return c
	}
	want := strings.ToLower(fields[0])
	if len(fields) == 2 {
		n, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			c.SizeErr = fmt.Sprintf("the recorded byte count %q is not a number", fields[1])
			return c
		}
		if n != length {
			c.SizeErr = fmt.Sprintf("got %d bytes, want %d", length, n)
			return c
		}
	}
	c.Digest = &DigestResult{Got: got, Want: want}
	return c
}

func readElem(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func floatOf(v uint64, typ string) float64 {
	switch typ {
	case "f32":
		return float64(math.Float32frombits(uint32(v)))
	case "f16":
		return float64(math.Float32frombits(fpu.F16ToF32(uint16(v))))
	case "bf16":
		return float64(math.Float32frombits(uint32(v) << 16))
	}
	return math.Float64frombits(v)
}

func intOf(v uint64, typ string) float64 {
	switch typ {
	case "s8":
		return float64(int8(v))
	case "s16":
		return float64(int16(v))
	case "s32":
		return float64(int32(v))
	case "s64":
		return float64(int64(v))
	}
	return float64(v)
}

// ULPDistance is the number of representable values between two floats of
// type typ (f32, f64, f16, bf16); two NaNs are 0 apart only when their bits
// match; a NaN and a number are infinitely far (MaxUint64).
func ULPDistance(a, b uint64, typ string) uint64 {
	if a == b {
		return 0
	}
	var bitsN uint
	switch typ {
	case "f32":
		bitsN = 32
	case "f16", "bf16":
		bitsN = 16
	default:
		bitsN = 64
	}
	if isNaNBits(a, typ) || isNaNBits(b, typ) {
		return math.MaxUint64
	}
	// Map sign-magnitude to a monotonic integer line.
	ord := func(x uint64) int64 {
		sign := uint64(1) << (bitsN - 1)
		if x&sign != 0 {
			return -int64(x &^ sign)
		}
		return int64(x)
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

func isNaNBits(v uint64, typ string) bool {
	switch typ {
	case "f32":
		return v&0x7f800000 == 0x7f800000 && v&0x7fffff != 0
	case "f16":
		return v&0x7c00 == 0x7c00 && v&0x3ff != 0
	case "bf16":
		return v&0x7f80 == 0x7f80 && v&0x7f != 0
	}
	return v&0x7ff0000000000000 == 0x7ff0000000000000 && v&0xfffffffffffff != 0
}

// FormatElem prints an element of type typ for a person: floats with their
// bits, integers in decimal.
func FormatElem(v uint64, typ string) string {
	switch typ {
	case "f32":
		return fmt.Sprintf("%s (0x%08x)", strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32), v)
	case "f64":
		return fmt.Sprintf("%s (0x%016x)", strconv.FormatFloat(math.Float64frombits(v), 'g', -1, 64), v)
	case "f16", "bf16":
		return fmt.Sprintf("%s (0x%04x)", strconv.FormatFloat(floatOf(v, typ), 'g', -1, 32), v)
	case "s8":
		return strconv.FormatInt(int64(int8(v)), 10)
	case "s16":
		return strconv.FormatInt(int64(int16(v)), 10)
	case "s32":
		return strconv.FormatInt(int64(int32(v)), 10)
	case "s64":
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}
