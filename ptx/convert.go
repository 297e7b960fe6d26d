package ptx

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2/lexer"
)

// conv turns grammar nodes into AST nodes, evaluating literals and
// reporting what the grammar cannot check into errs.
type conv struct {
	errs *errSink
}

// declTypes are the types a variable, parameter or register may have.
var declTypes = map[string]bool{
	".b8": true, ".b16": true, ".b32": true, ".b64": true, ".b128": true,
	".u8": true, ".u16": true, ".u32": true, ".u64": true,
	".s8": true, ".s16": true, ".s32": true, ".s64": true,
	".f16": true, ".f16x2": true, ".bf16": true, ".bf16x2": true,
	".f32": true, ".f64": true, ".pred": true,
	".texref": true, ".samplerref": true, ".surfref": true,
}

func (c *conv) checkType(t lexer.Token) string {
	if !declTypes[t.Value] {
		c.errs.add(t.Pos, "expected a type such as .b32, .f32 or .pred, found "+t.Value)
	}
	return t.Value
}

// parseInt evaluates an integer literal: decimal, 0x hex, 0b binary or
// 0-prefixed octal, with an optional U suffix and minus sign. A negative
// value is returned as its two's complement bits.
func parseInt(s string) (v uint64, neg bool, msg string) {
	if strings.HasPrefix(s, "-") {
		v, msg = parseUint(s[1:])
		return -v, true, msg
	}
	v, msg = parseUint(s)
	return v, false, msg
}

func parseUint(s string) (uint64, string) {
	s = strings.TrimSuffix(s, "U")
	base := 10
	digits := s
	switch {
	case len(s) > 1 && (s[1] == 'x' || s[1] == 'X'):
		base, digits = 16, s[2:]
	case len(s) > 1 && (s[1] == 'b' || s[1] == 'B'):
		base, digits = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, "integer literal " + s + " does not fit in 64 bits"
		}
		if base == 8 {
			return 0, "invalid digit in octal literal " + s
		}
		return 0, "malformed integer literal " + s
	}
	return v, ""
}

// parseFloat evaluates 0fXXXXXXXX (float32 bits), 0dXXXXXXXXXXXXXXXX
// (float64 bits) or a decimal floating literal (float64).
func parseFloat(s string) (bits uint64, double bool, msg string) {
	if strings.HasPrefix(s, "-") {
		bits, double, msg = parseFloat(s[1:])
		if double {
			return bits ^ 1<<63, true, msg
		}
		return bits ^ 1<<31, false, msg
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D') {
		v, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, false, "malformed floating literal " + s
		}
		return v, s[1] == 'd' || s[1] == 'D', ""
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, true, "floating literal " + s + " is out of range"
	}
	return math.Float64bits(f), true, ""
}

// int evaluates an integer literal and reports a malformed one.
func (c *conv) int(pos Pos, s string) uint64 {
	v, _, msg := parseInt(s)
	if msg != "" {
		c.errs.add(pos, msg)
	}
	return v
}

// size evaluates a non-negative count (alignment, dimension, index).
func (c *conv) size(pos Pos, s string) int64 {
	v, neg, msg := parseInt(s)
	if msg != "" {
		c.errs.add(pos, msg)
		return 0
	}
	if neg {
		c.errs.add(pos, "expected a non-negative integer, found "+s)
		return 0
	}
	if v > math.MaxInt32 {
		c.errs.add(pos, "value "+s+" is too large")
		return 0
	}
	return int64(v)
}

func (c *conv) align(pos Pos, s string) int {
	v := c.size(pos, s)
	if v <= 0 || v&(v-1) != 0 {
		c.errs.add(pos, "expected a power of two after .align, found "+s)
	}
	return int(v)
}

// num evaluates a number into an OpInt or OpFloat operand.
func (c *conv) num(n *gNum, op *Operand) {
	if n.Int != nil {
		op.Kind, op.Int = OpInt, int64(c.int(n.Pos, *n.Int))
		return
	}
	bits, double, msg := parseFloat(*n.Float)
	if msg != "" {
		c.errs.add(n.Pos, msg)
	}
	op.Kind, op.Float, op.Double = OpFloat, bits, double
}

func (c *conv) function(g *gFunc, linkage string, m *Module) *Function {
	f := &Function{
		Pos:     g.Pos,
		Linkage: linkage,
		Entry:   g.Kind == ".entry",
		Name:    g.Name.Value,
	}
	for _, p := range g.Pre {
		if p.Name == ".noreturn" && len(p.Values) == 0 {
			f.NoReturn = true
		} else {
			c.errs.add(p.Pos, "expected the function name, found "+p.Name)
		}
	}
	if g.Returns != nil {
		if f.Entry {
			c.errs.add(g.Returns.Pos, "expected the kernel name after .entry, found \"(\"")
		}
		f.Returns = c.params(g.Returns)
	}
	if g.Params != nil {
		f.Params = c.params(g.Params)
	}
	for _, p := range g.Perf {
		if p.Name == ".noreturn" && len(p.Values) == 0 {
			f.NoReturn = true
			continue
		}
		d := &PerfDirective{Pos: p.Pos, Name: p.Name}
		for _, v := range p.Values {
			d.Values = append(d.Values, c.size(p.Pos, v))
		}
		f.Perf = append(f.Perf, d)
	}
	if g.Body != nil {
		f.HasBody = true
		f.bodyStart = g.Body.Pos.Offset
		f.bodyEnd = g.Body.Pos.Offset + len(g.Body.Value) - 1
		f.bodyPos = g.Body.Pos
		f.owner = m
		f.once = new(sync.Once)
	}
	return f
}

func (c *conv) params(g *gParams) []*Param {
	if len(g.List) == 0 {
		return nil
	}
	out := make([]*Param, len(g.List))
	for i, p := range g.List {
		out[i] = c.param(p)
	}
	return out
}

func (c *conv) param(g *gParam) *Param {
	p := &Param{Pos: g.Pos, Space: g.Space, Type: c.checkType(g.Type), Name: g.Name, ArrayLen: -1}
	ptr := false
	for _, attrs := range [][]*gAttr{g.Pre, g.Post} {
		for _, a := range attrs {
			switch {
			case a.Align != nil && ptr:
				p.PtrAlign = c.align(a.Pos, *a.Align)
			case a.Align != nil:
				p.Align = c.align(a.Pos, *a.Align)
			case a.Vec != nil && p.Vector == 0 && !ptr:
				p.Vector, _ = strconv.Atoi((*a.Vec)[2:])
			case a.Ptr && g.Space == ".param":
				ptr = true
			case a.Space != nil && ptr && p.PtrSpace == "" && p.PtrAlign == 0:
				p.PtrSpace = *a.Space
			default:
				c.errs.add(a.Pos, "expected .align, .v2, .v4, .ptr or the parameter name, found "+attrText(a))
			}
		}
	}
	if ptr && p.PtrAlign == 0 {
		c.errs.add(g.Pos, "expected .align N in the .ptr attributes of "+g.Name)
	}
	if g.Dim != nil {
		p.ArrayLen = 0
		if g.Dim.N != nil {
			p.ArrayLen = int(c.size(g.Dim.N.Pos, g.Dim.N.Value))
		}
	}
	return p
}

func attrText(a *gAttr) string {
	switch {
	case a.Align != nil:
		return ".align"
	case a.Vec != nil:
		return *a.Vec
	case a.Ptr:
		return ".ptr"
	case a.Space != nil:
		return *a.Space
	}
	return ".attribute"
}

func (c *conv) varDecl(g *gVar, linkage string) *VarDecl {
	v := &VarDecl{Pos: g.Pos, Linkage: linkage, Space: g.Space, Type: c.checkType(g.Type), Name: g.Name}
	for _, a := range g.Attrs {
		switch {
		case a.Align != nil:
			v.Align = c.align(a.Pos, *a.Align)
		case a.Vec != nil:
			v.Vector, _ = strconv.Atoi((*a.Vec)[2:])
		case a.Attribute != nil:
			v.Attrs = append(v.Attrs, *a.Attribute)
		default:
			c.errs.add(a.Pos, "expected .align, .v2, .v4 or a type, found "+attrText(a))
		}
	}
	for _, d := range g.Dims {
		var n int64
		if d.N != nil {
			n = c.size(d.N.Pos, d.N.Value)
		}
		v.Dims = append(v.Dims, n)
	}
	if g.Init != nil {
		v.HasInit = true
		c.init(g.Init, &v.Init)
	}
	return v
}

// init flattens a (nested) initialiser into out.
func (c *conv) init(g *gInit, out *[]*InitElem) {
	if g.Open {
		for _, e := range g.List {
			c.init(e, out)
		}
		return
	}
	s := g.Elem
	e := &InitElem{Pos: s.Pos}
	switch {
	case s.Generic != nil:
		e.Kind, e.Symbol, e.Generic = InitSymbol, *s.Generic, true
	case s.Sym != nil:
		e.Kind, e.Symbol = InitSymbol, *s.Sym
	default:
		var op Operand
		c.num(s.Num, &op)
		if op.Kind == OpInt {
			e.Kind, e.Int = InitInt, uint64(op.Int)
		} else {
			e.Kind, e.Float, e.Double = InitFloat, op.Float, op.Double
		}
	}
	if s.Off != nil {
		if e.Kind != InitSymbol {
			c.errs.add(s.Pos, "expected \",\" or \"}\" after a number, found \""+*s.OffSign+"\"")
		}
		off := int64(c.int(s.Pos, *s.Off))
		if *s.OffSign == "-" {
			off = -off
		}
		e.Offset = off
	}
	*out = append(*out, e)
}

func (c *conv) reg(g *gReg) *RegDecl {
	r := &RegDecl{Pos: g.Pos, Type: c.checkType(g.Type)}
	for _, a := range g.Attrs {
		if a.Vec != nil {
			r.Vector, _ = strconv.Atoi((*a.Vec)[2:])
		} else {
			c.errs.add(a.Pos, "expected .v2, .v4 or a type, found "+attrText(a))
		}
	}
	r.Names = make([]*RegName, len(g.Names))
	for i, n := range g.Names {
		rn := &RegName{Pos: n.Pos, Name: n.Name}
		if n.Count != nil {
			rn.Count = int(c.size(n.Pos, *n.Count))
		}
		r.Names[i] = rn
	}
	return r
}

func (c *conv) loc(g *gLoc) *LocDirective {
	l := &LocDirective{
		Pos:    g.Pos,
		File:   int(c.size(g.Pos, g.Nums[0])),
		Line:   int(c.size(g.Pos, g.Nums[1])),
		Column: int(c.size(g.Pos, g.Nums[2])),
	}
	for _, e := range g.Extra {
		if e.FuncName != nil {
			if l.FunctionName != "" || l.Inlined {
				c.errs.add(e.Pos, "expected inlined_at or a new statement, found function_name")
			}
			l.FunctionName = *e.FuncName
			if e.FuncOff != nil {
				l.FunctionOff = int64(c.int(e.Pos, *e.FuncOff))
			}
			continue
		}
		if l.Inlined {
			c.errs.add(e.Pos, "expected a new statement, found a second inlined_at")
		}
		l.Inlined = true
		l.InlinedFile = int(c.size(e.Pos, e.Inlined[0]))
		l.InlinedLine = int(c.size(e.Pos, e.Inlined[1]))
		l.InlinedCol = int(c.size(e.Pos, e.Inlined[2]))
	}
	return l
}

func unquote(s string) string {
	if len(s) >= 2 {
		return s[1 : len(s)-1]
	}
	return s
}

func (c *conv) proto(g *gProto) *CallPrototype {
	p := &CallPrototype{Pos: g.Pos, Name: g.Name, NoReturn: g.NoReturn}
	if g.Returns != nil {
		p.Returns = c.params(g.Returns)
	}
	if g.Params != nil {
		p.Params = c.params(g.Params)
	}
	return p
}

func (c *conv) inst(g *gInst) *Instruction {
	in := &Instruction{Pos: g.Pos}
	in.Opcode, in.Mods = splitOpcode(g.Opcode)
	in.Operands = c.operands(g.Operands)
	return in
}

func (c *conv) guarded(g *gGuarded) *Instruction {
	in := c.inst(g.Inst)
	in.Pos = g.Pos
	in.Guard = &Guard{Pos: g.Guard.Pos, Neg: g.Guard.Neg, Reg: g.Guard.Reg}
	return in
}

// splitOpcode splits "ld.global.nc.f32" into "ld" and [".global" ".nc"
// ".f32"], with substrings of the token.
func splitOpcode(s string) (string, []string) {
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return s, nil
	}
	op := s[:i]
	mods := make([]string, 0, strings.Count(s[i:], "."))
	for i < len(s) {
		j := strings.IndexByte(s[i+1:], '.')
		if j < 0 {
			mods = append(mods, s[i:])
			break
		}
		mods = append(mods, s[i:i+1+j])
		i += 1 + j
	}
	return op, mods
}

func (c *conv) operands(gs []*gOperand) []*Operand {
	if len(gs) == 0 {
		return nil
	}
	// one allocation for the operands of a statement
	ops := make([]Operand, len(gs))
	out := make([]*Operand, len(gs))
	for i, g := range gs {
		c.operand(g, &ops[i])
		out[i] = &ops[i]
	}
	return out
}

func (c *conv) operand(g *gOperand, op *Operand) {
	op.Pos = g.Pos
	switch {
	case g.Name != nil:
		op.Kind, op.Name = OpName, *g.Name
		if i := strings.IndexByte(op.Name, '|'); i > 0 {
			op.Name, op.Pair = op.Name[:i], op.Name[i+1:]
		}
		if g.Off != nil {
			op.Kind, op.Int = OpRegPlus, int64(c.int(g.Pos, *g.Off))
		}
	case g.Not != nil:
		op.Kind, op.Name, op.Neg = OpName, *g.Not, true
	case g.Minus != nil:
		op.Kind, op.Name, op.Minus = OpName, *g.Minus, true
	case g.Num != nil:
		c.num(g.Num, op)
	case g.Addr != nil:
		a := g.Addr
		op.Kind = OpAddress
		if a.Base != nil {
			op.Name = *a.Base
			if a.Off != nil {
				v := c.int(a.Pos, *a.Off)
				if *a.Sign == "-" {
					v = -v
				}
				op.Int = int64(v)
			}
		} else {
			var n Operand
			c.num(a.Abs, &n)
			if n.Kind != OpInt {
				c.errs.add(a.Abs.Pos, "expected a register, symbol or integer address, found a floating literal")
			}
			op.Int = n.Int
		}
		op.Elems = c.operands(a.Extra)
	case g.Vec != nil:
		op.Kind = OpVector
		op.Elems = c.operands(g.Vec)
		for _, e := range op.Elems {
			if e.Kind == OpRegPlus {
				// ptxas 13: a syntax error.
				c.errs.add(e.Pos, "a register expression ("+e.Name+"+"+strconv.FormatInt(e.Int, 10)+") cannot be an element of a {...} list")
			}
		}
	case g.List != nil:
		op.Kind = OpList
		op.Elems = c.operands(g.List.Items)
	}
}
