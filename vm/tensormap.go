package vm

import (
	"encoding/binary"
	"fmt"
)

// Tensor maps (the CUtensorMap of cp.async.bulk.tensor).
//
// On the GPU a tensor map is 128 opaque bytes that cuTensorMapEncodeTiled
// writes and the TMA unit reads; a kernel receives it by value (a
// `.param .align 64 .b8 tmap[128]`, __grid_constant__) or in global memory
// and names its generic or global address in cp.async.bulk.tensor. Its
// format is not documented, and no kernel may read it, so ptxvm uses one
// of its own, written by the launch spec's tensor_maps (vm/spec) and read
// by the copies:
//
//	bytes  0-7   "ptxvmTM1"
//	bytes  8-15  the global address of the tensor
//	byte   16    rank (1-5)
//	byte   17    data type (TMapU8 ...: CUtensorMapDataType's numbering)
//	byte   18    interleave (0: none; the others are refused)
//	byte   19    swizzle (0 none, 1 32B, 2 64B, 3 128B)
//	byte   20    out-of-bounds fill (0 zeros, 1 NaN for floating types)
//	bytes 24-43  the extents (globalDim), 5 x u32
//	bytes 48-79  the strides in bytes of dimensions 1-4 (globalStrides), 4 x u64
//	bytes 80-89  the box (boxDim), 5 x u16
//	bytes 90-94  the element strides (elementStrides), 5 x u8
//
// The rest is zero.

// TensorMap is what a tensor map describes (cuTensorMapEncodeTiled's
// arguments).
type TensorMap struct {
	Addr       uint64
	Rank       int
	DType      uint8
	Dims       [5]uint64 // extents in elements
	Strides    [5]uint64 // bytes between consecutive indices of each dimension (Strides[0]: the element size)
	Box        [5]uint32
	EStrides   [5]uint32
	Interleave uint8
	Swizzle    uint8 // 0 none, 1 32B, 2 64B, 3 128B
	OOBNaN     bool  // fill out-of-bounds elements of a floating type with NaN
}

// The data types of a tensor map (CUtensorMapDataType's values).
const (
	TMapU8 uint8 = iota
	TMapU16
	TMapU32
	TMapS32
	TMapU64
	TMapS64
	TMapF16
	TMapF32
	TMapF64
	TMapBF16
	TMapF32FTZ
	TMapTF32
	TMapTF32FTZ
	numTMapTypes
)

var tmapTypeNames = [numTMapTypes]string{"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz", "tf32", "tf32_ftz"}
var tmapTypeSizes = [numTMapTypes]uint64{1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4}

// TMapType returns the data type named name ("u8", "f16", "bf16", ...).
func TMapType(name string) (uint8, bool) {
	for i, n := range tmapTypeNames {
		if n == name {
			return uint8(i), true
		}
	}
	return 0, false
}

// ElemSize is the size in bytes of one element.
func (t *TensorMap) ElemSize() uint64 {
	if t.DType < numTMapTypes {
		return tmapTypeSizes[t.DType]
	}
	return 0
}

// Float reports whether the elements are floating-point (NaN fill applies).
func (t *TensorMap) Float() bool {
	switch t.DType {
	case TMapF16, TMapF32, TMapF64, TMapBF16, TMapF32FTZ, TMapTF32, TMapTF32FTZ:
		return true
	}
	return false
}

// BoxBytes is the number of bytes a box load writes to shared memory (and
// completes on its mbarrier): the traversed elements of the box, out of
// bounds or not.
func (t *TensorMap) BoxBytes() uint64 {
	n := t.ElemSize()
	for i := 0; i < t.Rank; i++ {
		n *= t.boxCount(i)
	}
	return n
}

// boxCount is the number of elements a box traverses in dimension i:
// ceil(box[i]/elementStrides[i]), except in dimension 0, whose element
// stride the H200 ignores (l2d_estr_21b and l2d_estr_33 of testdata/tma
// copied every element of box[0]).
func (t *TensorMap) boxCount(i int) uint64 {
	if i == 0 {
		return uint64(t.Box[0])
	}
	return uint64((t.Box[i] + t.EStrides[i] - 1) / t.EStrides[i])
}

// boxStep is the coordinate step between traversed elements of dimension i.
func (t *TensorMap) boxStep(i int) int64 {
	if i == 0 {
		return 1
	}
	return int64(t.EStrides[i])
}

// Check reports the first of the constraints cuTensorMapEncodeTiled
// enforces that t breaks (those this model relies on).
func (t *TensorMap) Check() error {
	es := t.ElemSize()
	switch {
	case t.Rank < 1 || t.Rank > 5:
		return fmt.Errorf("rank %d: want 1 to 5", t.Rank)
	case es == 0:
		return fmt.Errorf("unknown data type %d", t.DType)
	case t.Addr%16 != 0:
		return fmt.Errorf("global address %#x: want a multiple of 16", t.Addr)
	case t.Interleave != 0:
		return fmt.Errorf("interleaved layouts are not supported")
	case t.Swizzle > 3:
		return fmt.Errorf("swizzle %d: want 0 (none), 1 (32B), 2 (64B) or 3 (128B)", t.Swizzle)
	case t.OOBNaN && !t.Float():
		return fmt.Errorf("NaN fill needs a floating-point data type")
	}
	for i := 0; i < t.Rank; i++ {
		switch {
		case t.Dims[i] < 1 || t.Dims[i] > 1<<32:
			return fmt.Errorf("dims[%d] = %d: want 1 to 2^32", i, t.Dims[i])
		case t.Box[i] < 1 || t.Box[i] > 256:
			return fmt.Errorf("box[%d] = %d: want 1 to 256", i, t.Box[i])
		case t.EStrides[i] < 1 || t.EStrides[i] > 8:
			return fmt.Errorf("element_strides[%d] = %d: want 1 to 8", i, t.EStrides[i])
		}
		if i > 0 && (t.Strides[i]%16 != 0 || t.Strides[i] >= 1<<40) {
			return fmt.Errorf("strides[%d] = %d bytes: want a multiple of 16 below 2^40", i-1, t.Strides[i])
		}
	}
	if inner := uint64(t.Box[0]) * es; inner%16 != 0 {
		return fmt.Errorf("box[0] is %d bytes: want a multiple of 16", inner)
	} else if t.Swizzle != 0 && inner > 16<<t.Swizzle {
		return fmt.Errorf("box[0] is %d bytes: at most %d with this swizzle", inner, 16<<t.Swizzle)
	}
	return nil
}

const tmapMagic = "ptxvmTM1"

// Encode writes t in ptxvm's 128-byte tensor-map format.
func (t *TensorMap) Encode() [128]byte {
	var b [128]byte
	copy(b[:], tmapMagic)
	le := binary.LittleEndian
	le.PutUint64(b[8:], t.Addr)
	b[16], b[17], b[18], b[19] = uint8(t.Rank), t.DType, t.Interleave, t.Swizzle
	if t.OOBNaN {
		b[20] = 1
	}
	for i := 0; i < 5; i++ {
		le.PutUint32(b[24+4*i:], uint32(t.Dims[i]))
		le.PutUint16(b[80+2*i:], uint16(t.Box[i]))
		b[90+i] = uint8(t.EStrides[i])
		if i > 0 {
			le.PutUint64(b[48+8*(i-1):], t.Strides[i])
		}
	}
	return b
}

// DecodeTensorMap reads a tensor map in ptxvm's format from b (128 bytes).
func DecodeTensorMap(b []byte) (TensorMap, error) {
	var t TensorMap
	if len(b) < 128 || string(b[:8]) != tmapMagic {
		return t, fmt.Errorf("not a tensor map (ptxvm builds them from the launch spec's tensor_maps)")
	}
	le := binary.LittleEndian
	t.Addr = le.Uint64(b[8:])
	t.Rank, t.DType, t.Interleave, t.Swizzle, t.OOBNaN = int(b[16]), b[17], b[18], b[19], b[20] != 0
	for i := 0; i < 5; i++ {
		t.Dims[i] = uint64(le.Uint32(b[24+4*i:]))
		if t.Dims[i] == 0 && i < t.Rank {
			t.Dims[i] = 1 << 32
		}
		t.Box[i] = uint32(le.Uint16(b[80+2*i:]))
		t.EStrides[i] = uint32(b[90+i])
		if i > 0 {
			t.Strides[i] = le.Uint64(b[48+8*(i-1):])
		}
	}
	t.Strides[0] = t.ElemSize()
	if err := t.Check(); err != nil {
		return t, fmt.Errorf("tensor map: %v", err)
	}
	return t, nil
}
