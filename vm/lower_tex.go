package vm

import "github.com/ptxvm/ptxvm/ptx"

// Texture geometries (Inst.Imm of OpTex).
const (
	geom1D = iota + 1
	geom2D
	geom3D
	geomA1D
	geomA2D
	geomCube
	geomACube
)

var geomNames = map[string]uint64{".1d": geom1D, ".2d": geom2D, ".3d": geom3D, ".a1d": geomA1D, ".a2d": geomA2D,
	".cube": geomCube, ".acube": geomACube}

// tex's mipmap forms (Inst.Imm bits 8-9): tex.level (B: the level of
// detail) and tex.grad (Inst.RegList: the gradients dPdx then dPdy, as many
// as the geometry has coordinates).
const (
	texLevel = 1 << 8
	texGrad  = 2 << 8
)

// texDims is the number of coordinates of a geometry besides the layer.
func texDims(g uint64) int {
	switch g {
	case geom1D, geomA1D:
		return 1
	case geom2D, geomA2D:
		return 2
	}
	return 3
}

// Texture queries (Inst.Imm of OpTxq).
var txqNames = map[string]uint64{".width": 0, ".height": 1, ".depth": 2, ".normalized_coords": 3, ".filter_mode": 4,
	".addr_mode_0": 5, ".addr_mode_1": 6, ".addr_mode_2": 7, ".num_mipmap_levels": 8, ".num_samples": 9,
	".array_size": txqArraySize, ".channel_data_type": txqChannelDataType, ".channel_order": txqChannelOrder,
	".force_unnormalized_coords": txqForceUnnorm}

// Texture queries beyond the first ten (Inst.Imm of OpTxq), and the flag
// of txq.level's per-level sizes (B: the level).
const (
	txqArraySize = iota + 10
	txqChannelDataType
	txqChannelOrder
	txqForceUnnorm

	txqLevel = 1 << 8
)

// lowerTex lowers tex, tld4 and txq.
func (l *fnLower) lowerTex(pi *ptx.Instruction, in *Inst, m *mods) bool {
	ops := pi.Operands
	if pi.Opcode == "txq" {
		level := m.take(".level")
		q, ok := takeOne(m, txqNames)
		n := 2
		if level {
			n = 3 // txq.level.{width,height,depth} d, [texture], lod
			ok = ok && q <= 2
		}
		if !ok || len(ops) != n || ops[1].Kind != ptx.OpAddress {
			l.errorf(pi.Pos, "txq needs a query (.width, .height, .depth, ...; .level.width with a level) and operands d, [texture]")
			return false
		}
		if q > 2 {
			// Recorded on the H200 (sm_90, driver 580), one query per
			// module: a kernel holding any other query does not load (its
			// launch fails with cudaErrorSymbolNotFound).
			l.errorf(pi.Pos, "txq%s: the GPU refuses to load a kernel that holds this query (sm_90: the launch fails with cudaErrorSymbolNotFound; only .width, .height, .depth and .level.width/.height/.depth load)", txqName(q))
			return false
		}
		in.Op, in.Imm = OpTxq, q
		in.D = l.dst(ops[0])
		in.A = l.texHandle(ops[1])
		if level {
			in.Imm |= txqLevel
			in.B = l.src(ops[2], S32)
		}
		return true
	}
	comp := int64(-1)
	if pi.Opcode == "tld4" {
		c, ok := takeOne(m, map[string]uint64{".r": 0, ".g": 1, ".b": 2, ".a": 3})
		if !ok {
			l.errorf(pi.Pos, "tld4 needs a component (.r, .g, .b, .a)")
			return false
		}
		comp = int64(c)
	}
	var mip uint64
	switch {
	case m.take(".level"):
		mip = texLevel
	case m.take(".grad"):
		mip = texGrad
	}
	g, ok := takeOne(m, geomNames)
	if !ok {
		l.errorf(pi.Pos, "%s: unsupported or missing geometry (1d, 2d, 3d, a1d, a2d, cube, acube)", pi.Opcode)
		return false
	}
	if pi.Opcode == "tld4" && mip != 0 || pi.Opcode == "tld4" && (g == geom1D || g == geom3D || g == geomA1D) {
		l.errorf(pi.Pos, "tld4 takes .2d, .a2d, .cube or .acube and no .level/.grad")
		return false
	}
	extra := 0
	switch mip {
	case texLevel:
		extra = 1
	case texGrad:
		extra = 2
	}
	if len(ops) == 2+extra && extra > 0 {
		if mip == texLevel {
			in.B = l.src(ops[2], F32)
		} else {
			var grads []int32
			for _, o := range ops[2:] {
				if o.Kind != ptx.OpVector || len(o.Elems) < texDims(g) {
					l.errorf(pi.Pos, "tex.grad takes two gradient vectors of %d elements", texDims(g))
					return false
				}
				for _, e := range o.Elems[:texDims(g)] {
					grads = append(grads, l.src(e, F32))
				}
			}
			l.setRegList(in, grads)
		}
		ops = ops[:2]
	} else if extra > 0 {
		l.errorf(pi.Pos, "tex%s takes {d0, d1, d2, d3}, [texture, {coordinates}], %s", map[uint64]string{texLevel: ".level", texGrad: ".grad"}[mip],
			map[uint64]string{texLevel: "lod", texGrad: "{dPdx}, {dPdy}"}[mip])
		return false
	}
	if m.vec != 4 || len(m.types) != 2 {
		l.errorf(pi.Pos, "%s needs .v4 and a destination and coordinate type", pi.Opcode)
		return false
	}
	if len(ops) != 2 || ops[0].Kind != ptx.OpVector || len(ops[0].Elems) != 4 || ops[1].Kind != ptx.OpAddress ||
		len(ops[1].Elems) != 1 || ops[1].Elems[0].Kind != ptx.OpVector {
		l.errorf(pi.Pos, "%s takes {d0, d1, d2, d3}, [texture, {coordinates}] (offsets and depth compares are not supported)", pi.Opcode)
		return false
	}
	if mip != 0 && m.types[1] != F32 {
		l.errorf(pi.Pos, "tex.level and tex.grad take .f32 coordinates")
		return false
	}
	in.Op, in.Imm = OpTex, g|mip
	in.T, in.T2 = m.types[0], m.types[1]
	in.Off = comp
	for i, e := range ops[0].Elems {
		in.V[i] = l.dst(e)
	}
	in.A = l.texHandle(ops[1])
	coords := ops[1].Elems[0].Elems
	for i := range in.W {
		in.W[i] = NoReg
	}
	for i, e := range coords {
		if i >= 4 {
			break
		}
		t := in.T2
		if i == 0 && (g == geomA1D || g == geomA2D || g == geomACube) {
			t = S32 // the array index
		}
		in.W[i] = l.src(e, t)
	}
	return true
}

func txqName(q uint64) string {
	for k, v := range txqNames {
		if v == q {
			return k
		}
	}
	return ""
}

func (l *fnLower) texHandle(o *ptx.Operand) int32 {
	if o.Name == "" || o.Int != 0 {
		l.errorf(o.Pos, "a texture operand must be a register holding a texture object")
		return 0
	}
	r, ok := l.reg(o.Name)
	if !ok || r.pred {
		l.errorf(o.Pos, "%s is not a register holding a texture object (texture references are not supported)", o.Name)
		return 0
	}
	return r.off
}
