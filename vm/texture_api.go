package vm

import "fmt"

// Texture addressing and filtering, as cudaTextureDesc sets them.
const (
	AddrClamp = iota
	AddrWrap
	AddrMirror
	AddrBorder
)

// TextureDesc describes a texture object (cudaResourceDesc +
// cudaTextureDesc).
type TextureDesc struct {
	Linear     bool   // a tex1Dfetch object over linear memory (else a CUDA array)
	Dims       []int  // 1 to 3 extents, in texels
	Format     string // element type: u8 s8 u16 s16 u32 s32 f16 f32
	Channels   int    // 1, 2 or 4
	Address    int    // AddrClamp, AddrWrap, AddrMirror, AddrBorder
	FilterLin  bool   // linear (bilinear, trilinear) filtering
	Normalized bool   // coordinates in [0, 1)
	// Layers makes a layered 1D or 2D array (tex.a1d, tex.a2d) of this many
	// layers, stored one after another in Data; 0: not layered.
	Layers   int
	ReadNorm bool // 8/16-bit integers read as normalized floats
	// Cube makes a cube map (tex.cube) of Dims [w, w]: six faces (+x, −x,
	// +y, −y, +z, −z) one after another, or with Layers a cube-layered map
	// (tex.acube) of Layers × 6 faces.
	Cube bool
	// Levels makes a mipmapped texture of this many levels (0 or 1: not
	// mipmapped): Data holds level 0, then level 1, ..., level k with
	// extents max(1, extent>>k) (layers and faces are not reduced).
	Levels int
	// MipLinear blends the two nearest levels (cudaFilterModeLinear as the
	// mipmap filter); else the nearest level is sampled.
	MipLinear bool
	// LODBias is added to every level of detail; MinLOD and MaxLOD clamp it
	// (cudaTextureDesc's mipmapLevelBias, minMipmapLevelClamp,
	// maxMipmapLevelClamp).
	LODBias, MinLOD, MaxLOD float32
	// Data holds the texels (x fastest, channels interleaved). For a CUDA
	// array it is a copy taken when the object is created; for a linear
	// object it aliases device memory.
	Data []byte
	Base uint64 // device address of the data, for the memory model
}

// Texture is a texture object of a device.
type Texture struct {
	TextureDesc
	esz    int // bytes per channel
	dims   [3]int
	nd     int
	layers int    // 1 when not layered; 6 faces × layers for a cube map
	layerB uint64 // bytes per layer (face)
	off    uint64 // offset of the level in Data (levels[k].off for level k)
	// levels are the mipmap levels (one for a texture that is not
	// mipmapped), each a Texture with its own extents and offset.
	levels []Texture
}

// CreateTexture makes a texture object and returns its handle (the value
// a kernel receives as cudaTextureObject_t).
func (d *Device) CreateTexture(desc TextureDesc) (uint64, error) {
	t := &Texture{TextureDesc: desc}
	switch desc.Format {
	case "u8", "s8":
		t.esz = 1
	case "u16", "s16", "f16":
		t.esz = 2
	case "u32", "s32", "f32":
		t.esz = 4
	default:
		return 0, fmt.Errorf("texture format %q is not supported (u8 s8 u16 s16 u32 s32 f16 f32)", desc.Format)
	}
	if desc.Channels == 0 {
		t.Channels = 1
	}
	if c := t.Channels; c != 1 && c != 2 && c != 4 {
		return 0, fmt.Errorf("texture channels must be 1, 2 or 4, not %d", c)
	}
	if len(desc.Dims) < 1 || len(desc.Dims) > 3 || desc.Linear && len(desc.Dims) != 1 {
		return 0, fmt.Errorf("texture dims %v: want 1 to 3 extents (1 for linear memory)", desc.Dims)
	}
	if desc.Layers < 0 || desc.Layers > 2048 || desc.Layers > 0 && (desc.Linear || len(desc.Dims) == 3) {
		return 0, fmt.Errorf("texture layers %d: want 0 (not layered) or 1 to 2048 layers of a 1D or 2D array", desc.Layers)
	}
	if desc.Cube && (len(desc.Dims) != 2 || desc.Dims[0] != desc.Dims[1] || desc.Linear) {
		return 0, fmt.Errorf("a cube map needs square faces, dims [w, w], not %v", desc.Dims)
	}
	if desc.Levels < 0 || desc.Levels > 17 || desc.Levels > 1 && desc.Linear {
		return 0, fmt.Errorf("texture levels %d: want 0 (not mipmapped) or 1 to 17 levels of a CUDA array", desc.Levels)
	}
	t.layers = max(1, desc.Layers)
	if desc.Cube {
		t.layers *= 6
		t.Normalized = true // a face is addressed by the projected direction, in [0, 1]
	}
	t.nd = len(desc.Dims)
	t.dims = [3]int{1, 1, 1}
	for i, x := range desc.Dims {
		if x <= 0 || x > 1<<16 && !desc.Linear {
			return 0, fmt.Errorf("texture extent %d is out of range", x)
		}
		t.dims[i] = x
	}
	nl := max(1, desc.Levels)
	if nl > 1 && max(t.dims[0], t.dims[1], t.dims[2])>>(nl-1) == 0 {
		return 0, fmt.Errorf("texture of %v texels has fewer than %d levels", desc.Dims, nl)
	}
	n := 0
	for k := 0; k < nl; k++ {
		lv := Texture{esz: t.esz, nd: t.nd, layers: t.layers, off: uint64(n)}
		b := t.esz * t.Channels
		for i := range lv.dims {
			lv.dims[i] = max(1, t.dims[i]>>k)
			b *= lv.dims[i]
		}
		lv.layerB = uint64(b)
		n += b * t.layers
		t.levels = append(t.levels, lv)
	}
	t.layerB = t.levels[0].layerB
	if len(desc.Data) < n {
		return 0, fmt.Errorf("texture of %v texels × %d layer(s) × %d channels of %s × %d level(s) needs %d bytes; its buffer has %d", desc.Dims, t.layers, t.Channels, desc.Format, nl, n, len(desc.Data))
	}
	if desc.ReadNorm && t.esz == 4 || desc.ReadNorm && desc.Format == "f16" {
		return 0, fmt.Errorf("normalized-float reads need an 8- or 16-bit integer format, not %s", desc.Format)
	}
	if desc.FilterLin && !desc.ReadNorm && desc.Format != "f32" && desc.Format != "f16" {
		return 0, fmt.Errorf("linear filtering needs a float format or normalized-float reads")
	}
	if !desc.Linear {
		t.Data = append([]byte(nil), desc.Data[:n]...)
	}
	if nl > 1 && !(desc.MinLOD <= desc.MaxLOD) {
		return 0, fmt.Errorf("texture level clamps: min %g is above max %g", desc.MinLOD, desc.MaxLOD)
	}
	for k := range t.levels {
		lv := &t.levels[k]
		lv.TextureDesc = t.TextureDesc
		lv.levels = nil
	}
	d.textures = append(d.textures, t)
	return uint64(len(d.textures)), nil
}

func (d *Device) texture(h uint64) *Texture {
	if h == 0 || h > uint64(len(d.textures)) {
		return nil
	}
	return d.textures[h-1]
}
