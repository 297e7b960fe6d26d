package vm

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// regInfo describes a declared register.
type regInfo struct {
	off  int32 // register offset (index*32), or predicate index
	t    Type
	pred bool
	vec  int // 2 or 4 for a vector register (.reg .v4 .f32 %v): elements in consecutive registers from off
}

// localSym is a name declared inside a function body or its header.
type localSym struct {
	space memspace.Space // Local (frame depot), FParam (frame param block), Shared (kernel layout), Param (kernel params)
	off   uint64
	size  uint64
	t     Type
}

type fixup struct {
	pc    int
	label string
	pos   ptx.Pos
}

type brxFix struct {
	table int
	list  string
	pos   ptx.Pos
}

// fnLower lowers one function's body.
type fnLower struct {
	funcs     map[string]*Func // the kernel's functions (pass 2)
	k         *Kernel
	m         *Module
	f         *Func
	fn        *ptx.Function
	regs      map[string]regInfo   // function-scope registers
	regScopes []map[string]regInfo // registers of enclosing nested blocks
	nregs     int32
	npreds    int32
	consts    map[uint64]int32
	sregs     map[sreg]int32
	shsyms    map[uint64]int32 // shared variables' addresses as values (sharedSymReg)
	labels    map[string]int32
	fixes     []fixup
	lastDef   map[int32]int // register offset -> pc of its latest definition (f64 NaN order)
	// brx.idx target lists, by the label that names them
	targetLists map[string][]string
	brxFixes    []brxFix
	scopes      []map[string]*localSym
	errs        ptx.ErrorList
	curLoc      int32 // current .loc index
	locIdx      map[SrcLoc]int32
	mem         memAttrs // cache attributes of the instruction being lowered
	sink        int32    // register offset of the "_" sink
	cc          int32    // register offset of the carry flag
	pending     []pendingCall
	plain       map[int32]bool // pcs of float add/sub/mul written without a rounding modifier
}

type pendingCall struct {
	idx          int // index into f.Calls
	callee       string
	pos          ptx.Pos
	nargs, nrets int // the arguments and return values the call names
}

func (l *fnLower) errorf(pos ptx.Pos, format string, args ...any) {
	if len(l.errs) < 50 {
		l.errs = append(l.errs, &ptx.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
}

// newReg allocates a register and returns its offset.
func (l *fnLower) newReg() int32 {
	r := l.nregs * 32
	l.nregs++
	return r
}

// constReg returns a register that holds v in every lane.
func (l *fnLower) constReg(v uint64) int32 {
	if r, ok := l.consts[v]; ok {
		return r
	}
	r := l.newReg()
	l.consts[v] = r
	return r
}

func (l *fnLower) sregReg(s sreg) int32 {
	if r, ok := l.sregs[s]; ok {
		return r
	}
	r := l.newReg()
	l.sregs[s] = r
	l.f.sregs = append(l.f.sregs, sregUse{id: s, reg: r})
	return r
}

func (l *fnLower) lookupLocal(name string) *localSym {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if s, ok := l.scopes[i][name]; ok {
			return s
		}
	}
	return nil
}

// lowerKernel lowers entry name and every function reachable from it.
func (m *Module) lowerKernel(name string) (*Kernel, error) {
	ast, err := m.EntryDecl(name)
	if err != nil {
		return nil, err
	}
	if !ast.HasBody {
		return nil, fmt.Errorf("%s: kernel %s is only declared, it has no body", m.Filename, name)
	}
	k := &Kernel{Name: name, Module: m, sharedOff: map[*Symbol]uint64{}, Perf: map[string][]int64{}}
	for _, p := range ast.Perf {
		k.Perf[p.Name] = p.Values
	}
	// Pass 1: find every reachable function, the shared variables they use,
	// and parse their bodies.
	order := []*ptx.Function{ast}
	seen := map[string]bool{name: true}
	addrTaken := map[string]bool{}
	usedShared := map[*Symbol]bool{}
	var funcShared []*ptx.VarDecl
	var errs ptx.ErrorList
	for i := 0; i < len(order); i++ {
		fn := order[i]
		if !fn.BodyParsed() {
			if err := m.AST.ParseBody(fn); err != nil {
				return nil, err
			}
		}
		var walk func(ss []*ptx.Statement)
		walk = func(ss []*ptx.Statement) {
			for _, s := range ss {
				switch {
				case s.IsBlock:
					walk(s.Block)
				case s.Var != nil && s.Var.Space == ".shared":
					funcShared = append(funcShared, s.Var)
				case s.Inst != nil:
					for _, o := range s.Inst.Operands {
						m.noteNames(o, usedShared)
					}
					if s.Inst.Opcode != "call" {
						// A function's name as an operand (mov.u64 %rd, f):
						// its address is taken; it may be called indirectly.
						for _, o := range s.Inst.Operands {
							if o.Kind != ptx.OpName || seen[o.Name] {
								continue
							}
							if cf := m.funcs[o.Name]; cf != nil && cf.HasBody && !cf.Entry {
								seen[o.Name] = true
								addrTaken[o.Name] = true
								order = append(order, cf)
							}
						}
					}
					if s.Inst.Opcode == "call" {
						if callee := callTarget(s.Inst); callee != "" && !seen[callee] {
							seen[callee] = true
							cf := m.funcs[callee]
							switch {
							case cf == nil:
								// Could be an indirect call through a register; reported when lowering.
							case !cf.HasBody && callee == assertFail:
								// The CUDA runtime's assert: lowered to a trap
								// that reports the assertion (lowerCall).
							case !cf.HasBody:
								errs = append(errs, &ptx.Error{Pos: s.Pos, Msg: fmt.Sprintf("call to %s, which is declared but has no body in this module (external functions such as vprintf are not supported)", callee)})
							default:
								order = append(order, cf)
							}
						}
					}
				}
			}
		}
		walk(fn.Body)
	}
	errs.Sort()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	// Shared layout: from SharedReserved on, used module-scope variables in
	// declaration order, then variables declared in function bodies, then
	// dynamic shared memory.
	off := uint64(SharedReserved)
	dynAlign := uint64(16)
	for _, s := range m.symList {
		if s.Space != memspace.Shared || !usedShared[s] {
			continue
		}
		if s.Dynamic {
			if s.Align > dynAlign {
				dynAlign = s.Align
			}
			continue
		}
		off = alignUp(off, s.Align)
		k.sharedOff[s] = off
		off += s.Size
	}
	fnShared := map[*ptx.VarDecl]uint64{}
	for _, v := range funcShared {
		size, align, _, err := VarLayout(v)
		if err != nil {
			return nil, &ptx.Error{Pos: v.Pos, Msg: err.Error()}
		}
		if size == 0 {
			// extern dynamic shared declared in a body
			if align > dynAlign {
				dynAlign = align
			}
			continue
		}
		off = alignUp(off, align)
		fnShared[v] = off
		off += size
	}
	k.SharedStatic = off - SharedReserved
	k.DynamicBase = alignUp(off, dynAlign)
	for _, s := range m.symList {
		if s.Space == memspace.Shared && s.Dynamic {
			k.sharedOff[s] = k.DynamicBase
		}
	}
	// Pass 2: create the Funcs (so calls, including recursive ones, can
	// refer to them), then lower each body.
	funcs := map[string]*Func{}
	for _, fn := range order {
		f := &Func{Name: fn.Name, Entry: fn.Entry, ast: fn, RegCount: map[Type]int{},
			Addr: FuncAddrBase + 16*uint64(len(k.Funcs)), AddrTaken: addrTaken[fn.Name]}
		funcs[fn.Name] = f
		k.Funcs = append(k.Funcs, f)
	}
	k.Entry = funcs[name]
	for _, f := range k.Funcs {
		lw := &fnLower{k: k, m: m, f: f, fn: f.ast,
			regs: map[string]regInfo{}, consts: map[uint64]int32{}, sregs: map[sreg]int32{}, shsyms: map[uint64]int32{},
			labels: map[string]int32{}, locIdx: map[SrcLoc]int32{}, curLoc: -1}
		lw.lower(funcs, fnShared)
		errs = append(errs, lw.errs...)
		if f.Calls != nil {
			k.UsesCalls = true
		}
	}
	errs.Sort()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	k.finishInfo()
	k.Params = k.Entry.Params
	for _, p := range k.Params {
		if e := p.Offset + p.Size; e > k.ParamSize {
			k.ParamSize = e
		}
	}
	return k, nil
}

// noteNames records module-scope shared variables an operand mentions.
func (m *Module) noteNames(o *ptx.Operand, used map[*Symbol]bool) {
	switch o.Kind {
	case ptx.OpName, ptx.OpAddress:
		if s := m.syms[o.Name]; s != nil && s.Space == memspace.Shared {
			used[s] = true
		}
	}
	for _, e := range o.Elems {
		m.noteNames(e, used)
	}
}

// callTarget returns the callee name of a direct call instruction.
func callTarget(in *ptx.Instruction) string {
	for _, o := range in.Operands {
		if o.Kind == ptx.OpName {
			return o.Name
		}
	}
	return ""
}

// lower lowers the function body into l.f.
func (l *fnLower) lower(funcs map[string]*Func, fnShared map[*ptx.VarDecl]uint64) {
	f, fn := l.f, l.fn
	l.funcs = funcs
	l.newReg() // register 0: always zero
	l.consts[0] = 0
	l.sink = l.newReg()
	l.cc = l.newReg()
	top := map[string]*localSym{}
	l.scopes = append(l.scopes, top)
	// Parameters.
	if fn.Entry {
		var off uint64
		for _, p := range fn.Params {
			slot, err := ParamLayout(p)
			if err != nil {
				l.errorf(p.Pos, "%v", err)
				continue
			}
			off = alignUp(off, slot.Align)
			slot.Offset = off
			off += slot.Size
			f.Params = append(f.Params, slot)
			top[p.Name] = &localSym{space: memspace.Param, off: slot.Offset, size: slot.Size, t: slot.Type}
		}
	} else {
		var off uint64
		add := func(ps []*ptx.Param) []ParamSlot {
			var out []ParamSlot
			for _, p := range ps {
				slot, err := ParamLayout(p)
				if err != nil {
					l.errorf(p.Pos, "%v", err)
					continue
				}
				if p.Space == ".reg" {
					// A register of the callee, filled by the call (and
					// read back by it, for a return value): a predicate, a
					// value, or the consecutive registers of a vector
					// (.reg .v2 .u32 x, elements x.x and x.y) or a .b128.
					if slot.Array >= 0 || p.Vector != 0 && (slot.Type == Pred || slot.Type == B128) {
						l.errorf(p.Pos, "register parameter %s: arrays and vectors of %s are not registers", p.Name, slot.Type)
						continue
					}
					if p.Vector*slot.Type.Size() > 16 {
						l.errorf(p.Pos, "register parameter %s: a vector register holds at most 128 bits (.v%d%s is %d)", p.Name, p.Vector, slot.Type, 8*p.Vector*slot.Type.Size())
						continue
					}
					slot.InReg = true
					switch {
					case slot.Type == Pred:
						slot.Reg = l.npreds
						l.npreds++
						l.regs[p.Name] = regInfo{off: slot.Reg, t: Pred, pred: true}
					default:
						n := regSlots(slot.Type, p.Vector)
						slot.Reg = l.newReg()
						for range n - 1 {
							l.newReg()
						}
						l.regs[p.Name] = regInfo{off: slot.Reg, t: slot.Type, vec: p.Vector}
						l.f.RegCount[slot.Type] += max(p.Vector, 1)
					}
					out = append(out, slot)
					continue
				}
				off = alignUp(off, slot.Align)
				slot.Offset = off
				off += slot.Size
				out = append(out, slot)
				top[p.Name] = &localSym{space: memspace.FParam, off: slot.Offset, size: slot.Size, t: slot.Type}
			}
			return out
		}
		if len(fn.Returns) <= 1 {
			// With at most one return value ptxas compiles the function
			// to the ABI, which has no register for a predicate or an
			// 8- or 16-bit value (ptxas 13: "In ABI compilation, passing
			// predicate, 8-bit and 16-bit parameters to device functions is
			// not supported"; the driver's JIT: CUDA_ERROR_INVALID_PTX).
			// Several return values turn the ABI off for the function.
			for _, p := range append(append([]*ptx.Param(nil), fn.Params...), fn.Returns...) {
				if t, ok := typeNames[p.Type]; ok && p.Space == ".reg" && (t == Pred || t.Size() < 4) {
					l.errorf(p.Pos, "register parameter %s of %s: a %s register parameter needs a function with several return values (ptxas compiles one with at most one to the ABI, which passes no predicates, 8- or 16-bit values)", p.Name, fn.Name, t)
				}
			}
		}
		if len(fn.Returns) > 1 {
			for _, p := range fn.Returns {
				if p.Space != ".reg" {
					// ptxas 13: "Multiple return parameters require .register state space".
					l.errorf(p.Pos, "return value %s of %s: a function with several return values returns them all in .reg", p.Name, fn.Name)
				}
			}
		}
		f.Params = add(fn.Params)
		f.Rets = add(fn.Returns)
		f.ParamBlock = off
	}
	f.LocalAlign = 8
	l.block(fn.Body, funcs, fnShared, true)
	// Resolve labels.
	for _, fx := range l.fixes {
		pc, ok := l.labels[fx.label]
		if !ok {
			l.errorf(fx.pos, "undefined label %s", fx.label)
			continue
		}
		f.Code[fx.pc].Target = pc
	}
	// Resolve brx.idx tables.
	for _, bf := range l.brxFixes {
		names, ok := l.targetLists[bf.list]
		if !ok {
			l.errorf(bf.pos, "brx.idx: %s does not name a .branchtargets list", bf.list)
			continue
		}
		tab := make([]int32, len(names))
		for i, n := range names {
			pc, ok := l.labels[n]
			if !ok {
				l.errorf(bf.pos, "brx.idx: undefined label %s in %s", n, bf.list)
			}
			tab[i] = pc
		}
		f.BrxTables[bf.table] = tab
	}
	// Resolve call sites.
	for _, pc := range l.pending {
		cs := &f.Calls[pc.idx]
		if cs.Indirect {
			continue // its targets are linked with the kernel (linkCalls)
		}
		callee := funcs[pc.callee]
		if callee == nil {
			l.errorf(pc.pos, "call to unknown function %s", pc.callee)
			continue
		}
		cs.Callee = callee
		ca := callee.ast
		if n := pc.nargs; n != len(ca.Params) {
			l.errorf(pc.pos, "call to %s passes %d arguments, it takes %d", pc.callee, n, len(ca.Params))
		}
		if n := pc.nrets; n != len(ca.Returns) {
			l.errorf(pc.pos, "call to %s receives %d return values, it returns %d", pc.callee, n, len(ca.Returns))
		}
	}
	// Close the code with an implicit exit/ret so a fall-through never runs
	// off the end.
	if fn.Entry {
		l.emit(newInst(OpExit), fn.Pos)
	} else {
		l.emit(newInst(OpRet), fn.Pos)
	}
	if len(l.errs) == 0 && !l.m.debugTarget() && !noContraction {
		l.contract(l.plain)
	}
	markFused(f.Code)
	f.NumRegs = l.nregs
	f.NumPred = l.npreds
	f.init = make([][32]uint64, l.nregs)
	for v, r := range l.consts {
		for i := 0; i < 32; i++ {
			f.init[r>>5][i] = v
		}
	}
	for _, u := range f.sharedSyms {
		for i := 0; i < 32; i++ {
			f.init[u.reg>>5][i] = u.val
		}
	}
	f.LocalSize = alignUp(f.LocalSize, 16)
}

// linkCalls rewrites call-site argument indices into callee parameter
// offsets, once every function of the kernel is lowered.
func (k *Kernel) linkCalls() {
	for _, f := range k.Funcs {
		for i := range f.Calls {
			if cs := &f.Calls[i]; cs.Indirect {
				k.linkIndirect(cs)
			} else {
				linkCall(cs)
			}
		}
	}
}

// linkIndirect fills an indirect call's Targets: the call linked to each
// function whose address the kernel takes and whose parameters and return
// values are .param variables as many as the call passes and receives.
func (k *Kernel) linkIndirect(cs *CallSite) {
	cs.Targets = make([]CallSite, len(k.Funcs))
	for i, g := range k.Funcs {
		if !g.AddrTaken || len(g.ast.Params) != len(cs.Args) || len(g.ast.Returns) != len(cs.Rets) {
			continue
		}
		ok := true
		for _, p := range append(append([]*ptx.Param(nil), g.ast.Params...), g.ast.Returns...) {
			ok = ok && p.Space != ".reg"
		}
		if !ok {
			continue
		}
		t := CallSite{Callee: g, Args: append([]paramCopy(nil), cs.Args...), Rets: append([]paramCopy(nil), cs.Rets...)}
		linkCall(&t)
		cs.Targets[i] = t
	}
}

// linkCall rewrites a direct call site's argument indices into its
// callee's parameter offsets.
func linkCall(cs *CallSite) {
	for j := range cs.Args {
		p := cs.Callee.Params[cs.Args[j].to]
		cs.Args[j].to = p.Offset
		cs.Args[j].size = min(cs.Args[j].size, p.Size)
	}
	for j := range cs.RegArgs {
		a := &cs.RegArgs[j]
		a.to = cs.Callee.Params[a.to].Reg + a.elem*32
	}
	for j := range cs.RegRets {
		r := &cs.RegRets[j]
		r.from = cs.Callee.Rets[r.from].Reg + r.elem*32
	}
	for j := range cs.PredArgs {
		cs.PredArgs[j].to = cs.Callee.Params[cs.PredArgs[j].to].Reg
	}
	for j := range cs.PredRets {
		cs.PredRets[j].from = cs.Callee.Rets[cs.PredRets[j].from].Reg
	}
	for j := range cs.Rets {
		p := cs.Callee.Rets[cs.Rets[j].from]
		cs.Rets[j].from = p.Offset
		cs.Rets[j].size = min(cs.Rets[j].size, p.Size)
	}
}

// block lowers a list of statements in a new scope (unless top).
func (l *fnLower) block(ss []*ptx.Statement, funcs map[string]*Func, fnShared map[*ptx.VarDecl]uint64, top bool) {
	if !top {
		l.scopes = append(l.scopes, map[string]*localSym{})
		l.regScopes = append(l.regScopes, map[string]regInfo{})
		defer func() {
			l.scopes = l.scopes[:len(l.scopes)-1]
			l.regScopes = l.regScopes[:len(l.regScopes)-1]
		}()
	}
	scope := l.scopes[len(l.scopes)-1]
	lastLabel := ""
	for _, s := range ss {
		switch {
		case s.Label != "":
			if _, dup := l.labels[s.Label]; dup {
				l.errorf(s.Pos, "label %s defined twice", s.Label)
			}
			l.labels[s.Label] = int32(len(l.f.Code))
			lastLabel = s.Label
			continue
		case s.Reg != nil:
			l.declRegs(s.Reg)
		case s.Var != nil:
			l.declVar(s.Var, scope, fnShared)
		case s.Loc != nil:
			l.setLoc(s.Loc)
		case s.Targets != nil:
			if lastLabel == "" {
				l.errorf(s.Pos, "%s must follow the label that names it", s.Targets.Directive)
				break
			}
			if l.targetLists == nil {
				l.targetLists = map[string][]string{}
			}
			l.targetLists[lastLabel] = s.Targets.Names
		case s.Pragma != nil, s.Prototype != nil:
			// .pragma "nounroll" and call prototypes need nothing at run time.
			if s.Prototype != nil {
				scope[s.Prototype.Name] = &localSym{space: memspace.Generic}
			}
		case s.IsBlock:
			l.block(s.Block, funcs, fnShared, false)
		case s.Inst != nil:
			l.inst(s.Inst)
		}
		lastLabel = ""
	}
}

func (l *fnLower) declRegs(d *ptx.RegDecl) {
	t, ok := typeNames[d.Type]
	if !ok {
		l.errorf(d.Pos, "unknown register type %s", d.Type)
		return
	}
	if d.Vector != 0 && (t == Pred || t == B128 || d.Vector != 2 && d.Vector != 4) {
		l.errorf(d.Pos, "vector registers of %d %s values are not supported", d.Vector, t)
		return
	}
	if d.Vector*t.Size() > 16 {
		// ptxas 13, also for sm_100: "Vector type too large, exceeds 128 bit limit".
		l.errorf(d.Pos, "a vector register holds at most 128 bits (.v%d%s is %d)", d.Vector, t, 8*d.Vector*t.Size())
		return
	}
	for _, n := range d.Names {
		cnt := n.Count
		single := cnt == 0
		if single {
			cnt = 1
		}
		if cnt > 1<<20 {
			l.errorf(n.Pos, "register range %s<%d> is too large", n.Name, n.Count)
			continue
		}
		l.f.RegCount[t] += cnt * max(d.Vector, 1)
		// Registers declared in a nested { } block are local to it (the
		// blocks nvcc writes around inline asm and call sequences).
		scope := l.regs
		if len(l.regScopes) > 0 {
			scope = l.regScopes[len(l.regScopes)-1]
		}
		for i := 0; i < cnt; i++ {
			name := n.Name
			if !single {
				name = n.Name + strconv.Itoa(i)
			}
			if _, dup := scope[name]; dup {
				l.errorf(n.Pos, "register %s declared twice", name)
				continue
			}
			switch t {
			case Pred:
				scope[name] = regInfo{off: l.npreds, t: t, pred: true}
				l.npreds++
			case B128:
				// Two consecutive 64-bit slots: low half, then high half.
				scope[name] = regInfo{off: l.newReg(), t: t}
				l.newReg()
			default:
				if d.Vector != 0 {
					// Its elements (.x .y .z .w, or .r .g .b .a) in
					// consecutive registers.
					scope[name] = regInfo{off: l.newReg(), t: t, vec: d.Vector}
					for range d.Vector - 1 {
						l.newReg()
					}
					continue
				}
				scope[name] = regInfo{off: l.newReg(), t: t}
			}
		}
	}
}

func (l *fnLower) declVar(v *ptx.VarDecl, scope map[string]*localSym, fnShared map[*ptx.VarDecl]uint64) {
	size, align, t, err := VarLayout(v)
	if err != nil {
		l.errorf(v.Pos, "%v", err)
		return
	}
	switch v.Space {
	case ".local":
		if v.HasInit {
			l.errorf(v.Pos, "initialised .local variables are not supported")
		}
		if align > l.f.LocalAlign {
			l.f.LocalAlign = align
		}
		off := alignUp(l.f.LocalSize, align)
		l.f.LocalSize = off + size
		scope[v.Name] = &localSym{space: memspace.Local, off: off, size: size, t: t}
	case ".param":
		off := alignUp(l.f.ParamBlock, align)
		l.f.ParamBlock = off + size
		scope[v.Name] = &localSym{space: memspace.FParam, off: off, size: size, t: t}
	case ".shared":
		off, ok := fnShared[v]
		if !ok { // extern dynamic
			off = l.k.DynamicBase
		}
		scope[v.Name] = &localSym{space: memspace.Shared, off: off, size: size, t: t}
	default:
		l.errorf(v.Pos, "%s variables inside a function body are not supported", v.Space)
	}
}

func (l *fnLower) setLoc(d *ptx.LocDirective) {
	loc := SrcLoc{File: l.m.files[d.File], Line: d.Line, Column: d.Column}
	if loc.File == "" {
		loc.File = "file" + strconv.Itoa(d.File)
	}
	if d.Line == 0 {
		l.curLoc = -1
		return
	}
	idx, ok := l.locIdx[loc]
	if !ok {
		idx = int32(len(l.f.Locs))
		l.f.Locs = append(l.f.Locs, loc)
		l.locIdx[loc] = idx
	}
	l.curLoc = idx
}

func (l *fnLower) emit(in Inst, pos ptx.Pos) int {
	info := InstInfo{Line: int32(pos.Line), Src: l.curLoc}
	if in.Op == OpLd || in.Op == OpSt || in.Op == OpAtom || in.Op == OpCpAsync {
		info.Cache, info.L1Evict, info.L2Evict, info.NonCoherent = l.mem.cache, l.mem.l1Evict, l.mem.l2Evict, l.mem.nonCoherent
	}
	pc := len(l.f.Code)
	if l.lastDef == nil {
		l.lastDef = map[int32]int{}
	}
	// f64 NaN priority. When both operands are NaN the GPU returns the one
	// ptxas puts second in the machine instruction, and ptxas puts the
	// operand defined earlier first: so the NaN of the operand defined
	// later (in program order) wins. Measured on every f64 NaN vector of
	// the recorded kernels at -O3 and -G; PTX itself leaves it open.
	if in.T == F64 && in.A != NoReg && in.B != NoReg {
		switch in.Op {
		case OpFAdd, OpFSub, OpFMul, OpFMin, OpFMax:
			da, oka := l.lastDef[in.A]
			db, okb := l.lastDef[in.B]
			if oka && (!okb || da > db) {
				in.Flags |= FNaNFirstA
			}
		}
	}
	l.f.Code = append(l.f.Code, in)
	l.f.Info = append(l.f.Info, info)
	for _, r := range l.instDefs(&in) {
		l.lastDef[r] = pc
	}
	return pc
}

// instDefs lists the value registers (offsets) an instruction writes.
func (l *fnLower) instDefs(in *Inst) []int32 {
	_, w := operandSets(in, l.f)
	for i, r := range w.Regs {
		w.Regs[i] = r * 32
	}
	return w.Regs
}

// targetSM is the architecture number the module's .target names (90 for
// sm_90 and sm_90a, 100 for sm_100), or 0 when it names none.
func (m *Module) targetSM() int {
	for _, t := range m.AST.Target {
		num, ok := strings.CutPrefix(t, "sm_")
		if !ok {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimRight(num, "af")); err == nil {
			return v
		}
	}
	return 0
}

// versionAtLeast reports whether the module's .version is at least
// major.minor (true when it has none).
func (m *Module) versionAtLeast(major, minor int) bool {
	a, b, ok := strings.Cut(m.AST.Version, ".")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return true
	}
	return x > major || x == major && y >= minor
}

// regSlots is how many consecutive 64-bit registers a .reg variable of
// type t (a vector of vec, when vec > 0) takes: one per element, two for a
// .b128.
func regSlots(t Type, vec int) int {
	switch {
	case vec > 0:
		return vec
	case t == B128:
		return 2
	}
	return 1
}

// ParamLayout computes the size, alignment and type of a parameter
// declaration (its Offset is left 0: the caller places it).
func ParamLayout(p *ptx.Param) (ParamSlot, error) {
	t, ok := typeNames[p.Type]
	if !ok {
		return ParamSlot{}, fmt.Errorf("parameter %s: unknown type %s", p.Name, p.Type)
	}
	size := uint64(t.Size())
	if t == Pred {
		size = 1
	}
	if p.Vector > 0 {
		size *= uint64(p.Vector)
	}
	n := p.ArrayLen
	if n > 0 {
		size *= uint64(n)
	}
	align := uint64(t.Size())
	if p.Vector > 0 {
		align *= uint64(p.Vector)
	}
	if p.Align > 0 {
		align = uint64(p.Align)
	}
	if align == 0 {
		align = 1
	}
	if align&(align-1) != 0 {
		return ParamSlot{}, fmt.Errorf("parameter %s: alignment %d is not a power of two", p.Name, align)
	}
	return ParamSlot{Name: p.Name, Size: size, Align: align, Type: t, Array: n}, nil
}

// VarLayout computes the size, alignment and element type of a variable
// declaration.
func VarLayout(v *ptx.VarDecl) (size, align uint64, t Type, err error) {
	t, ok := typeNames[v.Type]
	if !ok {
		return 0, 0, 0, fmt.Errorf("variable %s: unknown type %s", v.Name, v.Type)
	}
	esz := uint64(t.Size())
	if esz == 0 {
		esz = 1
	}
	if v.Vector > 0 {
		esz *= uint64(v.Vector)
	}
	size = esz
	for _, d := range v.Dims {
		if d < 0 || d > 1<<34 {
			return 0, 0, 0, fmt.Errorf("variable %s: bad array dimension %d", v.Name, d)
		}
		size *= uint64(d)
	}
	if size > 1<<36 {
		return 0, 0, 0, fmt.Errorf("variable %s: %d bytes is too large", v.Name, size)
	}
	align = esz
	if v.Align > 0 {
		align = uint64(v.Align)
	}
	if align&(align-1) != 0 {
		return 0, 0, 0, fmt.Errorf("variable %s: alignment %d is not a power of two", v.Name, align)
	}
	return size, align, t, nil
}

func alignUp(x, a uint64) uint64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) &^ (a - 1)
}

// float literal helpers

func f32bits(o *ptx.Operand) uint64 {
	if o.Kind == ptx.OpInt {
		return uint64(math.Float32bits(float32(o.Int)))
	}
	if o.Double {
		return uint64(math.Float32bits(float32(math.Float64frombits(o.Float))))
	}
	return o.Float & 0xffffffff
}

func f64bits(o *ptx.Operand) uint64 {
	if o.Kind == ptx.OpInt {
		return math.Float64bits(float64(o.Int))
	}
	if o.Double {
		return o.Float
	}
	return math.Float64bits(float64(math.Float32frombits(uint32(o.Float))))
}

// vecElems maps a vector register's element names to their index.
var vecElems = map[string]int{".x": 0, ".y": 1, ".z": 2, ".w": 3, ".r": 0, ".g": 1, ".b": 2, ".a": 3}

// reg looks a register up, innermost block first. An element of a vector
// register (%v.x, %v.a) is the register that holds it.
func (l *fnLower) reg(name string) (regInfo, bool) {
	if r, ok := l.reg0(name); ok {
		return r, ok
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		if e, ok := vecElems[name[i:]]; ok {
			if r, ok := l.reg0(name[:i]); ok && e < r.vec {
				return regInfo{off: r.off + int32(e)*32, t: r.t}, true
			}
		}
	}
	return regInfo{}, false
}

func (l *fnLower) reg0(name string) (regInfo, bool) {
	for i := len(l.regScopes) - 1; i >= 0; i-- {
		if r, ok := l.regScopes[i][name]; ok {
			return r, true
		}
	}
	r, ok := l.regs[name]
	return r, ok
}
