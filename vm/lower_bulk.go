package vm

import (
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Lowering of the bulk asynchronous copies (exec_bulk.go executes them):
//
//	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
//	    [dst], [src], size, [mbar]{, ctaMask}{, policy}
//	cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
//	cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size{, policy}
//	cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type [dst], [src], size{, policy}
//	cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type [dst], [src], size, [mbar]
//	cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{.multicast::cluster}
//	    [dst], [tmap, {c0, ...}], [mbar]{, ctaMask}{, policy}
//	cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tmap, {c0, ...}], [src]{, policy}
//	cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group [tmap, {c0, ...}], [src]
//	cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read} N, cp.async.bulk.prefetch{.tensor}...
//
// An OpBulk holds Imm (Inst.Bulk: the kind, the tensor rank, the reduction,
// multicast), A the shared destination or source address (a tensor copy's
// shared address), B the other address (a tensor copy's tensor map), C the
// size (NoReg for tensor copies), V[0] the mbarrier address, V[1] the CTA
// mask of .multicast::cluster, T the reduction's type, Target the tensor
// coordinates (a register list). Every address is a register holding the
// whole address (an offset is added by an instruction before).
//
// The groups and prefetches lower to OpNop: a bulk copy lands when it is
// issued (exec_bulk.go), so there is nothing left to wait for.

// The kinds of OpBulk (Inst.Bulk).
const (
	BulkG2S         uint64 = iota // global -> shared::cluster, completes on an mbarrier
	BulkS2S                       // shared::cta -> shared::cluster, completes on an mbarrier
	BulkS2G                       // shared::cta -> global (bulk_group)
	BulkRedS2G                    // reduction shared::cta -> global (bulk_group)
	BulkRedS2S                    // reduction shared::cta -> shared::cluster, completes on an mbarrier
	BulkTensorLoad                // tensor tile global -> shared::cluster, mbarrier
	BulkTensorStore               // tensor tile shared::cta -> global (bulk_group)
	BulkTensorRed                 // tensor tile reduction shared::cta -> global (bulk_group)
)

// Bits of an OpBulk's Imm above the kind.
const (
	bulkKindMask  = 0xff
	bulkRankShift = 8  // tensor rank (1-5)
	bulkAtomShift = 16 // the reduction (atomAdd ...)
	BulkMulticast = 1 << 24
)

// Bulk returns an OpBulk's kind (BulkG2S ...), tensor rank and reduction
// (atomAdd ...), and whether it is .multicast::cluster.
func (in *Inst) Bulk() (kind uint64, rank int, red uint64, multicast bool) {
	return in.Imm & bulkKindMask, int(in.Imm >> bulkRankShift & 0xff), in.Imm >> bulkAtomShift & 0xff, in.Imm&BulkMulticast != 0
}

// bulkAddr lowers an address operand of a bulk copy to a register holding
// the whole address.
func (l *fnLower) bulkAddr(o *ptx.Operand, sp memspace.Space, in *Inst, pos ptx.Pos) int32 {
	t := newInst(OpNop)
	l.address64(o, sp, &t)
	switch {
	case t.Flags&FAbsAddr != 0:
		return l.constReg(uint64(t.Off))
	case t.Flags&FLocalRel != 0:
		l.errorf(o.Pos, "a bulk copy does not address .local memory")
		return l.constReg(0)
	case t.Off == 0:
		return t.A
	}
	r := l.newReg()
	add := newInst(OpAdd)
	add.T, add.D, add.A, add.B = U64, r, t.A, l.constReg(uint64(t.Off))
	add.Guard, add.GuardNeg = in.Guard, in.GuardNeg
	l.emit(add, pos)
	return r
}

// bulkSpaces returns the state spaces of a bulk copy's modifiers in order
// (destination first).
func bulkSpaces(pi *ptx.Instruction) []string {
	var s []string
	for _, m := range pi.Mods {
		switch m {
		case ".global", ".shared::cluster", ".shared::cta", ".shared":
			s = append(s, m)
		}
	}
	return s
}

// lowerBulk lowers cp{.reduce}.async.bulk*: the caller has taken .async
// and .bulk (and .reduce, when reduce).
func (l *fnLower) lowerBulk(pi *ptx.Instruction, in *Inst, m *mods, reduce bool) bool {
	ops := pi.Operands
	switch {
	case m.take(".commit_group"):
		in.Op, in.Imm = OpNop, NopAsyncGroup
		return l.noOperands(pi)
	case m.take(".wait_group"):
		m.take(".read")
		in.Op, in.Imm = OpNop, NopAsyncGroup
		if len(ops) != 1 || ops[0].Kind != ptx.OpInt || ops[0].Int < 0 {
			l.errorf(pi.Pos, "cp.async.bulk.wait_group takes one non-negative integer constant")
			return false
		}
		return true
	case m.take(".prefetch"):
		// An L2 prefetch: a hint.
		in.Op, in.Imm = OpNop, NopAsyncGroup
		m.rest, m.types = nil, nil
		return true
	}
	tensor := m.take(".tensor")
	rank := 0
	if tensor {
		for i, d := range []string{".1d", ".2d", ".3d", ".4d", ".5d"} {
			if m.take(d) {
				rank = i + 1
			}
		}
		if rank == 0 {
			l.errorf(pi.Pos, "cp.async.bulk.tensor needs a dimension (.1d to .5d)")
			return false
		}
		if hasMod(pi, ".im2col") || hasMod(pi, ".im2col_no_offs") || hasMod(pi, ".tile::gather4") || hasMod(pi, ".tile::scatter4") {
			l.errorf(pi.Pos, "%s%s: only the tile mode is supported (im2col and gather4/scatter4 are not)", pi.Opcode, joinMods(pi.Mods))
			return false
		}
		m.take(".tile")
	}
	var red uint64
	if reduce {
		var ok bool
		red, ok = takeOne(m, atomOps)
		if !ok || red == atomCas || red == atomExch {
			l.errorf(pi.Pos, "cp.reduce.async.bulk needs an operation (.add, .min, .max, .inc, .dec, .and, .or, .xor)")
			return false
		}
		// .noftz (required of f16/bf16 .add): the reductions keep
		// subnormals anyway (testdata/tma's red_add_f16, red_add_bf16).
		m.take(".noftz")
	}
	mbar := m.take(".mbarrier::complete_tx::bytes")
	group := m.take(".bulk_group")
	multicast := m.take(".multicast::cluster")
	sp := bulkSpaces(pi)
	if len(sp) != 2 {
		l.errorf(pi.Pos, "%s%s: name the destination and source state spaces", pi.Opcode, joinMods(pi.Mods))
		return false
	}
	dstShared, srcShared := strings.HasPrefix(sp[0], ".shared"), strings.HasPrefix(sp[1], ".shared")
	var kind uint64
	switch {
	case tensor && dstShared && sp[1] == ".global" && mbar && !reduce:
		kind = BulkTensorLoad
	case tensor && sp[0] == ".global" && srcShared && group && !reduce:
		kind = BulkTensorStore
	case tensor && sp[0] == ".global" && srcShared && group && reduce:
		kind = BulkTensorRed
	case !tensor && dstShared && sp[1] == ".global" && mbar && !reduce:
		kind = BulkG2S
	case !tensor && sp[0] == ".shared::cluster" && sp[1] == ".shared::cta" && mbar && !reduce:
		kind = BulkS2S
	case !tensor && sp[0] == ".global" && srcShared && group && !reduce:
		kind = BulkS2G
	case !tensor && sp[0] == ".global" && srcShared && group && reduce:
		kind = BulkRedS2G
	case !tensor && sp[0] == ".shared::cluster" && sp[1] == ".shared::cta" && mbar && reduce:
		kind = BulkRedS2S
	default:
		l.errorf(pi.Pos, "unsupported instruction %s%s (the bulk copies supported: global to shared::cluster and shared::cta to shared::cluster on an mbarrier, shared::cta to global in a bulk group, and their reductions)", pi.Opcode, joinMods(pi.Mods))
		return false
	}
	if multicast && kind != BulkG2S && kind != BulkTensorLoad {
		l.errorf(pi.Pos, ".multicast::cluster applies to copies from global memory into shared::cluster")
		return false
	}
	if m.cacheHint {
		if len(ops) == 0 {
			l.errorf(pi.Pos, "%s%s: .L2::cache_hint needs a cache-policy operand", pi.Opcode, joinMods(pi.Mods))
			return false
		}
		ops = ops[:len(ops)-1] // the cache policy: a hint
	}
	ni := newInst(OpBulk)
	ni.Guard, ni.GuardNeg = in.Guard, in.GuardNeg
	ni.Imm = kind | uint64(rank)<<bulkRankShift | red<<bulkAtomShift
	if multicast {
		ni.Imm |= BulkMulticast
	}
	if reduce {
		ni.T = m.typ(0)
		if len(m.types) != 1 && (kind == BulkRedS2G || kind == BulkRedS2S) {
			l.errorf(pi.Pos, "cp.reduce.async.bulk needs one type")
			return false
		}
	}
	m.types = nil
	want := map[uint64]int{BulkG2S: 4, BulkS2S: 4, BulkS2G: 3, BulkRedS2G: 3, BulkTensorLoad: 3, BulkTensorStore: 2, BulkTensorRed: 2, BulkRedS2S: 4}[kind]
	if multicast {
		want++
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "%s%s takes %d operands, found %d", pi.Opcode, joinMods(pi.Mods), want, len(ops))
		return false
	}
	switch kind {
	case BulkG2S, BulkS2S, BulkRedS2S:
		ni.A = l.bulkAddr(ops[0], memspace.Shared, in, pi.Pos)
		srcSp := memspace.Global
		if kind != BulkG2S {
			srcSp = memspace.Shared
		}
		ni.B = l.bulkAddr(ops[1], srcSp, in, pi.Pos)
		ni.C = l.src(ops[2], U32)
		ni.V[0] = l.bulkAddr(ops[3], memspace.Shared, in, pi.Pos)
		if multicast {
			ni.V[1] = l.src(ops[4], U16)
		}
	case BulkS2G, BulkRedS2G:
		ni.B = l.bulkAddr(ops[0], memspace.Global, in, pi.Pos)
		ni.A = l.bulkAddr(ops[1], memspace.Shared, in, pi.Pos)
		ni.C = l.src(ops[2], U32)
	case BulkTensorLoad:
		ni.A = l.bulkAddr(ops[0], memspace.Shared, in, pi.Pos)
		if !l.tensorOperand(ops[1], rank, &ni, in, pi.Pos) {
			return false
		}
		ni.V[0] = l.bulkAddr(ops[2], memspace.Shared, in, pi.Pos)
		if multicast {
			ni.V[1] = l.src(ops[3], U16)
		}
	case BulkTensorStore, BulkTensorRed:
		if !l.tensorOperand(ops[0], rank, &ni, in, pi.Pos) {
			return false
		}
		ni.A = l.bulkAddr(ops[1], memspace.Shared, in, pi.Pos)
	}
	*in = ni
	return true
}

// tensorOperand lowers [tmap, {c0, ...}]: B the tensor map's address (a
// generic or global address, or a parameter or global symbol), Target the
// coordinates (.s32).
func (l *fnLower) tensorOperand(o *ptx.Operand, rank int, ni, in *Inst, pos ptx.Pos) bool {
	if o.Kind != ptx.OpAddress || o.Name == "" || len(o.Elems) != 1 || o.Elems[0].Kind != ptx.OpVector {
		l.errorf(o.Pos, "a tensor operand is [tensorMap, {coordinates}]")
		return false
	}
	cs := o.Elems[0].Elems
	if len(cs) != rank {
		l.errorf(o.Pos, "a %dd tensor copy takes %d coordinates, found %d", rank, rank, len(cs))
		return false
	}
	if r, ok := l.reg(o.Name); ok && !r.pred {
		ni.B = r.off
	} else if v, ok := l.symAddr(o.Name, o.Pos, true); ok {
		ni.B = l.constReg(v) // a global variable holding the tensor map
	} else {
		l.errorf(o.Pos, "the tensor map %s: name it by a register holding its generic or global address", o.Name)
		return false
	}
	l.setRegList(ni, l.regOperands(nil, cs, false, S32))
	return true
}
