package spec

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/ptx/demangle"
)

// checkArgs checks the spec's arguments against the kernel's parameters:
// one argument per parameter; a buffer or texture where a 64-bit integer
// (a pointer, a handle) goes; a scalar of the parameter's kind (float or
// integer) and width, whose value the parameter's type can hold. Messages
// name the argument, the parameter's PTX type and, where the name is
// mangled, its C++ type.
func (s *Spec) checkArgs(kernel string, fn *ptx.Function) error {
	display := kernel
	name, ctypes, err := demangle.Signature(kernel)
	if err == nil {
		display = name
	}
	if len(ctypes) != len(fn.Params) {
		ctypes = nil
	}
	// A spec file's errors name it; a quick launch's speak of --arg.
	where := ""
	if s.Path != "" {
		where = s.Path + ": "
	}
	if len(s.Args) != len(fn.Params) {
		var ps []string
		for i, p := range fn.Params {
			ps = append(ps, paramDesc(p, ctypes, i))
		}
		gives := fmt.Sprintf("the spec gives %d arguments", len(s.Args))
		if s.Quick {
			gives = fmt.Sprintf("the launch gives %d --arg values", len(s.Args))
		}
		return fmt.Errorf("%skernel %s takes %d parameters, %s; the parameters are:\n  %s",
			where, display, len(fn.Params), gives, strings.Join(ps, "\n  "))
	}
	for i, a := range s.Args {
		ctype := ""
		if ctypes != nil {
			ctype = ctypes[i]
		}
		if err := checkArg(a, fn.Params[i], ctype, s.Quick); err != nil {
			arg := fmt.Sprintf("args[%d]", i)
			if s.Quick {
				arg = fmt.Sprintf("--arg %d", i+1)
			}
			return fmt.Errorf("%s%s (parameter %d of %s, %s): %s", where, arg, i, display, paramDesc(fn.Params[i], ctypes, i), err)
		}
	}
	return nil
}

// paramBytes is a parameter's size in bytes.
func paramBytes(p *ptx.Param) int {
	_, bits := paramKind(p, "")
	return bits / 8
}

// paramDesc describes a parameter: ".u32, unsigned int in C++".
func paramDesc(p *ptx.Param, ctypes []string, i int) string {
	t := p.Type
	if p.ArrayLen >= 0 {
		t = fmt.Sprintf("%s [%d]", p.Type, p.ArrayLen)
	}
	if ctypes != nil {
		return fmt.Sprintf("%s in PTX, %s in C++", t, ctypes[i])
	}
	return t + " in PTX"
}

// paramKind is what a parameter takes: 'u' unsigned or 's' signed
// integers, 'f' floats, 'p' a pointer, 'b' any bits of its size. The C++
// type decides where the name is mangled (nvcc declares every integer
// parameter .uN, int included); otherwise the PTX type does.
func paramKind(p *ptx.Param, ctype string) (kind byte, bits int) {
	pt := strings.TrimPrefix(p.Type, ".")
	if len(pt) >= 2 {
		fmt.Sscanf(pt[1:], "%d", &bits)
	}
	if p.ArrayLen >= 0 {
		bits *= p.ArrayLen
	}
	switch {
	case strings.HasSuffix(ctype, "*") || strings.HasSuffix(ctype, "&"):
		return 'p', bits
	case ctype == "signed char" || ctype == "char" || ctype == "short" || ctype == "int" || ctype == "long" || ctype == "long long":
		return 's', bits
	case strings.HasPrefix(ctype, "unsigned ") || ctype == "bool":
		return 'u', bits
	case ctype == "float" || ctype == "double":
		return 'f', bits
	case ctype != "":
		return 'b', bits // a class, an enum, a half type: its bits
	}
	if p.ArrayLen >= 0 || len(pt) < 2 {
		return 'b', bits
	}
	switch pt[0] {
	case 'u', 's', 'f', 'b':
		return pt[0], bits
	}
	return 0, bits
}

// checkArg says what is wrong with argument a for parameter p, of C++
// type ctype ("" if unknown); quick words the fix as an --arg flag.
func checkArg(a Arg, p *ptx.Param, ctype string, quick bool) error {
	kind, bits := paramKind(p, ctype)
	if kind == 0 || bits == 0 {
		return fmt.Errorf("a %s parameter cannot be given from a spec", p.Type)
	}
	want := map[byte]string{'u': "u", 's': "s", 'f': "f", 'p': "u", 'b': "u"}[kind] + fmt.Sprint(bits)
	if _, ok := scalarSize[want]; !ok {
		want = "a scalar of that size"
	} else if quick {
		want = fmt.Sprintf("--arg %s:VALUE", want)
	} else {
		want = fmt.Sprintf("{%q: ...}", want)
	}
	switch a.Kind {
	case "tensormap":
		if n := paramBytes(p); n != 128 && n != 8 {
			return fmt.Errorf("a tensor map goes to a 128-byte parameter (.param .align 64 .b8 [128], a CUtensorMap by value) or to a pointer; this one is %d bytes", n)
		}
		return nil
	case "buffer", "texture", "surface":
		// The address is 8 bytes, which any 64-bit integer or bits
		// parameter takes (hand-written PTX and other compilers declare
		// pointers .s64 or .b64).
		what := map[string]string{"buffer": "a buffer's address", "texture": "a texture object", "surface": "a surface object"}[a.Kind]
		switch {
		case kind == 'f':
			return fmt.Errorf("%s is an integer; this parameter is a float: give it a value, write %s (a buffer goes to a pointer parameter)", what, want)
		case bits != 64:
			return fmt.Errorf("%s is 64 bits; this parameter is %d bits: give it a value, write %s", what, bits, want)
		}
		return nil
	}
	abits := scalarSize[a.Kind] * 8
	akind := a.Kind[0]
	switch {
	case abits != bits:
		return fmt.Errorf("%s is %d bits; the parameter is %d bits: write %s", a.Kind, abits, bits, want)
	case kind == 'f' && akind != 'f':
		return fmt.Errorf("%s is an integer; the parameter is a float: write %s", a.Kind, want)
	case (kind == 'u' || kind == 's' || kind == 'p') && akind == 'f':
		return fmt.Errorf("%s is a float; the parameter is an integer: write %s", a.Kind, want)
	}
	if kind == 'b' || akind == 'f' || a.Raw != "" {
		return nil // bits, floats, and integers given as hex bits fit
	}
	v, ok := new(big.Int).SetString(a.Value.String(), 10)
	if !ok {
		return fmt.Errorf("%s is not an integer", a.Value)
	}
	t := fmt.Sprintf("u%d", bits)
	if kind == 's' {
		t = fmt.Sprintf("s%d", bits)
	}
	lo, hi, _ := intRange(t)
	if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
		if v.Sign() < 0 && lo.Sign() == 0 {
			return fmt.Errorf("%s is negative; the parameter is unsigned (0 to %s)", v, hi)
		}
		return fmt.Errorf("%s is out of range (%s to %s)", v, lo, hi)
	}
	return nil
}
