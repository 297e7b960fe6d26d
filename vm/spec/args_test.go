package spec

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/ptx"
)

func TestCheckArg(t *testing.T) {
	scalar := func(typ string) *ptx.Param { return &ptx.Param{Type: typ, ArrayLen: -1} }
	arg := func(text string) Arg {
		var a Arg
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, c := range []struct {
		arg   string
		param *ptx.Param
		ctype string
		err   string
	}{
		// nvcc: every integer is .uN; the C++ type says whether it is signed.
		{`{"s32": -1}`, scalar(".u32"), "int", ""},
		{`{"u32": 5}`, scalar(".u32"), "int", ""},
		{`{"u32": 2147483648}`, scalar(".u32"), "int", "2147483648 is out of range (-2147483648 to 2147483647)"},
		{`{"s32": -1}`, scalar(".u32"), "unsigned int", "-1 is negative; the parameter is unsigned (0 to 4294967295)"},
		{`{"s8": -1}`, scalar(".u8"), "signed char", ""},
		{`{"s8": -1}`, scalar(".u8"), "unsigned char", "-1 is negative"},
		{`{"s16": -7}`, scalar(".u16"), "short", ""},
		{`{"s64": -7}`, scalar(".u64"), "long long", ""},
		{`{"u64": 18446744073709551615}`, scalar(".u64"), "long long", "out of range"},
		{`{"f32": 1.5}`, scalar(".u32"), "unsigned int", `f32 is a float; the parameter is an integer: write {"u32": ...}`},
		{`{"u32": 1}`, scalar(".f32"), "float", `u32 is an integer; the parameter is a float: write {"f32": ...}`},
		{`{"f32": 1}`, scalar(".f64"), "double", `f32 is 32 bits; the parameter is 64 bits: write {"f64": ...}`},
		{`{"u16": 1}`, scalar(".u32"), "int", `u16 is 16 bits; the parameter is 32 bits: write {"s32": ...}`},
		{`{"u32": "0xffffffff"}`, scalar(".u32"), "int", ""},        // bits: any value
		{`{"u64": 0}`, scalar(".u64"), "float*", ""},                // a null pointer
		{`{"s64": -8}`, scalar(".u64"), "float*", "-8 is negative"}, // a pointer is unsigned
		{`{"buffer": "A"}`, scalar(".u64"), "float const*", ""},
		{`{"texture": "t"}`, scalar(".u64"), "unsigned long long", ""},
		{`{"buffer": "A"}`, scalar(".u32"), "int", `a buffer's address is 64 bits; this parameter is 32 bits: give it a value, write {"s32": ...}`},
		{`{"buffer": "A"}`, scalar(".u64"), "long long", ""}, // any 8-byte value goes
		{`{"buffer": "A"}`, scalar(".s64"), "", ""},
		{`{"buffer": "A"}`, scalar(".f64"), "double", `a buffer's address is an integer; this parameter is a float: give it a value, write {"f64": ...} (a buffer goes to a pointer parameter)`},
		{`{"buffer": "A"}`, scalar(".f32"), "", `a buffer's address is an integer; this parameter is a float: give it a value, write {"f32": ...}`},
		{`{"texture": "t"}`, scalar(".s64"), "", ""},
		// Without a mangled name, the PTX type decides.
		{`{"s32": -1}`, scalar(".u32"), "", "-1 is negative; the parameter is unsigned (0 to 4294967295)"},
		{`{"s32": -1}`, scalar(".s32"), "", ""},
		{`{"u32": 2147483648}`, scalar(".s32"), "", "out of range (-2147483648 to 2147483647)"},
		{`{"f32": 2}`, scalar(".b32"), "", ""},
		{`{"s32": -2}`, scalar(".b32"), "", ""},
		{`{"f64": 2}`, scalar(".b32"), "", "f64 is 64 bits; the parameter is 32 bits"},
		{`{"buffer": "A"}`, scalar(".b64"), "", ""},
		// Structs and halves by value: .b8 arrays take bits of their size.
		{`{"u64": 1}`, &ptx.Param{Type: ".b8", ArrayLen: 8}, "Pair", ""},
		{`{"u32": 1}`, &ptx.Param{Type: ".b8", ArrayLen: 8}, "Pair", "u32 is 32 bits; the parameter is 64 bits"},
		{`{"u16": 15360}`, &ptx.Param{Type: ".b8", ArrayLen: 2}, "__half", ""},
		{`{"u32": 1}`, scalar(".pred"), "", "cannot be given from a spec"},
	} {
		t.Run(c.arg+" "+c.param.Type+" "+c.ctype, func(t *testing.T) {
			err := checkArg(arg(c.arg), c.param, c.ctype, false)
			if c.err == "" {
				assert.NoError(t, err)
			} else if assert.Error(t, err) {
				assert.Contains(t, err.Error(), c.err)
			}
		})
	}
}

// A spec file's argument errors name the file; a quick launch's speak of
// its --arg flags and say how to write one.
func TestArgMessagesNameTheirSource(t *testing.T) {
	p := func(typ string) *ptx.Param { return &ptx.Param{Name: "p", Type: typ, ArrayLen: -1} }
	fn := &ptx.Function{Name: "_Z1kPfif", Params: []*ptx.Param{p(".u64"), p(".u32"), p(".f32")}}
	buf := Arg{Kind: "buffer", Name: "A"}
	num := func(kind, v string) Arg { return Arg{Kind: kind, Value: json.Number(v)} }
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"file, count", Spec{Path: "runs/k.json", Args: []Arg{buf}},
			"runs/k.json: kernel k takes 3 parameters, the spec gives 1 arguments"},
		{"file, type", Spec{Path: "runs/k.json", Args: []Arg{buf, num("f32", "1"), num("f32", "1")}},
			`runs/k.json: args[1] (parameter 1 of k, .u32 in PTX, int in C++): f32 is a float; the parameter is an integer: write {"s32": ...}`},
		{"quick, count", Spec{Quick: true, Args: []Arg{buf, buf}},
			"kernel k takes 3 parameters, the launch gives 2 --arg values"},
		{"quick, type", Spec{Quick: true, Args: []Arg{buf, num("s32", "1"), num("u32", "1")}},
			"--arg 3 (parameter 2 of k, .f32 in PTX, float in C++): u32 is an integer; the parameter is a float: write --arg f32:VALUE"},
		{"quick, buffer for float", Spec{Quick: true, Args: []Arg{buf, num("s32", "1"), buf}},
			"--arg 3 (parameter 2 of k, .f32 in PTX, float in C++): a buffer's address is an integer; this parameter is a float: give it a value, write --arg f32:VALUE (a buffer goes to a pointer parameter)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.checkArgs(fn.Name, fn)
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tc.want)
				if !tc.spec.Quick {
					assert.NotContains(t, err.Error(), "--arg")
				} else {
					assert.NotContains(t, err.Error(), "{\"")
				}
			}
		})
	}
}
