package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// lowerMapa lowers mapa{.shared::cluster}.{u32,u64} d, a, b: the address in
// the block of rank b of the byte at a (a shared::cta or shared::cluster
// address, or with no space a generic one). Space is Shared or Generic.
func (l *fnLower) lowerMapa(pi *ptx.Instruction, in *Inst, m *mods) bool {
	if !l.clusterAddrOp(pi, in, m, 3) {
		return false
	}
	in.Op = OpMapa
	ops := pi.Operands
	in.D = l.dst(ops[0])
	in.A = l.src(ops[1], in.T)
	in.B = l.src(ops[2], U32)
	return true
}

// lowerGetctarank lowers getctarank{.shared::cluster}.{u32,u64} d, a: the
// rank of the block whose shared memory address a is in (d is 32 bits).
func (l *fnLower) lowerGetctarank(pi *ptx.Instruction, in *Inst, m *mods) bool {
	if !l.clusterAddrOp(pi, in, m, 2) {
		return false
	}
	in.Op = OpGetctarank
	ops := pi.Operands
	in.D = l.dst(ops[0])
	in.A = l.src(ops[1], in.T)
	return true
}

// clusterAddrOp checks what mapa and getctarank share: n operands, an
// optional .shared::cluster and the type .u32 or .u64.
func (l *fnLower) clusterAddrOp(pi *ptx.Instruction, in *Inst, m *mods, n int) bool {
	if len(pi.Operands) != n {
		l.errorf(pi.Pos, "%s takes %d operands, found %d", pi.Opcode, n, len(pi.Operands))
		return false
	}
	in.Space = memspace.Generic
	if m.hasSpace {
		if !hasMod(pi, ".shared::cluster") {
			l.errorf(pi.Pos, "%s takes the space .shared::cluster or none (generic addresses)", pi.Opcode)
			return false
		}
		in.Space = memspace.Shared
	}
	switch t := m.typ(0); t {
	case U32, U64:
		in.T = t
	default:
		l.errorf(pi.Pos, "%s needs the type .u32 or .u64", pi.Opcode)
		return false
	}
	return true
}

// lowerBarCluster lowers barrier.cluster.arrive{.release,.relaxed}{.aligned}
// and barrier.cluster.wait{.acquire}{.aligned}. The memory orders change
// nothing here (every access is visible at once); .aligned promises that
// the warp's lanes execute it together.
func (l *fnLower) lowerBarCluster(pi *ptx.Instruction, in *Inst, m *mods) bool {
	in.Op = OpBarCluster
	switch {
	case m.take(".arrive"):
		in.Flags |= FArrive
	case m.take(".wait"):
	default:
		l.errorf(pi.Pos, "barrier.cluster needs .arrive or .wait")
		return false
	}
	if len(pi.Operands) != 0 {
		l.errorf(pi.Pos, "barrier.cluster takes no operands, found %d", len(pi.Operands))
		return false
	}
	return true
}
