package fpu

// TestGPUConformance runs the functions of this package directly on the
// real-GPU vectors of the PTX conformance suite (testdata/conformance,
// recorded on an NVIDIA H100 and an H200, sm_90, with identical results): every form of the families f32, f64,
// half, cvt_f2f, cvt_f2i, cvt_i2f and cvt_pack whose instruction maps onto
// this package, and the uncontended atom/red.add.f64 forms. Exact forms must match bit for bit; approximate forms must
// stay within the tolerance recorded with the form, and their largest ULP
// error is logged (go test -run GPUConformance -v).
//
// This tests the package alone, without the VM's lowering: a form that
// passes here and fails through ptxrun points at package vm.

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const confRoot = "../../../testdata/conformance"

type confOperand struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type confBuffer struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Count int    `json:"count"`
}

type confForm struct {
	ID        string             `json:"id"`
	Family    string             `json:"family"`
	PTX       string             `json:"ptx"`
	Inputs    []confOperand      `json:"inputs"`
	Outputs   []confOperand      `json:"outputs"`
	Buffers   []confBuffer       `json:"buffers"`
	Vectors   int                `json:"vectors"`
	Approx    bool               `json:"approx"`
	Tolerance map[string]float64 `json:"tolerance"`
	Spec      string             `json:"spec"`
	Status    string             `json:"status"`
	Kind      string             `json:"kind"`
}

func loadConfForms(t *testing.T) []confForm {
	data, err := os.ReadFile(filepath.Join(confRoot, "forms.json"))
	if err != nil {
		t.Skipf("conformance data not available: %v", err)
	}
	var doc struct {
		Forms []confForm `json:"forms"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Forms
}

func elemSize(ty string) int {
	switch ty {
	case "f64", "u64", "s64", "b64":
		return 8
	case "f32", "u32", "s32", "b32":
		return 4
	case "f16", "bf16", "u16", "s16", "b16":
		return 2
	case "u8", "s8", "b8":
		return 1
	}
	panic("element type " + ty)
}

// readBuf reads a buffer file as unsigned elements of the buffer's type.
func readBuf(path string, b confBuffer) ([]uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	n := elemSize(b.Type)
	if len(data) != n*b.Count {
		return nil, fmt.Errorf("%s: %d bytes, want %d", path, len(data), n*b.Count)
	}
	out := make([]uint64, b.Count)
	for i := range out {
		p := data[i*n:]
		switch n {
		case 8:
			out[i] = binary.LittleEndian.Uint64(p)
		case 4:
			out[i] = uint64(binary.LittleEndian.Uint32(p))
		case 2:
			out[i] = uint64(binary.LittleEndian.Uint16(p))
		case 1:
			out[i] = uint64(p[0])
		}
	}
	return out, nil
}

// confInstr is the parsed instruction of a form.
type confInstr struct {
	op    string
	mods  map[string]bool
	types []string // trailing type suffixes, destination first
	rnd   Round
	irnd  bool // .rni/.rzi/.rmi/.rpi
}

var ptxTypes = map[string]bool{
	"f16": true, "f16x2": true, "bf16": true, "bf16x2": true, "f32": true, "f64": true, "tf32": true,
	"s8": true, "s16": true, "s32": true, "s64": true, "u8": true, "u16": true, "u32": true, "u64": true,
	"b16": true, "b32": true, "e4m3x2": true, "e5m2x2": true,
}

func parseInstr(ptx string) confInstr {
	parts := strings.Split(strings.Fields(ptx)[0], ".")
	in := confInstr{op: parts[0], mods: map[string]bool{}}
	for _, p := range parts[1:] {
		switch p {
		case "rn", "rni":
			in.rnd = RN
		case "rz", "rzi":
			in.rnd = RZ
		case "rm", "rmi":
			in.rnd = RM
		case "rp", "rpi":
			in.rnd = RP
		case "rna":
			in.rnd = RNA
		}
		if len(p) == 3 && p[0] == 'r' && p[2] == 'i' {
			in.irnd = true
		}
		if ptxTypes[p] {
			in.types = append(in.types, p)
		} else {
			in.mods[p] = true
		}
	}
	if in.op == "cvt" && !in.mods["rn"] && !in.mods["rz"] && !in.mods["rm"] && !in.mods["rp"] &&
		!in.mods["rna"] && !in.irnd {
		in.rnd = RN
		if len(in.types) == 2 && !isFloatType(in.types[0]) {
			in.rnd = RZ // float → int defaults to .rzi
		}
	}
	return in
}

func isFloatType(t string) bool {
	switch t {
	case "f16", "bf16", "f32", "f64", "tf32", "f16x2", "bf16x2":
		return true
	}
	return false
}

func kindOf(t string) FloatKind {
	switch t {
	case "f16", "f16x2":
		return F16
	case "bf16", "bf16x2":
		return BF16
	case "f64":
		return F64
	case "tf32":
		return TF32
	}
	return F32
}

func intBits(t string) (int, bool) {
	switch t {
	case "s8":
		return 8, true
	case "u8":
		return 8, false
	case "s16":
		return 16, true
	case "u16":
		return 16, false
	case "s32":
		return 32, true
	case "u32":
		return 32, false
	case "s64":
		return 64, true
	case "u64":
		return 64, false
	}
	panic("int type " + t)
}

// scalarFn is one lane of a form: operand bits in (each the width of the
// instruction type), result bits out. ok=false: not this package's.
type scalarFn func(x []uint64) uint64

// formFunc maps a form onto this package. width is the bit width of one
// element of the (destination) type; x2 reports a packed .x2 form applied
// per half.
func formFunc(in confInstr) (fn scalarFn, ok bool) {
	ftz, sat := in.mods["ftz"], in.mods["sat"]
	r := in.rnd
	if len(in.types) == 0 {
		return nil, false
	}
	t := in.types[len(in.types)-1]
	switch in.op {
	case "atom", "red":
		// add.f64 on a per-thread address: the stored value (AtomAdd64).
		if t != "f64" || !in.mods["add"] {
			return nil, false
		}
		shared := in.mods["shared"]
		return func(x []uint64) uint64 { return AtomAdd64(x[0], x[1], shared) }, true
	case "cvt":
		return cvtFunc(in)
	case "testp":
		class := map[string]TestpClass{"finite": TestFinite, "infinite": TestInfinite, "number": TestNumber,
			"notanumber": TestNotANumber, "normal": TestNormal, "subnormal": TestSubnormal}
		var cl TestpClass
		found := false
		for m := range in.mods {
			if c, ok := class[m]; ok {
				cl, found = c, true
			}
		}
		if !found {
			return nil, false
		}
		b2u := func(b bool) uint64 {
			if b {
				return 1
			}
			return 0
		}
		if t == "f64" {
			return func(x []uint64) uint64 { return b2u(Testp64(x[0], cl)) }, true
		}
		return func(x []uint64) uint64 { return b2u(Testp32(uint32(x[0]), cl)) }, true
	}
	switch t {
	case "f32":
		return f32Func(in, r, ftz, sat)
	case "f64":
		return f64Func(in, r)
	case "f16", "f16x2":
		return f16Func(in, r, ftz, sat)
	case "bf16", "bf16x2":
		return bf16Func(in, r)
	}
	return nil, false
}

func f32Func(in confInstr, r Round, ftz, sat bool) (scalarFn, bool) {
	u := func(x uint64) uint32 { return uint32(x) }
	nan, xs := in.mods["NaN"], in.mods["xorsign"]
	var fn func(x []uint64) uint32
	switch in.op {
	case "add":
		fn = func(x []uint64) uint32 { return Add32(u(x[0]), u(x[1]), r, ftz, sat) }
	case "sub":
		fn = func(x []uint64) uint32 { return Sub32(u(x[0]), u(x[1]), r, ftz, sat) }
	case "mul":
		fn = func(x []uint64) uint32 { return Mul32(u(x[0]), u(x[1]), r, ftz, sat) }
	case "fma", "mad":
		fn = func(x []uint64) uint32 { return Fma32(u(x[0]), u(x[1]), u(x[2]), r, ftz, sat) }
	case "div":
		switch {
		case in.mods["approx"]:
			fn = func(x []uint64) uint32 { return DivApprox32(u(x[0]), u(x[1]), ftz) }
		case in.mods["full"]:
			fn = func(x []uint64) uint32 { return DivFull32(u(x[0]), u(x[1]), ftz) }
		default:
			fn = func(x []uint64) uint32 { return Div32(u(x[0]), u(x[1]), r, ftz) }
		}
	case "rcp":
		if in.mods["approx"] {
			fn = func(x []uint64) uint32 { return RcpApprox32(u(x[0]), ftz) }
		} else {
			fn = func(x []uint64) uint32 { return Rcp32(u(x[0]), r, ftz) }
		}
	case "sqrt":
		if in.mods["approx"] {
			fn = func(x []uint64) uint32 { return SqrtApprox32(u(x[0]), ftz) }
		} else {
			fn = func(x []uint64) uint32 { return Sqrt32(u(x[0]), r, ftz) }
		}
	case "rsqrt":
		fn = func(x []uint64) uint32 { return RsqrtApprox32(u(x[0]), ftz) }
	case "sin":
		fn = func(x []uint64) uint32 { return SinApprox32(u(x[0]), ftz) }
	case "cos":
		fn = func(x []uint64) uint32 { return CosApprox32(u(x[0]), ftz) }
	case "lg2":
		fn = func(x []uint64) uint32 { return Lg2Approx32(u(x[0]), ftz) }
	case "ex2":
		fn = func(x []uint64) uint32 { return Ex2Approx32(u(x[0]), ftz) }
	case "tanh":
		fn = func(x []uint64) uint32 { return TanhApprox32(u(x[0])) }
	case "min":
		fn = func(x []uint64) uint32 { return Min32(u(x[0]), u(x[1]), ftz, nan, xs) }
	case "max":
		fn = func(x []uint64) uint32 { return Max32(u(x[0]), u(x[1]), ftz, nan, xs) }
	case "abs":
		fn = func(x []uint64) uint32 { return Abs32(u(x[0]), ftz) }
	case "neg":
		fn = func(x []uint64) uint32 { return Neg32(u(x[0]), ftz) }
	case "copysign":
		fn = func(x []uint64) uint32 { return Copysign32(u(x[0]), u(x[1])) }
	default:
		return nil, false
	}
	return func(x []uint64) uint64 { return uint64(fn(x)) }, true
}

func f64Func(in confInstr, r Round) (scalarFn, bool) {
	switch in.op {
	case "add":
		return func(x []uint64) uint64 { return Add64(x[0], x[1], r) }, true
	case "sub":
		return func(x []uint64) uint64 { return Sub64(x[0], x[1], r) }, true
	case "mul":
		return func(x []uint64) uint64 { return Mul64(x[0], x[1], r) }, true
	case "fma", "mad":
		return func(x []uint64) uint64 { return Fma64(x[0], x[1], x[2], r) }, true
	case "div":
		return func(x []uint64) uint64 { return Div64(x[0], x[1], r) }, true
	case "rcp":
		if in.mods["approx"] {
			return func(x []uint64) uint64 { return RcpApproxFtz64(x[0]) }, true
		}
		return func(x []uint64) uint64 { return Rcp64(x[0], r) }, true
	case "sqrt":
		return func(x []uint64) uint64 { return Sqrt64(x[0], r) }, true
	case "rsqrt":
		if in.mods["ftz"] {
			return func(x []uint64) uint64 { return RsqrtApproxFtz64(x[0]) }, true
		}
		return func(x []uint64) uint64 { return RsqrtApprox64(x[0]) }, true
	case "min":
		return func(x []uint64) uint64 { return Min64(x[0], x[1]) }, true
	case "max":
		return func(x []uint64) uint64 { return Max64(x[0], x[1]) }, true
	case "abs":
		return func(x []uint64) uint64 { return Abs64(x[0]) }, true
	case "neg":
		return func(x []uint64) uint64 { return Neg64(x[0]) }, true
	case "copysign":
		return func(x []uint64) uint64 { return Copysign64(x[0], x[1]) }, true
	}
	return nil, false
}

func f16Func(in confInstr, r Round, ftz, sat bool) (scalarFn, bool) {
	u := func(x uint64) uint16 { return uint16(x) }
	nan, xs, relu := in.mods["NaN"], in.mods["xorsign"], in.mods["relu"]
	var fn func(x []uint64) uint16
	switch in.op {
	case "add":
		fn = func(x []uint64) uint16 { return Add16(u(x[0]), u(x[1]), r, ftz, sat) }
	case "sub":
		fn = func(x []uint64) uint16 { return Sub16(u(x[0]), u(x[1]), r, ftz, sat) }
	case "mul":
		fn = func(x []uint64) uint16 { return Mul16(u(x[0]), u(x[1]), r, ftz, sat) }
	case "fma":
		if in.mods["oob"] {
			fn = func(x []uint64) uint16 { return FmaOOB16(u(x[0]), u(x[1]), u(x[2]), relu) }
			break
		}
		fn = func(x []uint64) uint16 {
			v := Fma16(u(x[0]), u(x[1]), u(x[2]), r, ftz, sat)
			if relu {
				v = Relu16(v)
			}
			return v
		}
	case "min":
		fn = func(x []uint64) uint16 { return Min16(u(x[0]), u(x[1]), ftz, nan, xs) }
	case "max":
		fn = func(x []uint64) uint16 { return Max16(u(x[0]), u(x[1]), ftz, nan, xs) }
	case "abs":
		fn = func(x []uint64) uint16 { return Abs16(u(x[0]), ftz) }
	case "neg":
		fn = func(x []uint64) uint16 { return Neg16(u(x[0]), ftz) }
	case "ex2":
		fn = func(x []uint64) uint16 { return Ex2Approx16(u(x[0])) }
	case "tanh":
		fn = func(x []uint64) uint16 { return TanhApprox16(u(x[0])) }
	default:
		return nil, false
	}
	return func(x []uint64) uint64 { return uint64(fn(x)) }, true
}

func bf16Func(in confInstr, r Round) (scalarFn, bool) {
	u := func(x uint64) uint16 { return uint16(x) }
	nan, xs, relu := in.mods["NaN"], in.mods["xorsign"], in.mods["relu"]
	var fn func(x []uint64) uint16
	switch in.op {
	case "add":
		fn = func(x []uint64) uint16 { return AddBF16(u(x[0]), u(x[1]), r) }
	case "sub":
		fn = func(x []uint64) uint16 { return SubBF16(u(x[0]), u(x[1]), r) }
	case "mul":
		fn = func(x []uint64) uint16 { return MulBF16(u(x[0]), u(x[1]), r) }
	case "fma":
		if in.mods["oob"] {
			fn = func(x []uint64) uint16 { return FmaOOBBF16(u(x[0]), u(x[1]), u(x[2]), relu) }
			break
		}
		fn = func(x []uint64) uint16 {
			v := FmaBF16(u(x[0]), u(x[1]), u(x[2]), r)
			if relu {
				v = ReluBF16(v)
			}
			return v
		}
	case "min":
		fn = func(x []uint64) uint16 { return MinBF16(u(x[0]), u(x[1]), nan, xs) }
	case "max":
		fn = func(x []uint64) uint16 { return MaxBF16(u(x[0]), u(x[1]), nan, xs) }
	case "abs":
		fn = func(x []uint64) uint16 { return AbsBF16(u(x[0])) }
	case "neg":
		fn = func(x []uint64) uint16 { return NegBF16(u(x[0])) }
	case "ex2":
		fn = func(x []uint64) uint16 { return Ex2ApproxBF16(u(x[0])) }
	case "tanh":
		fn = func(x []uint64) uint16 { return TanhApproxBF16(u(x[0])) }
	default:
		return nil, false
	}
	return func(x []uint64) uint64 { return uint64(fn(x)) }, true
}

func cvtFunc(in confInstr) (scalarFn, bool) {
	if in.mods["pack"] || len(in.types) != 2 {
		return nil, false
	}
	dt, st := in.types[0], in.types[1]
	r, ftz := in.rnd, in.mods["ftz"]
	var fl CvtFlags
	if ftz {
		fl |= CvtFtz
	}
	if in.mods["sat"] {
		fl |= CvtSat
	}
	if in.mods["relu"] {
		fl |= CvtRelu
	}
	if in.mods["satfinite"] {
		fl |= CvtSatFinite
	}
	switch {
	case dt == "e4m3x2" || dt == "e5m2x2":
		k := E4M3
		if dt == "e5m2x2" {
			k = E5M2
		}
		sk := kindOf(st)
		if st == "f16x2" {
			// d.hi = cvt(a.hi), d.lo = cvt(a.lo)
			return func(x []uint64) uint64 {
				hi := Convert(x[0]>>16&0xffff, sk, k, r, fl)
				lo := Convert(x[0]&0xffff, sk, k, r, fl)
				return hi<<8 | lo
			}, true
		}
		return func(x []uint64) uint64 {
			return Convert(x[0], sk, k, r, fl)<<8 | Convert(x[1], sk, k, r, fl)
		}, true
	case st == "e4m3x2" || st == "e5m2x2":
		k := E4M3
		if st == "e5m2x2" {
			k = E5M2
		}
		return func(x []uint64) uint64 {
			hi := Convert(x[0]>>8&0xff, k, F16, r, fl)
			lo := Convert(x[0]&0xff, k, F16, r, fl)
			return hi<<16 | lo
		}, true
	case dt == "f16x2" || dt == "bf16x2":
		k := kindOf(dt)
		return func(x []uint64) uint64 {
			return Convert(x[0], F32, k, r, fl)<<16 | Convert(x[1], F32, k, r, fl)
		}, true
	case isFloatType(dt) && isFloatType(st):
		sk, dk := kindOf(st), kindOf(dt)
		if in.irnd {
			return func(x []uint64) uint64 {
				return RoundIntegral(x[0], sk, r, ftz, in.mods["sat"])
			}, true
		}
		return func(x []uint64) uint64 { return Convert(x[0], sk, dk, r, fl) }, true
	case isFloatType(dt):
		n, signed := intBits(st)
		k := kindOf(dt)
		return func(x []uint64) uint64 {
			v := IntToFloat(x[0], n, signed, k, r)
			if in.mods["sat"] {
				switch k {
				case F64:
					v = Sat64(v)
				case F32:
					v = uint64(Sat32(uint32(v)))
				case F16:
					v = uint64(Sat16(uint16(v)))
				}
			}
			return v
		}, true
	case isFloatType(st):
		n, signed := intBits(dt)
		k := kindOf(st)
		return func(x []uint64) uint64 {
			v := FloatToInt(x[0], k, n, signed, r, ftz)
			if signed && n < 64 && v>>(n-1)&1 != 0 {
				v |= ^uint64(0) << n // sign-extend into the register
			}
			return v
		}, true
	}
	return nil, false
}

// ulpKey maps float bits of width w to an integer line where adjacent
// floats differ by one (negative values mirrored).
func ulpKey(v uint64, w int) int64 {
	s := uint64(1) << (w - 1)
	if v&s != 0 {
		return -int64(v &^ s)
	}
	return int64(v)
}

func isNaNW(v uint64, k FloatKind) bool { return IsNaN(v, k) }

type confResult struct {
	id      string
	n, bad  int
	exact   int // vectors equal bit for bit
	maxULP  int64
	maxAbs  float64
	first   []string
	approx  bool
	tolULP  float64
	tolAbs  float64
	skipped string
}

var confFamilies = map[string]bool{
	"f32": true, "f64": true, "half": true, "cvt_f2f": true, "cvt_f2i": true, "cvt_i2f": true, "cvt_pack": true,
}

func runConfForm(f confForm) confResult {
	res := confResult{id: f.ID, approx: f.Approx, tolULP: f.Tolerance["ulp"], tolAbs: f.Tolerance["abs"]}
	in := parseInstr(f.PTX)
	fn, ok := formFunc(in)
	if !ok {
		res.skipped = "not an fpu form"
		return res
	}
	dir := filepath.Join(confRoot, filepath.Dir(f.Spec))
	bufs := map[string][]uint64{}
	btype := map[string]confBuffer{}
	for _, b := range f.Buffers {
		btype[b.Name] = b
	}
	for _, op := range f.Inputs {
		v, err := readBuf(filepath.Join(dir, "inputs", op.Name+".bin"), btype[op.Name])
		if err != nil {
			res.skipped = err.Error()
			return res
		}
		bufs[op.Name] = v
	}
	out := f.Outputs[0]
	if in.op == "atom" || in.op == "red" {
		for _, o := range f.Outputs {
			if o.Name == "m" {
				out = o // the memory word after the operation
			}
		}
	}
	want, err := readBuf(filepath.Join(dir, "expected", out.Name+".bin"), btype[out.Name])
	if err != nil {
		res.skipped = err.Error()
		return res
	}
	wantKey := "expected/" + out.Name
	bufs[wantKey] = want
	btype[wantKey] = btype[out.Name]
	// Element layout: an operand whose buffer holds two elements per
	// vector (.x2 types) is the 32-bit register lo | hi<<16.
	get := func(name string, k int) uint64 {
		b := btype[name]
		v := bufs[name]
		if b.Count == 2*f.Vectors {
			return v[2*k] | v[2*k+1]<<(8*elemSize(b.Type))
		}
		return v[k]
	}
	x2 := strings.HasSuffix(in.types[len(in.types)-1], "x2") && in.op != "cvt"
	ob := btype[out.Name]
	ow := 8 * elemSize(ob.Type)
	if ob.Count == 2*f.Vectors {
		ow *= 2
	}
	omask := ^uint64(0) >> (64 - ow)
	// Float kind of the output elements, for ULP and NaN comparisons.
	var ok2 bool
	var outKind FloatKind
	switch out.Type {
	case "f16", "f16x2":
		outKind, ok2 = F16, true
	case "bf16", "bf16x2":
		outKind, ok2 = BF16, true
	case "f32":
		outKind, ok2 = F32, true
	case "f64":
		outKind, ok2 = F64, true
	}
	for k := 0; k < f.Vectors; k++ {
		args := make([]uint64, len(f.Inputs))
		for j, op := range f.Inputs {
			args[j] = get(op.Name, k)
		}
		var got uint64
		if x2 {
			lo := make([]uint64, len(args))
			hi := make([]uint64, len(args))
			for j, a := range args {
				lo[j], hi[j] = a&0xffff, a>>16&0xffff
			}
			got = fn(lo)&0xffff | (fn(hi)&0xffff)<<16
		} else {
			got = fn(args)
		}
		got &= omask
		exp := get(wantKey, k) & omask
		res.n++
		if got == exp {
			res.exact++
			continue
		}
		// Compare per element (two for packed outputs).
		bad := false
		ew := ow
		ne := 1
		if ob.Count == 2*f.Vectors {
			ew, ne = ow/2, 2
		}
		for e := 0; e < ne; e++ {
			g := got >> (e * ew) & (^uint64(0) >> (64 - ew))
			w := exp >> (e * ew) & (^uint64(0) >> (64 - ew))
			if g == w {
				continue
			}
			if !f.Approx || !ok2 {
				bad = true
				continue
			}
			if isNaNW(g, outKind) || isNaNW(w, outKind) {
				bad = true
				continue
			}
			u := ulpKey(g, ew) - ulpKey(w, ew)
			if u < 0 {
				u = -u
			}
			if u > res.maxULP {
				res.maxULP = u
			}
			ad := math.Abs(ToFloat64(g, outKind) - ToFloat64(w, outKind))
			if ad > res.maxAbs {
				res.maxAbs = ad
			}
			okULP := res.tolULP > 0 && float64(u) <= res.tolULP
			okAbs := res.tolAbs > 0 && ad <= res.tolAbs
			if !okULP && !okAbs {
				bad = true
			}
		}
		if bad {
			res.bad++
			if len(res.first) < 6 {
				s := make([]string, len(args))
				for j, a := range args {
					s[j] = fmt.Sprintf("%#x", a)
				}
				res.first = append(res.first, fmt.Sprintf("[%d] (%s) got %#x want %#x",
					k, strings.Join(s, ", "), got, exp))
			}
		}
	}
	return res
}

func TestGPUConformance(t *testing.T) {
	forms := loadConfForms(t)
	only := os.Getenv("FPU_CONF_ONLY") // optional substring filter
	var results []confResult
	for _, f := range forms {
		atomF64 := f.Family == "atom" && strings.HasSuffix(f.Kind, "_own") && strings.Contains(f.PTX, ".add.f64")
		if !(confFamilies[f.Family] || atomF64) || f.Status != "ok" || (only != "" && !strings.Contains(f.ID, only)) {
			continue
		}
		results = append(results, runConfForm(f))
	}
	sort.Slice(results, func(i, j int) bool { return results[i].id < results[j].id })
	pass, skip := 0, 0
	for _, r := range results {
		switch {
		case r.skipped != "":
			skip++
			t.Logf("skip %s: %s", r.id, r.skipped)
		case r.bad > 0:
			t.Errorf("%s: %d of %d vectors differ\n\t%s", r.id, r.bad, r.n, strings.Join(r.first, "\n\t"))
		default:
			pass++
		}
		if r.approx && r.skipped == "" {
			t.Logf("approx %s: %d of %d bit-exact, max %d ulp, max abs error %.3g (tolerance ulp %g abs %g)",
				r.id, r.exact, r.n, r.maxULP, r.maxAbs, r.tolULP, r.tolAbs)
		}
	}
	t.Logf("%d forms: %d pass, %d skipped, %d fail", len(results), pass, skip, len(results)-pass-skip)
}
