package vm

import "fmt"

// Surface boundary modes (suld/sust/sured's .trap, .clamp, .zero).
const (
	SurfTrap = iota
	SurfClamp
	SurfZero
)

// surfHandleBase sets surface handles apart from texture handles, so that
// a texture instruction given a surface (or the reverse) faults.
const surfHandleBase = 1 << 40

// SurfaceDesc describes a surface object over a CUDA array
// (cudaCreateSurfaceObject over an array made with
// cudaArraySurfaceLoadStore).
type SurfaceDesc struct {
	Dims     []int  // 1 to 3 extents, in elements (width, height, depth)
	Layers   int    // layers of a layered array (0: not layered; 1D and 2D only)
	Format   string // channel type: u8 s8 u16 s16 u32 s32 f16 f32 (u64/s64 for 8-byte elements)
	Channels int    // 1, 2 or 4
	// Normalized makes a u8 array a normalized one (cudaChannelFormatKind
	// UnsignedNormalized8X*): sust.p converts floats to it.
	Normalized bool
	// Base is the device address of the array's elements: x fastest, then
	// y, z and the layer, packed (the model's layout; the GPU's is
	// block-linear, which a kernel cannot observe through suld/sust).
	// Surface stores write device memory there.
	Base uint64
}

// Surface is a surface object of a device.
type Surface struct {
	SurfaceDesc
	elem   int    // bytes per element (all channels)
	esz    int    // bytes per channel
	dims   [3]int // extents, 1 past the given ones
	nd     int
	layers int // 1 when not layered
	pitch  [3]uint64
}

// CreateSurface makes a surface object and returns its handle (the value a
// kernel receives as cudaSurfaceObject_t). The array's memory, Base, must
// hold the surface's bytes.
func (d *Device) CreateSurface(desc SurfaceDesc) (uint64, error) {
	s := &Surface{SurfaceDesc: desc}
	switch desc.Format {
	case "u8", "s8":
		s.esz = 1
	case "u16", "s16", "f16":
		s.esz = 2
	case "u32", "s32", "f32":
		s.esz = 4
	case "u64", "s64":
		s.esz = 8
	default:
		return 0, fmt.Errorf("surface format %q is not supported (u8 s8 u16 s16 u32 s32 f16 f32 u64 s64)", desc.Format)
	}
	if s.Channels == 0 {
		s.Channels = 1
	}
	if c := s.Channels; c != 1 && c != 2 && c != 4 {
		return 0, fmt.Errorf("surface channels must be 1, 2 or 4, not %d", c)
	}
	if desc.Normalized && desc.Format != "u8" {
		return 0, fmt.Errorf("normalized surfaces of %s are not modelled (u8 only, as recorded)", desc.Format)
	}
	s.elem = s.esz * s.Channels
	if s.elem > 16 {
		return 0, fmt.Errorf("surface elements of %d bytes are too large (16 at most)", s.elem)
	}
	if len(desc.Dims) < 1 || len(desc.Dims) > 3 {
		return 0, fmt.Errorf("surface dims %v: want 1 to 3 extents", desc.Dims)
	}
	if desc.Layers < 0 || desc.Layers > 2048 || desc.Layers > 0 && len(desc.Dims) == 3 {
		return 0, fmt.Errorf("surface layers %d: want 0 (not layered) or 1 to 2048 layers of a 1D or 2D array", desc.Layers)
	}
	s.nd = len(desc.Dims)
	s.dims = [3]int{1, 1, 1}
	for i, x := range desc.Dims {
		if x <= 0 || x > 1<<16 {
			return 0, fmt.Errorf("surface extent %d is out of range (1 to 65536)", x)
		}
		s.dims[i] = x
	}
	s.layers = max(1, desc.Layers)
	s.pitch[0] = uint64(s.dims[0] * s.elem)
	s.pitch[1] = s.pitch[0] * uint64(s.dims[1])
	s.pitch[2] = s.pitch[1] * uint64(s.dims[2])
	if a := d.Mem.Find(desc.Base, 1); a == nil || desc.Base+s.Bytes() > a.Base+a.Size {
		return 0, fmt.Errorf("surface of %v elements × %d layer(s) of %d bytes needs %d bytes of device memory at %#x", desc.Dims, s.layers, s.elem, s.Bytes(), desc.Base)
	}
	d.surfaces = append(d.surfaces, s)
	return surfHandleBase + uint64(len(d.surfaces)), nil
}

// Bytes is the size of the surface's array in bytes.
func (s *Surface) Bytes() uint64 { return s.pitch[2] * uint64(s.layers) }

func (d *Device) surface(h uint64) *Surface {
	if h <= surfHandleBase || h-surfHandleBase > uint64(len(d.surfaces)) {
		return nil
	}
	return d.surfaces[h-surfHandleBase-1]
}
