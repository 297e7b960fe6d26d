package spec

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ptxvm/ptxvm/vm"
)

// TensorMap describes a tensor map (a CUtensorMap, as cuTensorMapEncodeTiled
// makes it) over a buffer: what cp.async.bulk.tensor copies read and write.
// An argument {"tensormap": NAME} passes it: by value to a 128-byte
// parameter (`.param .align 64 .b8 tmap[128]`, a __grid_constant__
// CUtensorMap), or as the address of a copy in global memory to a 64-bit
// parameter (a const CUtensorMap*). The kernel sees ptxvm's own encoding of
// it (vm.TensorMap; the GPU's is undocumented and no kernel may read it).
type TensorMap struct {
	Name   string `json:"name"`
	Buffer string `json:"buffer"`
	// Offset is the tensor's start in the buffer, in bytes (globalAddress
	// is the buffer's address plus this; a multiple of 16).
	Offset uint64 `json:"offset,omitempty"`
	// Type is the element type (tensorDataType): u8 u16 u32 s32 u64 s64 f16
	// f32 f64 bf16 f32_ftz tf32 tf32_ftz.
	Type string `json:"type"`
	// Dims are the extents, dimension 0 (the contiguous one) first
	// (globalDim); 1 to 5 of them.
	Dims []uint64 `json:"dims"`
	// Strides are the bytes between consecutive indices of dimensions 1 and
	// up (globalStrides: one fewer than dims; multiples of 16).
	Strides []uint64 `json:"strides,omitempty"`
	// Box is the box a copy moves, in elements (boxDim: 1 to 256 each;
	// box[0] a multiple of 16 bytes).
	Box []uint32 `json:"box"`
	// ElementStrides steps each dimension by this many elements (1 to 8;
	// default 1: elementStrides).
	ElementStrides []uint32 `json:"element_strides,omitempty"`
	// Interleave: "none" (the default; the interleaved layouts are not
	// supported). Swizzle: "none" (default), "32B", "64B" or "128B".
	// OOBFill: "zero" (default) or "nan" (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA).
	// L2Promotion is a hint and ignored.
	Interleave  string `json:"interleave,omitempty"`
	Swizzle     string `json:"swizzle,omitempty"`
	OOBFill     string `json:"oob_fill,omitempty"`
	L2Promotion string `json:"l2_promotion,omitempty"`
}

// build makes the vm.TensorMap for a tensor at global address base.
func (t *TensorMap) build(base uint64) (vm.TensorMap, error) {
	var m vm.TensorMap
	dt, ok := vm.TMapType(t.Type)
	if !ok {
		return m, fmt.Errorf("unknown type %q (want u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32_ftz tf32 tf32_ftz)", t.Type)
	}
	r := len(t.Dims)
	if r < 1 || r > 5 {
		return m, fmt.Errorf("%d dims: want 1 to 5", r)
	}
	if len(t.Strides) != r-1 {
		return m, fmt.Errorf("%d strides for %d dims: want %d (the bytes between indices of dims 1 and up)", len(t.Strides), r, r-1)
	}
	if len(t.Box) != r {
		return m, fmt.Errorf("%d box extents for %d dims", len(t.Box), r)
	}
	if len(t.ElementStrides) != 0 && len(t.ElementStrides) != r {
		return m, fmt.Errorf("%d element_strides for %d dims", len(t.ElementStrides), r)
	}
	m.Addr, m.Rank, m.DType = base+t.Offset, r, dt
	for i := 0; i < r; i++ {
		m.Dims[i], m.Box[i], m.EStrides[i] = t.Dims[i], t.Box[i], 1
		if len(t.ElementStrides) != 0 {
			m.EStrides[i] = t.ElementStrides[i]
		}
		if i > 0 {
			m.Strides[i] = t.Strides[i-1]
		}
	}
	m.Strides[0] = m.ElemSize()
	switch strings.ToLower(t.Interleave) {
	case "", "none":
	default:
		return m, fmt.Errorf("interleave %q: only \"none\" is supported", t.Interleave)
	}
	sw := map[string]uint8{"": 0, "none": 0, "32b": 1, "64b": 2, "128b": 3}
	s, ok := sw[strings.ToLower(t.Swizzle)]
	if !ok {
		return m, fmt.Errorf("swizzle %q: want none, 32B, 64B or 128B", t.Swizzle)
	}
	m.Swizzle = s
	switch strings.ToLower(t.OOBFill) {
	case "", "zero", "none":
	case "nan":
		m.OOBNaN = true
	default:
		return m, fmt.Errorf("oob_fill %q: want zero or nan", t.OOBFill)
	}
	return m, m.Check()
}

// checkTensorMaps checks the tensor maps' names and buffers (names: the
// spec's names so far, to which it adds them).
func (s *Spec) checkTensorMaps(names map[string]string) error {
	for i, t := range s.TensorMaps {
		if t.Name == "" {
			return fmt.Errorf("tensor_maps[%d] has no name", i)
		}
		if _, dup := names[t.Name]; dup {
			return fmt.Errorf("tensor_maps[%d]: name %q is used twice", i, t.Name)
		}
		names[t.Name] = "tensormap"
		if names[t.Buffer] != "buffer" {
			return fmt.Errorf("tensor_maps[%d] (%s): buffer %q is not a buffer of this spec", i, t.Name, t.Buffer)
		}
		if _, err := t.build(0); err != nil {
			return fmt.Errorf("tensor_maps[%d] (%s): %v", i, t.Name, err)
		}
	}
	return nil
}

// makeTensorMaps encodes the spec's tensor maps over p's buffers and keeps
// a copy of each in global memory (for pointer parameters).
func (p *Prepared) makeTensorMaps(dev *vm.Device) error {
	for i, t := range p.Spec.TensorMaps {
		m, err := t.build(p.Buffers[t.Buffer])
		if err != nil {
			return fmt.Errorf("tensor_maps[%d] (%s): %v", i, t.Name, err)
		}
		enc := m.Encode()
		addr, err := dev.Malloc(128, "tensor map "+t.Name)
		if err != nil {
			return err
		}
		if err := dev.Mem.Find(addr, 1).SetInit(enc[:]); err != nil {
			return err
		}
		p.tmaps[t.Name] = tmapArg{enc: enc, addr: addr}
	}
	return nil
}

type tmapArg struct {
	enc  [128]byte
	addr uint64
}

// tensorMapArg is the bytes a tensormap argument passes to a parameter of
// the given size in bytes: the map itself, or its address.
func (p *Prepared) tensorMapArg(name string, size int) []byte {
	t := p.tmaps[name]
	if size == 8 {
		return binary.LittleEndian.AppendUint64(nil, t.addr)
	}
	return append([]byte(nil), t.enc[:]...)
}
