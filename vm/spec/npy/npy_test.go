package npy

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numpySaved is what numpy.save writes for numpy.arange(4, dtype="<f4"):
// the header padded with spaces to 64 bytes, then the data.
const numpySaved = "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }" +
	"                                                            \n" +
	"\x00\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40"

func TestEncodeAsNumPyDoes(t *testing.T) {
	h, err := Encode("f32", 4)
	require.NoError(t, err)
	assert.Equal(t, numpySaved[:128], string(h))
	assert.Zero(t, len(h)%64)
	for _, typ := range []string{"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16"} {
		h, err := Encode(typ, 1<<33)
		require.NoError(t, err)
		p, err := Parse(h)
		require.NoError(t, err, typ)
		assert.Equal(t, uint64(1<<33), p.Count())
		assert.NoError(t, p.Check("x", typ, 1<<33))
		assert.Equal(t, len(h), p.DataOffset)
	}
	_, err = Encode("f8", 1)
	assert.Error(t, err)
}

func TestParse(t *testing.T) {
	v2 := func(dict string) string {
		b := make([]byte, 4)
		binary.LittleEndian.PutUint32(b, uint32(len(dict)))
		return Magic + "\x02\x00" + string(b) + dict
	}
	for _, c := range []struct {
		name, data string
		shape      []uint64
		descr      string
		err        string
	}{
		{"numpy.save", numpySaved, []uint64{4}, "<f4", ""},
		{"version 2", v2("{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }\n"), []uint64{3, 4}, "<i8", ""},
		{"scalar", v2(`{"descr": "|u1", "fortran_order": False, "shape": ()}`), []uint64{}, "|u1", ""},
		{"fortran 1-D", v2("{'descr': '<f8', 'fortran_order': True, 'shape': (5,), }"), []uint64{5}, "<f8", ""},
		{"fortran 2-D", v2("{'descr': '<f8', 'fortran_order': True, 'shape': (5, 2), }"), nil, "", "Fortran order"},
		{"no magic", "\x93NUMPX\x01\x00\x00\x00", nil, "", "not a .npy file"},
		{"short", "\x93NUMPY", nil, "", "not a .npy file"},
		{"version 9", "\x93NUMPY\x09\x00\x00\x00", nil, "", "version 9.0 is not supported"},
		{"truncated", "\x93NUMPY\x01\x00\xff\x00{'descr'", nil, "", "truncated"},
		{"unknown key", v2("{'descr': '<f4', 'colour': 'red'}"), nil, "", `unknown key "colour"`},
		{"no shape", v2("{'descr': '<f4', 'fortran_order': False}"), nil, "", `no "shape"`},
		{"bad dim", v2("{'descr': '<f4', 'fortran_order': False, 'shape': (x,)}"), nil, "", `bad dimension "x"`},
		{"not a dict", v2("['descr']"), nil, "", "not a dictionary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := Parse([]byte(c.data))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.shape, h.Shape)
			assert.Equal(t, c.descr, h.Descr)
		})
	}
}

func TestCheck(t *testing.T) {
	h, err := Parse([]byte(numpySaved))
	require.NoError(t, err)
	assert.NoError(t, h.Check("A.npy", "f32", 4))
	assert.EqualError(t, h.Check("A.npy", "f64", 4), "A.npy holds float32; the buffer is f64 (NumPy float64)")
	assert.EqualError(t, h.Check("A.npy", "f32", 5), "A.npy holds 4 elements (shape [4]); the buffer has 5")
	be := strings.Replace(numpySaved, "<f4", ">f4", 1)
	h, err = Parse([]byte(be))
	require.NoError(t, err)
	assert.EqualError(t, h.Check("B.npy", "f32", 4), "B.npy holds big-endian f4; the buffer is f32 (NumPy float32)")
	assert.Equal(t, "f32", TypeOf("<f4"))
	assert.Equal(t, "", TypeOf(">f4"))
}

// A shape whose element count does not fit 64 bits is refused, not
// wrapped round to a small count.
func TestShapeOverflow(t *testing.T) {
	for _, tc := range []struct {
		shape string
		err   string
	}{
		{"(1099511627776, 1099511627776)", "more than 2^40 elements"},
		{"(1048576, 1048576, 2)", "more than 2^40 elements"},
		{"(1048576, 1048576)", ""},
		{"(0, 1099511627776, 1099511627776)", ""},
	} {
		dict := "{'descr': '<f4', 'fortran_order': False, 'shape': " + tc.shape + ", }\n"
		data := append([]byte(Magic+"\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
		h, err := Parse(append(data, dict...))
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.shape)
			continue
		}
		require.NoError(t, err, tc.shape)
		require.LessOrEqual(t, h.Count(), uint64(1<<40))
	}
}

// FuzzNpy: no header makes Parse panic; a header it accepts has its data
// inside the input and a count that is the product of its shape; a type
// it names checks and encodes back to the same type and count.
func FuzzNpy(f *testing.F) {
	for _, typ := range []string{"u8", "s16", "f32", "f64", "u64"} {
		h, err := Encode(typ, 12)
		require.NoError(f, err)
		f.Add(h)
	}
	f.Add([]byte(numpySaved))
	f.Add([]byte("\x93NUMPY\x02\x00\x3c\x00\x00\x00{'descr': '<i4', 'fortran_order': True, 'shape': (3, 1, 4L), }   \n"))
	f.Add([]byte("\x93NUMPY\x01\x00\x30\x00{\"descr\": \">f8\", \"shape\": (), \"fortran_order\": False}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Parse(data)
		if err != nil {
			require.Nil(t, h)
			require.NotEmpty(t, err.Error())
			return
		}
		require.LessOrEqual(t, h.DataOffset, len(data))
		require.GreaterOrEqual(t, h.DataOffset, 10)
		n := uint64(1)
		for _, d := range h.Shape {
			hi, lo := bits.Mul64(n, d)
			require.Zero(t, hi, "shape %v overflows", h.Shape)
			n = lo
		}
		require.Equal(t, n, h.Count())
		require.NotEmpty(t, Describe(h.Descr)+"x")
		typ := TypeOf(h.Descr)
		if typ == "" {
			return
		}
		require.NoError(t, h.Check("f.npy", typ, h.Count()))
		enc, err := Encode(typ, h.Count())
		require.NoError(t, err)
		back, err := Parse(enc)
		require.NoError(t, err)
		require.Equal(t, h.Descr, back.Descr)
		require.Equal(t, h.Count(), back.Count())
		require.Equal(t, len(enc), back.DataOffset)
	})
}
