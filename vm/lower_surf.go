package vm

import "github.com/ptxvm/ptxvm/ptx"

// Surface instructions' immediate (Inst.Imm of OpSuld, OpSust, OpSured):
// bits 0-7 the geometry (geom1D ...), bits 8-15 the boundary mode
// (SurfTrap, SurfClamp, SurfZero), bit 16 the formatted (.p) form, bits
// 24-31 sured's operation (atomAdd ...). Inst.SurfGeom and friends read it.
const surfFormatted = 1 << 16

var surfGeomNames = map[string]uint64{".1d": geom1D, ".2d": geom2D, ".3d": geom3D, ".a1d": geomA1D, ".a2d": geomA2D}

var surfModes = map[string]uint64{".trap": SurfTrap, ".clamp": SurfClamp, ".zero": SurfZero}

// Surface queries (Inst.Imm of OpSuq).
const (
	suqWidth = iota
	suqHeight
	suqDepth
	suqChannelDataType
	suqChannelOrder
	suqArraySize
	suqMemoryLayout
)

var suqNames = map[string]uint64{".width": suqWidth, ".height": suqHeight, ".depth": suqDepth,
	".channel_data_type": suqChannelDataType, ".channel_order": suqChannelOrder, ".array_size": suqArraySize,
	".memory_layout": suqMemoryLayout}

func suqName(q uint64) string {
	for k, v := range suqNames {
		if v == q {
			return k
		}
	}
	return ""
}

var suredOps = map[string]uint64{".add": atomAdd, ".min": atomMin, ".max": atomMax, ".and": atomAnd, ".or": atomOr}

// SurfGeom is the geometry of a surface instruction (1D, 2D, 3D, a1d, a2d).
func (in *Inst) SurfGeom() int { return int(in.Imm & 0xff) }

// SurfMode is the boundary mode of a surface instruction (SurfTrap ...).
func (in *Inst) SurfMode() int { return int(in.Imm >> 8 & 0xff) }

// SurfFormatted reports the formatted (.p) form of sust and sured, whose x
// coordinate counts elements rather than bytes.
func (in *Inst) SurfFormatted() bool { return in.Imm&surfFormatted != 0 }

// surfCoords is the number of coordinates a geometry reads (the layer
// first for a1d/a2d), and the number of elements its vector has (3D and
// a2d take a 4-vector whose last element is ignored).
func surfCoords(g uint64) (n, vec int) {
	switch g {
	case geom1D:
		return 1, 1
	case geom2D, geomA1D:
		return 2, 2
	}
	return 3, 4
}

// lowerSurf lowers suld, sust, sured and suq.
func (l *fnLower) lowerSurf(pi *ptx.Instruction, in *Inst, m *mods) bool {
	ops := pi.Operands
	if pi.Opcode == "suq" {
		q, ok := takeOne(m, suqNames)
		if !ok || len(ops) != 2 || ops[1].Kind != ptx.OpAddress || len(ops[1].Elems) != 0 {
			l.errorf(pi.Pos, "suq needs a query (.width, .height, .depth, .channel_data_type, .channel_order, .array_size, .memory_layout) and operands d, [surface]")
			return false
		}
		if q >= suqChannelDataType {
			// Recorded on the H200 (sm_90, driver 580), one query per
			// module: a module holding any of these fails to load as a
			// whole (cuModuleLoad: CUDA_ERROR_NOT_SUPPORTED), so every
			// kernel of it fails to launch.
			l.errorf(pi.Pos, "suq%s: the GPU refuses to load a module that holds this query (sm_90: CUDA_ERROR_NOT_SUPPORTED at module load; only .width, .height and .depth load)", suqName(q))
			return false
		}
		in.Op, in.Imm = OpSuq, q
		in.D = l.dst(ops[0])
		in.A = l.surfHandle(ops[1])
		return true
	}
	formatted := false
	switch {
	case m.take(".p"):
		formatted = true
	case m.take(".b"):
	default:
		l.errorf(pi.Pos, "%s needs .b (binary) or .p (formatted)", pi.Opcode)
		return false
	}
	var op uint64
	if pi.Opcode == "sured" {
		o, ok := takeOne(m, suredOps)
		if !ok {
			l.errorf(pi.Pos, "sured needs an operation (.add, .min, .max, .and, .or)")
			return false
		}
		op = o
	}
	g, ok := takeOne(m, surfGeomNames)
	if !ok {
		l.errorf(pi.Pos, "%s: unsupported or missing geometry (1d, 2d, 3d, a1d, a2d)", pi.Opcode)
		return false
	}
	mode, ok := takeOne(m, surfModes)
	if !ok {
		mode = SurfTrap
	}
	if len(m.types) != 1 {
		l.errorf(pi.Pos, "%s needs one data type", pi.Opcode)
		return false
	}
	t := m.types[0]
	vec := max(1, m.vec)
	in.Imm = g | mode<<8 | op<<24
	if formatted {
		in.Imm |= surfFormatted
	}
	in.T, in.Vec = t, uint8(vec)
	switch pi.Opcode {
	case "suld":
		if formatted {
			l.errorf(pi.Pos, "suld.p is not supported (PTX has only suld.b)")
			return false
		}
		in.Op = OpSuld
	case "sust":
		in.Op = OpSust
		if formatted && t != B32 {
			l.errorf(pi.Pos, "sust.p stores .b32 values")
			return false
		}
	default:
		in.Op = OpSured
		if vec != 1 {
			l.errorf(pi.Pos, "sured takes one value")
			return false
		}
	}
	if in.Op != OpSured {
		switch t {
		case B8, B16, B32, B64:
		default:
			l.errorf(pi.Pos, "%s: the data type must be .b8, .b16, .b32 or .b64", pi.Opcode)
			return false
		}
		if vec != 1 && vec != 2 && vec != 4 || vec == 4 && t == B64 {
			l.errorf(pi.Pos, "%s: .v2 and .v4 of .b8/.b16/.b32 and .v2 of .b64 are the vector forms", pi.Opcode)
			return false
		}
	} else {
		switch t {
		case U32, S32, B32, U64, S64, B64:
		default:
			l.errorf(pi.Pos, "sured: the type must be .u32, .s32, .b32, .u64, .s64 or .b64")
			return false
		}
		if formatted && t != B32 && t != B64 {
			l.errorf(pi.Pos, "sured.p takes .b32 or .b64 (the surface's format says how to read them)")
			return false
		}
		if !formatted && (op == atomAnd || op == atomOr) != (t == B32 || t == B64) {
			l.errorf(pi.Pos, "sured: .and and .or take .b32/.b64, .add/.min/.max .u32/.s32/.u64/.s64")
			return false
		}
	}
	// Operands: suld d, [a, b]; sust/sured [a, b], c.
	if len(ops) != 2 {
		l.errorf(pi.Pos, "%s takes two operands", pi.Opcode)
		return false
	}
	addr, data := ops[1], ops[0]
	if in.Op != OpSuld {
		addr, data = ops[0], ops[1]
	}
	if addr.Kind != ptx.OpAddress || len(addr.Elems) != 1 {
		l.errorf(addr.Pos, "%s: the surface operand is [surface, coordinates]", pi.Opcode)
		return false
	}
	in.A = l.surfHandle(addr)
	n, nv := surfCoords(g)
	coords := []*ptx.Operand{addr.Elems[0]}
	if c := addr.Elems[0]; c.Kind == ptx.OpVector {
		coords = c.Elems
	}
	if len(coords) != nv && !(nv == 1 && len(coords) == 1) {
		l.errorf(addr.Pos, "%s: %d coordinates for this geometry, not %d", pi.Opcode, nv, len(coords))
		return false
	}
	for i := range in.W {
		in.W[i] = NoReg
	}
	for i := 0; i < n; i++ {
		in.W[i] = l.src(coords[i], S32)
	}
	vals := []*ptx.Operand{data}
	if data.Kind == ptx.OpVector {
		vals = data.Elems
	}
	if len(vals) != vec {
		l.errorf(data.Pos, "%s: %d values for .v%d, not %d", pi.Opcode, vec, vec, len(vals))
		return false
	}
	for i, v := range vals {
		switch in.Op {
		case OpSuld:
			in.V[i] = l.dst(v)
		case OpSust:
			in.V[i] = l.src(v, t)
		default:
			in.B = l.src(v, t)
		}
	}
	return true
}

func (l *fnLower) surfHandle(o *ptx.Operand) int32 {
	if o.Name == "" || o.Int != 0 {
		l.errorf(o.Pos, "a surface operand must be a register holding a surface object")
		return 0
	}
	r, ok := l.reg(o.Name)
	if !ok || r.pred {
		l.errorf(o.Pos, "%s is not a register holding a surface object (surface references are not supported)", o.Name)
		return 0
	}
	return r.off
}
