package vm

import "math"

// Mipmapped and cube-map sampling, as recorded on the H200 (sm_90; the
// cases are testdata/surfaces/cases/{lod,grad,cube}*):
//
//   - The level of detail is fixed point with 8 fractional bits: tex.level's
//     lod plus the texture's bias, truncated (⌊x·256⌋), then clamped to the
//     texture's level clamps and to [0, levels−1]. A NaN level of detail
//     reads as the lowest allowed.
//   - A point mipmap filter samples level (L+128)>>8; a linear one blends
//     level L>>8 with weight 256−(L&255) and the next with weight L&255,
//     each level's weight split among its texels as a 3D fetch splits z's
//     (sliceWeights), the texels of both levels one block-floating-point
//     group (filterFloat) with weights out of 256.
//   - Each level is sampled as a texture of its own extents, normalized
//     coordinates scaled by them.
//   - tex.grad's level of detail comes from the gradients (gradLOD,
//     cubeGradLOD); tld4 gathers from level 0 whatever the bias and clamps.

// lodFixed is the level of detail in 1/256 units for tex.level's lod.
func (t *Texture) lodFixed(lod float64) int {
	if len(t.levels) == 1 {
		return 0
	}
	x := lod + float64(t.LODBias)
	if x != x {
		x = math.Inf(-1)
	}
	// (Both bounds within the levels: a min_lod past the last level, even
	// +Inf, selects the last level, not a level past it.)
	last := float64(len(t.levels) - 1)
	lo := math.Min(math.Max(0, float64(t.MinLOD)), last)
	hi := math.Min(last, float64(t.MaxLOD))
	x = math.Max(math.Min(x, hi), lo)
	return int(math.Floor(x * 256))
}

// sampleLOD samples a (possibly mipmapped) texture at the fixed-point level
// of detail L (lodFixed).
func (t *Texture) sampleLOD(c [3]float64, layer int64, L int, gatherComp int, fp *texels) [4]uint32 {
	if len(t.levels) == 1 {
		return t.sampleLayer(c, layer, false, gatherComp, fp)
	}
	if gatherComp >= 0 {
		// tld4 gathers from level 0 whatever the bias and level clamps
		// (recorded: tld4mip2d_clamp, bias 1.5 and min_lod 1).
		return t.levels[0].sampleLayer(c, layer, false, gatherComp, fp)
	}
	last := len(t.levels) - 1
	if !t.MipLinear {
		return t.levels[min((L+128)>>8, last)].sampleLayer(c, layer, false, -1, fp)
	}
	k, f := L>>8, L&255
	if f == 0 || k >= last {
		return t.levels[min(k, last)].sampleLayer(c, layer, false, -1, fp)
	}
	var ft footprint
	l0, l1 := &t.levels[k], &t.levels[k+1]
	l0.footprint(c, l0.layerOffset(layer), 256-f, fp, &ft)
	l1.footprint(c, l1.layerOffset(layer), f, fp, &ft)
	return t.blend(&ft)
}

// layerOffset is the byte offset of a layer (face) of the level, the index
// unsigned and clamped to the last layer.
func (t *Texture) layerOffset(layer int64) uint64 {
	return min(uint64(uint32(layer)), uint64(t.layers)-1) * t.layerB
}

// cubeScaled is a direction's components scaled by the reciprocal of the
// largest magnitude, as the GPU scales them (MUFU.RCP, FMNMX: a NaN
// operand loses, then an f32 multiply each). A zero or infinite largest
// magnitude, or a NaN component, gives NaN products; the texture unit
// reads them as 0 (recorded: the zero vector, (inf, y, z) and (NaN, y, z)
// sample as if those components were 0; the zero vector reads the centre
// of +z).
func cubeScaled(v [3]float32) [3]float32 {
	m := fmnmx(fmnmx(abs32(v[0]), abs32(v[1])), abs32(v[2]))
	r := math.Float32frombits(approxF32(OpFRcp, math.Float32bits(m), 0, false, false))
	return [3]float32{nanZero(v[0] * r), nanZero(v[1] * r), nanZero(v[2] * r)}
}

// cubeFace projects a direction onto a cube map's face, as the GPU does it
// (recorded on the H200; ptxas expands tex.cube into this): the components
// are scaled by the reciprocal of the largest magnitude (MUFU.RCP, then an
// f32 multiply each); the face is the projected major axis (0 +x, 1 −x,
// 2 +y, 3 −y, 4 +z, 5 −z; ties go to z, then y), and its coordinates are
// (s+1)/2 and (t+1)/2 of the projected s, t (the CUDA programming guide's
// table of faces), exactly, without dividing by the projected major
// component (which may be a rounding away from 1).
func cubeFace(x, y, z float32) (face int, u, v float64) {
	w := cubeScaled([3]float32{x, y, z})
	x, y, z = w[0], w[1], w[2]
	ax, ay, az := abs32(x), abs32(y), abs32(z)
	var s, t float32
	switch {
	case az >= ay && az >= ax:
		if z >= 0 {
			face, s, t = 4, x, -y
		} else {
			face, s, t = 5, -x, -y
		}
	case ay >= ax:
		if y >= 0 {
			face, s, t = 2, x, z
		} else {
			face, s, t = 3, x, -z
		}
	default:
		if x >= 0 {
			face, s, t = 0, -z, -y
		} else {
			face, s, t = 1, z, -y
		}
	}
	return face, (float64(s) + 1) / 2, (float64(t) + 1) / 2
}

// cubeGradLOD is the fixed-point level of detail of tex.grad on a cube
// map. The driver's subroutine for it (ptxas calls
// __cuda_syscall_tex_grad_cube_*) gives the lanes of a quad the direction
// c, c+dx and c+dy (f32 additions), scales each by the reciprocal of its
// largest magnitude as tex.cube does, and fetches with implicit
// derivatives: the texture unit differences the quad's face coordinates.
// Where the three lanes fall on one face, their coordinates on it are
// differenced, scaled to texels (half the face's width per unit) and taken
// through gradLOD's rule. Where they do not, each lane is taken onto c's
// face (cubeLaneGrad) and the level comes from the two gradients' lengths
// alone, without the diagonals; a lane on the face opposite c's gives the
// largest level allowed (recorded: gradcubeprobe0-10, gradsweepcube_ll and
// its held-out inputs; projecting the lanes onto c's face instead, or
// keeping the diagonals, misses most of the quads that straddle faces).
func (t *Texture) cubeGradLOD(c [3]float64, in *Inst, f *frame, l int) int {
	regs := in.RegList(f.fn)
	p := [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
	var q1, q2 [3]float32
	for i := range p {
		q1[i] = p[i] + math.Float32frombits(uint32(f.r(regs[i])[l]))
		q2[i] = p[i] + math.Float32frombits(uint32(f.r(regs[3+i])[l]))
	}
	face, s0, t0 := cubeCoords(p)
	f1, _, _ := cubeFace(q1[0], q1[1], q1[2])
	f2, _, _ := cubeFace(q2[0], q2[1], q2[2])
	h := float64(t.dims[0]) / 2
	if f1 == face && f2 == face {
		var a, b [3]float64
		_, s1, t1 := cubeCoords(q1)
		_, s2, t2 := cubeCoords(q2)
		a[0], a[1] = (s1-s0)*h, (t1-t0)*h
		b[0], b[1] = (s2-s0)*h, (t2-t0)*h
		return t.lodFromGrads(a, b, 2, true)
	}
	a, ok1 := cubeLaneGrad(q1, f1, face, s0, t0, h)
	b, ok2 := cubeLaneGrad(q2, f2, face, s0, t0, h)
	if !ok1 || !ok2 {
		return t.lodFixed(math.Inf(1))
	}
	return t.lodFromGrads(a, b, 2, false)
}

// cubeLaneGrad is the texel-space gradient from c (on face f, at s0, t0)
// to a quad lane v whose own face is g, h texels per unit of face
// coordinate. On f itself it is the difference of the two projections. On
// a face adjacent to f, across their shared edge, the gradient's
// component across the edge is the sum of the two distances to the edge,
// each truncated to 10 significant bits: c's, 1 − |c's coordinate|, and
// the lane's on its own face, 1 − its scaled component along f's axis;
// the component along the edge is the difference of the lane's own
// coordinate (its scaled component along that axis) and c's (recorded:
// gradcubeprobe3-10, where c+dx crosses as its component along c's axis
// shrinks, all bit-exact only so; exact distances miss 649 of
// gradcubeprobe3's 4096, the lane's distance alone truncated 23 of the
// random gradcubeprobe4's). On the opposite face, ok is false: the GPU
// reads the largest level allowed (gradsweepcube_ll, two recorded quads).
func cubeLaneGrad(v [3]float32, g, f int, s0, t0, h float64) (a [3]float64, ok bool) {
	if g == f {
		_, s, t := cubeCoords(v)
		return [3]float64{(s - s0) * h, (t - t0) * h}, true
	}
	if g/2 == f/2 {
		return a, false
	}
	sv := cubeScaled(v)
	sc, tc, ma := faceComps([3]float64{float64(sv[0]), float64(sv[1]), float64(sv[2])}, f)
	// the axes of f's s and t: z and y on the x faces, x and z on the y
	// faces, x and y on the z faces; the lane's own face is along one
	sAxis := 0
	if f/2 == 0 {
		sAxis = 2
	}
	across, along, c0, p0 := tc, sc, t0, s0
	if g/2 == sAxis {
		across, along, c0, p0 = sc, tc, s0, t0
	}
	sg := math.Copysign(1, across)
	d := sg * (truncBits(1-ma, 9) + truncBits(1-sg*c0, 9)) * h
	e := (along - p0) * h
	if g/2 == sAxis {
		return [3]float64{d, e}, true
	}
	return [3]float64{e, d}, true
}

// cubeCoords is a direction's face and its coordinates on it, as the
// texture unit takes them for a quad's derivatives: the components scaled
// by the reciprocal of the largest magnitude (as cubeFace does) along the
// face's s and t axes, not divided by the scaled major component (which
// may be a rounding below 1: recorded, a lane of gradcubeprobe22's
// held-out inputs whose major component scales to 1 − 2^-24).
func cubeCoords(v [3]float32) (face int, s, t float64) {
	sv := cubeScaled(v)
	face, _, _ = cubeFace(v[0], v[1], v[2])
	s, t, _ = faceComps([3]float64{float64(sv[0]), float64(sv[1]), float64(sv[2])}, face)
	return face, s, t
}

// faceComps is a direction's components along face f's s and t axes and
// its major axis (the CUDA programming guide's table of cube map faces).
func faceComps(v [3]float64, f int) (sc, tc, ma float64) {
	x, y, z := v[0], v[1], v[2]
	switch f {
	case 0:
		return -z, -y, x
	case 1:
		return z, -y, -x
	case 2:
		return x, z, y
	case 3:
		return x, -z, -y
	case 4:
		return x, -y, z
	}
	return -x, -y, -z
}

// fmnmx is FMNMX's maximum: a NaN operand gives the other.
func fmnmx(a, b float32) float32 {
	if a != a || b > a {
		return b
	}
	return a
}

func nanZero(x float32) float32 {
	if x != x {
		return 0
	}
	return x
}

func abs32(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
}

// gradLOD is the fixed-point level of detail of tex.grad's gradients dx,
// dy (normalized coordinates; scaled to texels of level 0), as the texture
// unit computes it (recorded on the H200: testdata/surfaces/cases/grad*,
// gen/mip.cu's gradprobe and grad3dprobe sweeps; 3D gradients, which
// ptxas hands to a driver subroutine that issues an implicit-derivative
// fetch per quad lane, follow the same rule):
//
//   - each texel-space component is truncated to 10 significant bits;
//   - a vector's length is Graphics Gems' max + 11/32·mid + 1/4·min in
//     fixed point (gradLen): the largest magnitude, plus
//     ⌊(11·mid + 8·min + 4)/32⌋ in units of the middle magnitude's last bit;
//   - the two gradients also combine through the diagonals of their
//     parallelogram, dx ± dy (alignedAdd: the smaller component cut to one
//     bit below the larger one's last, the sum truncated to 10 bits), whose
//     length is taken with every weight times 11/16 (diagLen);
//   - ρ is the largest of the four lengths; log2 ρ is the exponent plus a
//     256-entry table indexed by the top 8 bits of the mantissa (lodLog2).
//
// Bit-exact on every recorded 2D and 3D probe (TestSurfacesGradLOD).
func (t *Texture) gradLOD(dx, dy []float32, c [3]float64) int {
	var a, b [3]float64
	nd := len(dx)
	for i := 0; i < nd; i++ {
		n := float64(t.dims[i])
		if nd == 3 {
			// the driver's quad: the lanes' coordinates c+dx, c+dy are f32
			// sums (recorded: gradients on a 1/256 grid, grad3dprobe10),
			// each pair held by the texture unit to one bit below the last
			// bit of the larger (pairFixed)
			l0, l1 := pairFixed(float32(c[i]), float32(c[i])+dx[i])
			m0, l2 := pairFixed(float32(c[i]), float32(c[i])+dy[i])
			a[i], b[i] = (l1-l0)*n, (l2-m0)*n
			continue
		}
		a[i], b[i] = float64(dx[i])*n, float64(dy[i])*n
	}
	return t.lodFromGrads(a, b, nd, true)
}

// pairFixed is two quad lanes' coordinates (c and c+dx, or c and c+dy;
// one dimension) as the texture unit differences them for implicit
// derivatives: in a block fixed point whose last bit is half the f32 last
// bit of the larger magnitude of the two, each truncated toward zero
// (recorded: 3D gradients of exact powers of two at random positions,
// grad3d_ll, grad3dconst_ll and grad3dprobe19-21 on three texture sizes,
// where the f32 sums c+dx round: the GPU's level follows the rounded sum
// where it lies half a last bit off and the exact gradient where it lies
// a quarter or 3/8 of one away. A fit, bit-exact on all 183,296 levels
// of detail of the 39 recorded constant-level 3D launches at O3, held-out
// inputs included, and on grad3d_ll's random-texture fetches; f32 sums
// alone miss 725 of those levels, one block over the three lanes c, c+dx,
// c+dy 42; gen/grad3d.py checks it on the raw recordings).
func pairFixed(l0, l1 float32) (float64, float64) {
	m := math.Max(math.Abs(float64(l0)), math.Abs(float64(l1)))
	if m == 0 || math.IsInf(m, 0) || m != m {
		return float64(l0), float64(l1)
	}
	_, e := math.Frexp(m)
	u := math.Ldexp(1, e-25)
	return math.Trunc(float64(l0)/u) * u, math.Trunc(float64(l1)/u) * u
}

// lodFromGrads is gradLOD's rule for texel-space gradients a, b of nd
// components, with their diagonals where diag is set.
func (t *Texture) lodFromGrads(a, b [3]float64, nd int, diag bool) int {
	var s, d [3]float64
	for i := 0; i < nd; i++ {
		a[i], b[i] = truncBits(a[i], 9), truncBits(b[i], 9)
	}
	for i := 0; i < nd; i++ {
		s[i], d[i] = alignedAdd(a[i], b[i]), alignedAdd(a[i], -b[i])
	}
	rho := math.Max(gradLen(a), gradLen(b))
	if diag {
		rho = math.Max(rho, math.Max(diagLen(s), diagLen(d)))
	}
	if rho == 0 || rho != rho || math.IsInf(rho, 0) {
		if math.IsInf(rho, 1) {
			return t.lodFixed(math.Inf(1))
		}
		return t.lodFixed(math.Inf(-1))
	}
	frac, exp := math.Frexp(rho) // rho = frac · 2^exp, frac in [0.5, 1)
	q := int(frac*512) - 256     // the top 8 bits of the mantissa
	return t.lodFixed(float64((exp-1)*256+int(lodLog2[q])) / 256)
}

// sortAbs returns the magnitudes of v largest first.
func sortAbs(v [3]float64) (x, y, z float64) {
	x, y, z = math.Abs(v[0]), math.Abs(v[1]), math.Abs(v[2])
	if x < y {
		x, y = y, x
	}
	if y < z {
		y, z = z, y
	}
	if x < y {
		x, y = y, x
	}
	return x, y, z
}

// sigBits splits x > 0 into a significand of k bits after the leading one
// (truncated) and the weight of its last bit: x ≈ s·2^p.
func sigBits(x float64, k int) (s float64, p int) {
	fr, e := math.Frexp(x)
	return math.Floor(math.Ldexp(fr, k+1)), e - k - 1
}

// gradLen is the texture unit's length of a gradient whose components are
// already truncated to 10 significant bits: the largest magnitude plus
// ⌊(11·mid + 8·min + 4)/32⌋ last bits of the middle one (min in those
// units, truncated, and cut to an even number of them once 11/32·mid needs
// ten bits above that last bit: min/4 lands on 11/32·mid's 10-bit grid).
func gradLen(v [3]float64) float64 {
	x, y, z := sortAbs(v)
	if y == 0 {
		return x
	}
	sm, p := sigBits(y, 9)
	mn := math.Floor(math.Ldexp(z, -p))
	if 11*sm >= 32*256 {
		// 11/32·mid is 256 or more of mid's last bits: min/4 is aligned to
		// its 10-bit grid, half a last bit (recorded: grad3dprobe3/10,
		// random single 3D vectors, all bit-exact only so)
		mn = 2 * math.Floor(mn/2)
	}
	return x + math.Ldexp(math.Floor((11*sm+8*mn+4)/32), p)
}

// alignedAdd is a component of a diagonal: a + b with the smaller
// magnitude truncated toward zero to half the larger one's last bit (of 10
// significant bits), the sum truncated to 10 significant bits (recorded:
// gradprobe38, dx + dy's minor component Y − e with e below Y's last bit,
// keeps Y for e up to 13/32 of that bit and loses a bit at 31/32; exact
// sums, a sum of the two truncated components, miss 134 of its 4096).
func alignedAdd(a, b float64) float64 {
	if math.Abs(a) < math.Abs(b) {
		a, b = b, a
	}
	if a == 0 || a != a || math.IsInf(a, 0) {
		return a + b
	}
	g := ulp10(a) / 2
	return truncBits(a+math.Trunc(b/g)*g, 9)
}

// ulp10 is the last bit of x > 0 held to 10 significant bits.
func ulp10(x float64) float64 {
	_, e := math.Frexp(math.Abs(x))
	return math.Ldexp(1, e-10)
}

// diagLen is the length of a diagonal dx ± dy (alignedAdd's components):
// max + 11/32·mid + 1/4·min with each weight times 11/16, a last bit's
// bias on each term and the first two truncated to 10 significant bits,
// in units of each magnitude's own last bit u: 11/16·max + u/4,
// 121/512·mid + u/16 and 11/64·min + u/16 (recorded: dx = dy sweeps over
// every 10-bit mid, gradprobe28-34 and 37, and the random pairs: every
// recorded 2D and 3D pair bit-exact; a bias of u/8 on mid misses 442).
func diagLen(v [3]float64) float64 {
	x, y, z := sortAbs(v)
	if x == 0 || x != x || math.IsInf(x, 0) {
		return x
	}
	r := truncBits(11*x/16+ulp10(x)/4, 9)
	if y != 0 {
		r += truncBits(121*y/512+ulp10(y)/16, 9)
	}
	if z != 0 {
		r += 11*z/64 + ulp10(z)/16
	}
	return r
}

// lodLog2 is the texture unit's log2 of a mantissa 1 + q/256, in 1/256
// (recorded exhaustively by gradprobe0: round(256·log2(1 + (q+0.47)/256)),
// 0 for q = 0, at most 255).
var lodLog2 = [256]uint8{
	0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22,
	23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 40, 42, 43,
	44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63,
	64, 65, 66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82,
	83, 84, 85, 86, 88, 89, 90, 91, 92, 93, 94, 95, 97, 98, 99, 100,
	101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115, 116, 117,
	118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133,
	135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149,
	150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164,
	165, 166, 167, 168, 169, 170, 171, 172, 173, 173, 174, 175, 176, 177, 178, 179,
	180, 181, 181, 182, 183, 184, 185, 186, 187, 188, 188, 189, 190, 191, 192, 193,
	194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204, 205, 205, 206,
	207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218, 219,
	220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232,
	233, 233, 234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244,
	245, 245, 246, 247, 248, 248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255,
}

// truncBits truncates x toward zero to k significant bits after the
// leading one.
func truncBits(x float64, k int) float64 {
	if x == 0 || math.IsInf(x, 0) || x != x {
		return x
	}
	fr, e := math.Frexp(x)
	return math.Ldexp(math.Trunc(math.Ldexp(fr, k+1)), e-k-1)
}

// extent is what txq.width/.height/.depth (dimension i) and their .level
// forms answer for level k, as recorded on the H200: the level's extent; a
// 1D texture's height is 1; the layer count (not × 6 for cube maps) stands
// in the first dimension past the texture's (a 1D layered texture's
// height, a 2D layered or cube-layered one's depth); other dimensions and
// levels the texture does not have are 0.
func (t *Texture) extent(i int, k int64) uint64 {
	if k < 0 || k >= int64(len(t.levels)) {
		return 0
	}
	lv := &t.levels[k]
	switch {
	case i < t.nd:
		return uint64(lv.dims[i])
	case i == t.nd && t.Layers > 0:
		return uint64(t.Layers)
	case i == 1 && t.nd == 1:
		return 1
	}
	return 0
}
