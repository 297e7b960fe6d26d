package vm

import (
	"fmt"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Symbol is a module-scope variable.
type Symbol struct {
	Name  string
	Space memspace.Space
	// Addr is the variable's address in its own space: a device address for
	// .global, an offset in the module's constant bank for .const. Shared
	// variables are placed per kernel (Kernel.SharedOffset).
	Addr    uint64
	Size    uint64
	Align   uint64
	Type    Type
	Extern  bool // .extern (dynamic shared memory when Space is Shared and unsized)
	Decl    *ptx.VarDecl
	Alloc   *memspace.Allocation
	Dynamic bool // extern unsized .shared: the dynamic shared memory
}

// SrcLoc is a CUDA source position from a .loc directive.
type SrcLoc struct {
	File   string
	Line   int
	Column int
}

func (l SrcLoc) String() string {
	if l.Column > 0 {
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// ParamSlot is one parameter's place in a parameter block.
type ParamSlot struct {
	Name   string
	Offset uint64
	Size   uint64
	Align  uint64
	Type   Type
	Array  int // -1 scalar
	// InReg marks a .func parameter or return value declared .reg: it
	// lives in the callee's register Reg (an offset), not in the
	// parameter block.
	InReg bool
	Reg   int32
}

// paramCopy moves one call argument or return value between frames.
type paramCopy struct {
	from, to uint64
	size     uint64
}

// regCopy moves one .reg argument or return value, or one element of a
// vector (.reg .v2 .u32) or .b128 one, between frames: from and to are
// register offsets (while lowering, the callee's side holds the
// parameter's position until linkCalls, which adds elem registers).
type regCopy struct{ from, to, elem int32 }

// predCopy moves one .reg .pred argument or return value between frames:
// from and to are predicate indexes (the callee's side as regCopy's); neg
// passes the argument negated (`call f, (!%p)`).
type predCopy struct {
	from, to int32
	neg      bool
}

// CallSite is a lowered call instruction.
type CallSite struct {
	Callee *Func
	Args   []paramCopy // caller frame param offset -> callee frame param offset
	Rets   []paramCopy // callee frame param offset -> caller frame param offset
	// RegArgs and RegRets are the arguments and return values of a callee
	// whose parameters are registers (.reg): caller register (or
	// constant) -> callee register, and back.
	RegArgs []regCopy
	RegRets []regCopy
	// PredArgs and PredRets are the .reg .pred ones.
	PredArgs []predCopy
	PredRets []predCopy
	// Indirect: a call through register Reg (call %r, (args), prototype),
	// whose Callee is nil: Targets[i] is the call as it is made to the
	// kernel's function i (Kernel.Funcs) when Reg holds that function's
	// address (Func.Addr), linked; Callee nil where function i's address is
	// never taken or its parameters are not the prototype's.
	Indirect bool
	Reg      int32
	Targets  []CallSite
}

// callees returns the functions the call may call: its Callee, or an
// indirect call's targets.
func (cs *CallSite) callees() []*Func {
	if !cs.Indirect {
		return []*Func{cs.Callee}
	}
	var out []*Func
	for i := range cs.Targets {
		if c := cs.Targets[i].Callee; c != nil {
			out = append(out, c)
		}
	}
	return out
}

// FuncAddrBase is the address of a kernel's first function, as a mov of a
// function's name gives it (function i is at FuncAddrBase + 16·i): no
// memory is there, so a load through a function pointer faults.
const FuncAddrBase = 0xffff_f000_0000_0000

// funcIndex returns the index of the function at address a, or -1.
func (k *Kernel) funcIndex(a uint64) int {
	if a < FuncAddrBase || (a-FuncAddrBase)%16 != 0 || (a-FuncAddrBase)/16 >= uint64(len(k.Funcs)) {
		return -1
	}
	return int((a - FuncAddrBase) / 16)
}

// AssertSite is a call of __assertfail(message, file, line, function,
// charSize), which nvcc emits for a failing assert(): where its arguments
// are in the caller's per-lane parameter block (the call sequence's .param
// variables), or -1 for one not passed as such.
type AssertSite struct {
	Message, File, Line, Function int64
}

// sregUse says that a function reads a special register through register Reg.
type sregUse struct {
	id  sreg
	reg int32 // register offset
}

// sharedSymUse says that a function reads shared address val (a shared
// variable's) through register reg: in a block of a cluster, its slot of
// the shared::cluster window is added when a frame starts.
type sharedSymUse struct {
	val uint64
	reg int32 // register offset
}

// Func is a lowered function (or the entry of a kernel).
type Func struct {
	Name  string
	Entry bool
	Code  []Inst
	// Info describes Code[pc] for a timing model, a memory model or a
	// report (class, registers read and written, cache operators, source
	// lines); the interpreter does not read it on its hot path.
	Info []InstInfo
	// Base is the kernel-wide id of Code[0]: Info[pc].ID == Base+pc.
	Base    int32
	Locs    []SrcLoc
	NumRegs int32 // registers, including constants and special registers
	NumPred int32
	init    [][32]uint64 // register file template: constants filled in
	// lay is where the registers live in a frame (layout.go), computed
	// for Code when the kernel is linked; ident is one slot per register.
	lay, ident *layout
	sregs      []sregUse
	// sharedSyms are the registers holding shared variables' addresses
	sharedSyms []sharedSymUse
	// Per-lane function parameter block (callee params, return values and
	// the call-site .param variables of the body).
	ParamBlock uint64
	Params     []ParamSlot
	Rets       []ParamSlot
	LocalSize  uint64 // this activation's local depot
	LocalAlign uint64
	Calls      []CallSite
	// Asserts are the call sites of __assertfail, the CUDA runtime's
	// device-side assert (OpTrap with Imm = index + 1).
	Asserts []AssertSite
	// Addr is the function's address (FuncAddrBase + 16·its index in
	// Kernel.Funcs); AddrTaken says some code of the kernel takes it.
	Addr      uint64
	AddrTaken bool
	BrxTables [][]int32    // brx.idx target PCs
	RegLists  [][]int32    // register lists of vector atomics (destinations, then values)
	RegCount  map[Type]int // declared registers by type, for reports
	ast       *ptx.Function
	truePred  int32 // a predicate that is always true (literal 1 operands)
	hasTrue   bool
	// ordersBlocks, ordersWarps: an instruction that can order memory
	// accesses between blocks, or between warps (orders), found at
	// lowering (Kernel.BlocksCommunicate, WarpsCommunicate).
	ordersBlocks, ordersWarps bool
}

// InitValue is what register r (an index, as InstInfo lists registers)
// holds in every lane when the function starts: the value of a constant
// the lowering made a register of, 0 for any other register.
func (f *Func) InitValue(r int32) uint64 {
	if r >= 0 && int(r) < len(f.init) {
		return f.init[r][0]
	}
	return 0
}

// Kernel is an entry lowered together with every function it can call, with
// the shared-memory layout of that kernel.
type Kernel struct {
	Name   string
	Module *Module
	Entry  *Func
	Funcs  []*Func
	Params []ParamSlot
	// ParamSize is the size of the kernel parameter buffer.
	ParamSize uint64
	// SharedStatic is the static shared memory of the kernel (bytes,
	// placed from SharedReserved on); dynamic shared memory starts at
	// shared address DynamicBase.
	SharedStatic uint64
	DynamicBase  uint64
	sharedOff    map[*Symbol]uint64
	// Insts lists every instruction of the kernel (the entry and the
	// functions it can call) by kernel-wide id.
	Insts     []*InstInfo
	UsesCalls bool
	Perf      map[string][]int64
	// sregsUsed has bit s set when a function of the kernel reads special
	// register s: a block's warps fill only those (initForCTA).
	sregsUsed uint64
	// interact: an atom or red in global or generic space (BlocksInteract),
	// found at lowering.
	interact bool
	// communicate: interact, or an instruction orders finds
	// (BlocksCommunicate); warps: the same within a block
	// (WarpsCommunicate).
	communicate, warps bool
}

// BlocksInteract reports whether the kernel's blocks can change one
// another's results through atomics in global memory: an atom or red
// whose state space is global or generic (one that may be global). Their
// results then depend on the order the blocks' atomics reach memory: the
// final sum of a float atomicAdd, the values atomics return, and the
// work of a compare-and-swap loop. A scheduler that runs blocks on several
// host goroutines would make those depend on thread timing (a cluster's
// blocks run together on one goroutine, so .shared::cluster atomics do
// not count).
func (k *Kernel) BlocksInteract() bool { return k.interact }

// BlocksCommunicate reports whether the kernel has an instruction through
// which its blocks can order their memory accesses with respect to one
// another's (the PTX memory model's synchronisation between blocks): the
// atomics of BlocksInteract, a volatile or strong (.relaxed, .acquire,
// .release, .acq_rel, .sc, .mmio) access outside a block's own spaces,
// or a membar or fence of a scope wider than the block (a fence without
// a scope, fence.proxy for one, counts too). A kernel without any still
// lets a block read what another writes, but only through data races:
// nothing makes one block wait for another, and every order of its
// blocks is an execution the GPU may give. A scheduler may then run the
// blocks of an SM one after another instead of interleaved (the
// functional mode does where nothing watches, scheduler.RunFunctional);
// for a kernel that does communicate, a block that waits for another
// (a flag spun on with ld.volatile) needs the other to run beside it.
func (k *Kernel) BlocksCommunicate() bool { return k.communicate }

// WarpsCommunicate reports whether the warps of a block can order their
// memory accesses with respect to one another's other than at a barrier
// (bar.sync and its forms): what BlocksCommunicate finds, or an atomic
// in any space, a volatile or strong access to shared memory, a fence or
// membar of any scope, an mbarrier (and the bulk copies that complete on
// one), or barrier.cluster. Without any, warps pass values to one another
// only across barriers or through data races, and every interleaving of
// the warps between barriers is an execution the GPU may give: a
// scheduler may let each warp run longer before the next takes its turn
// (the functional mode does where nothing watches,
// scheduler.RunFunctional).
func (k *Kernel) WarpsCommunicate() bool { return k.warps }

// orders reports whether instruction pi can order memory accesses between
// blocks (BlocksCommunicate) and between the warps of a block
// (WarpsCommunicate), atomics and the other operations finishInfo finds
// aside: a membar or fence (between blocks: one whose scope is not .cta),
// or a load or store (or another instruction) qualified volatile or
// strong whose state space is shared by other threads (between blocks:
// neither a block's own shared memory nor the scope .cta).
func orders(pi *ptx.Instruction) (blocks, warps bool) {
	cta, thread, strong := false, false, false
	for _, m := range pi.Mods {
		switch m {
		case ".cta", ".shared", ".shared::cta":
			cta = true
		case ".local", ".param", ".param::entry", ".param::func", ".const":
			thread = true
		case ".volatile", ".relaxed", ".acquire", ".release", ".acq_rel", ".sc", ".mmio":
			strong = true
		}
	}
	switch pi.Opcode {
	case "membar", "fence":
		return !cta, true
	}
	return strong && !cta && !thread, strong && !thread
}

// Debug reports whether the kernel's module was compiled for debugging
// (nvcc -G: ".target ... debug"), whose machine code ptxas does not
// optimise.
func (k *Kernel) Debug() bool {
	if k.Module == nil || k.Module.AST == nil {
		return false
	}
	for _, t := range k.Module.AST.Target {
		if t == "debug" {
			return true
		}
	}
	return false
}

// finishInfo numbers the instructions of every function of the kernel and
// computes their classes and operand sets.
func (k *Kernel) finishInfo() {
	var id int32
	for _, f := range k.Funcs {
		for _, u := range f.sregs {
			k.sregsUsed |= 1 << u.id
		}
		k.communicate = k.communicate || f.ordersBlocks
		k.warps = k.warps || f.ordersWarps || f.ordersBlocks
		f.Base = id
		for pc := range f.Code {
			in, info := &f.Code[pc], &f.Info[pc]
			info.ID, info.Func, info.PC = id, f, int32(pc)
			info.Class = classify(in)
			info.Space = memspace.Global
			if info.Class.Memory() {
				info.Space = in.Space
				if info.Class == ClassTexture {
					info.Space = memspace.Texture
				}
			}
			info.Reads, info.Writes = operandSets(in, f)
			if in.Op == OpAtom && (info.Space == memspace.Global || info.Space == memspace.Generic) {
				k.interact, k.communicate = true, true
			}
			switch in.Op {
			case OpAtom, OpMbarrier, OpMbarPendingCount, OpBulk, OpBarCluster:
				k.warps = true
			}
			k.Insts = append(k.Insts, info)
			id++
		}
	}
}

// SharedOffset is the offset of a module-scope shared variable in this
// kernel's shared memory.
func (k *Kernel) SharedOffset(s *Symbol) (uint64, bool) {
	o, ok := k.sharedOff[s]
	return o, ok
}

// sreg identifies a special register.
type sreg uint8

const (
	srTidX sreg = iota
	srTidY
	srTidZ
	srNtidX
	srNtidY
	srNtidZ
	srCtaidX
	srCtaidY
	srCtaidZ
	srNctaidX
	srNctaidY
	srNctaidZ
	srLaneid
	srWarpid
	srNwarpid
	srSmid
	srNsmid
	srGridid
	srLanemaskEq
	srLanemaskLe
	srLanemaskLt
	srLanemaskGe
	srLanemaskGt
	srDynSmem
	srTotalSmem
	srZero // %envregN and other registers that read as 0 here
	srOne  // registers that read as 1 here
	// clusters (cluster.go); srExplicitCluster is %is_explicit_cluster as
	// 0 or 1 (mov.pred reads it through a compare)
	srClusterCtaidX
	srClusterCtaidY
	srClusterCtaidZ
	srClusterNctaidX
	srClusterNctaidY
	srClusterNctaidZ
	srClusteridX
	srClusteridY
	srClusteridZ
	srNclusteridX
	srNclusteridY
	srNclusteridZ
	srClusterRank
	srClusterNrank
	srExplicitCluster
	// The reserved shared memory (sm_90) that cooperative groups use:
	// placed after the kernel's own shared memory.
	srResBegin
	srResEnd
	srResCap
	srRes0
	srRes1
	numSregs
)

var sregNames = map[string]sreg{
	"%tid.x": srTidX, "%tid.y": srTidY, "%tid.z": srTidZ,
	"%ntid.x": srNtidX, "%ntid.y": srNtidY, "%ntid.z": srNtidZ,
	"%ctaid.x": srCtaidX, "%ctaid.y": srCtaidY, "%ctaid.z": srCtaidZ,
	"%nctaid.x": srNctaidX, "%nctaid.y": srNctaidY, "%nctaid.z": srNctaidZ,
	"%laneid": srLaneid, "%warpid": srWarpid, "%nwarpid": srNwarpid,
	"%smid": srSmid, "%nsmid": srNsmid, "%gridid": srGridid,
	"%lanemask_eq": srLanemaskEq, "%lanemask_le": srLanemaskLe, "%lanemask_lt": srLanemaskLt,
	"%lanemask_ge": srLanemaskGe, "%lanemask_gt": srLanemaskGt,
	"%dynamic_smem_size": srDynSmem, "%total_smem_size": srTotalSmem,
	"%clusterid.x": srClusteridX, "%clusterid.y": srClusteridY, "%clusterid.z": srClusteridZ,
	"%nclusterid.x": srNclusteridX, "%nclusterid.y": srNclusteridY, "%nclusterid.z": srNclusteridZ,
	"%cluster_ctarank": srClusterRank, "%cluster_nctarank": srClusterNrank,
	"%cluster_ctaid.x": srClusterCtaidX, "%cluster_ctaid.y": srClusterCtaidY, "%cluster_ctaid.z": srClusterCtaidZ,
	"%cluster_nctaid.x": srClusterNctaidX, "%cluster_nctaid.y": srClusterNctaidY, "%cluster_nctaid.z": srClusterNctaidZ,
	"%reserved_smem_offset_begin": srResBegin, "%reserved_smem_offset_end": srResEnd,
	"%reserved_smem_offset_cap": srResCap, "%reserved_smem_offset_0": srRes0, "%reserved_smem_offset_1": srRes1,
}

// SharedReserved is the shared address of a block's first variable: on
// sm_90 ptxas places shared memory from 0x400 on (its SASS adds 0x400 to
// the block's slot of the shared::cluster window, and the H100's mapa
// returns such addresses: testdata/clusters), the first KiB being the
// system's. Kernel.DynamicBase and the reserved window are above it.
const SharedReserved = 0x400

// ReservedShared is the reserved shared memory every CTA gets after its
// own (the region %reserved_smem_offset_* point into).
const ReservedShared = 64

// Clock kinds for OpClock (Inst.Imm).
const (
	clock32 = iota
	clock64
	globaltimer
	globaltimerLo
	globaltimerHi
)

var clockNames = map[string]uint64{
	"%clock": clock32, "%clock64": clock64, "%globaltimer": globaltimer,
	"%globaltimer_lo": globaltimerLo, "%globaltimer_hi": globaltimerHi,
}
