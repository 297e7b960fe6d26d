package ptx

import "github.com/alecthomas/participle/v2/lexer"

// A hand-written parser for the statements that make up nearly all of a
// body: instructions (guarded or not), .reg and .loc. It builds the same
// grammar nodes as the participle grammars of grammar.go, positions
// included, for well-formed statements, at a fraction of the cost
// (participle works by reflection and allocates per grammar node tried).
// Anything it does not expect makes it give up: the caller rewinds and
// lets the participle grammar parse the statement, so every error is
// still found and worded by the grammar. TestFastPathAsGrammar holds the
// two to the same trees.

// noFastPath makes the body parser use the participle grammars alone
// (tests compare the two).
var noFastPath bool

// fast tries parse on the statement at the current token; on failure it
// rewinds the token stream and returns nil.
func fast[G any](p *stmtParser, parse func(*fastParser) *G) *G {
	if noFastPath {
		return nil
	}
	start := p.plex.MakeCheckpoint()
	g := parse(&fastParser{plex: p.plex})
	if g == nil {
		p.plex.LoadCheckpoint(start)
	}
	return g
}

type fastParser struct {
	plex *lexer.PeekingLexer
}

// punct consumes the punctuation v if it comes next.
func (f *fastParser) punct(v string) bool {
	t := f.plex.Peek()
	if t.Type == tPunct && t.Value == v {
		f.plex.Next()
		return true
	}
	return false
}

// take consumes the next token if it has type typ and returns its value.
func (f *fastParser) take(typ lexer.TokenType) (*string, bool) {
	t := f.plex.Peek()
	if t.Type != typ {
		return nil, false
	}
	f.plex.Next()
	v := t.Value
	return &v, true
}

// inst parses `opcode operand, ...;` (gInst).
func (f *fastParser) inst() *gInst {
	t := f.plex.Peek()
	if t.Type != tIdent {
		return nil
	}
	g := &gInst{Pos: t.Pos, Opcode: t.Value}
	f.plex.Next()
	if f.punct(";") {
		return g
	}
	for {
		o := f.operand()
		if o == nil {
			return nil
		}
		g.Operands = append(g.Operands, o)
		if f.punct(";") {
			return g
		}
		if !f.punct(",") {
			return nil
		}
	}
}

// guarded parses `@%p inst` or `@!%p inst` (gGuarded).
func (f *fastParser) guarded() *gGuarded {
	t := f.plex.Peek()
	if t.Type != tPunct || t.Value != "@" {
		return nil
	}
	f.plex.Next()
	g := &gGuarded{Pos: t.Pos, Guard: &gGuard{Pos: t.Pos}}
	g.Guard.Neg = f.punct("!")
	r, ok := f.take(tIdent)
	if !ok {
		return nil
	}
	g.Guard.Reg = *r
	if g.Inst = f.inst(); g.Inst == nil {
		return nil
	}
	return g
}

// operand parses one operand (gOperand).
func (f *fastParser) operand() *gOperand {
	t := f.plex.Peek()
	o := &gOperand{Pos: t.Pos}
	switch t.Type {
	case tIdent:
		o.Name, _ = f.take(tIdent)
		if s := f.plex.Peek(); s.Type == tPunct && s.Value == "+" {
			f.plex.Next()
			var ok bool
			if o.Off, ok = f.take(tInt); !ok {
				return nil
			}
		}
		return o
	case tInt, tFloat:
		o.Num = f.num()
		return o
	case tPunct:
	default:
		return nil
	}
	f.plex.Next()
	switch t.Value {
	case "[":
		if o.Addr = f.addr(); o.Addr == nil || !f.punct("]") {
			return nil
		}
	case "{":
		for {
			e := f.operand()
			if e == nil {
				return nil
			}
			o.Vec = append(o.Vec, e)
			if f.punct("}") {
				return o
			}
			if !f.punct(",") {
				return nil
			}
		}
	case "(":
		o.List = &gList{Pos: t.Pos}
		if f.punct(")") {
			return o
		}
		for {
			e := f.operand()
			if e == nil {
				return nil
			}
			o.List.Items = append(o.List.Items, e)
			if f.punct(")") {
				return o
			}
			if !f.punct(",") {
				return nil
			}
		}
	case "!":
		var ok bool
		if o.Not, ok = f.take(tIdent); !ok {
			return nil
		}
	case "-":
		var ok bool
		if o.Minus, ok = f.take(tIdent); !ok {
			return nil
		}
	default:
		return nil
	}
	return o
}

// num parses an integer or floating literal (gNum); the caller has seen one.
func (f *fastParser) num() *gNum {
	t := f.plex.Next()
	v := t.Value
	if t.Type == tInt {
		return &gNum{Pos: t.Pos, Int: &v}
	}
	return &gNum{Pos: t.Pos, Float: &v}
}

// addr parses the inside of [...] (gAddr).
func (f *fastParser) addr() *gAddr {
	t := f.plex.Peek()
	a := &gAddr{Pos: t.Pos}
	switch t.Type {
	case tIdent:
		a.Base, _ = f.take(tIdent)
		if s := f.plex.Peek(); s.Type == tPunct && (s.Value == "+" || s.Value == "-") {
			f.plex.Next()
			v := s.Value
			a.Sign = &v
			var ok bool
			if a.Off, ok = f.take(tInt); !ok {
				return nil
			}
		}
	case tInt, tFloat:
		a.Abs = f.num()
	default:
		return nil
	}
	for f.punct(",") {
		o := f.operand()
		if o == nil {
			return nil
		}
		a.Extra = append(a.Extra, o)
	}
	return a
}

// regAttrs are the attributes gAttr matches by a single directive.
var regAttrs = map[string]bool{
	".v2": true, ".v4": true, ".v8": true, ".ptr": true,
	".global": true, ".shared": true, ".const": true, ".local": true,
}

// reg parses `.reg [attrs] .type name[<n>], ...;` (gReg).
func (f *fastParser) reg() *gReg {
	t := f.plex.Peek()
	if t.Type != tDot || t.Value != ".reg" {
		return nil
	}
	f.plex.Next()
	g := &gReg{Pos: t.Pos}
	for {
		a := f.plex.Peek()
		if a.Type != tDot {
			return nil
		}
		if a.Value == ".align" || a.Value == ".attribute" {
			return nil // rare: left to the grammar
		}
		if !regAttrs[a.Value] {
			break
		}
		f.plex.Next()
		v := a.Value
		attr := &gAttr{Pos: a.Pos}
		switch v {
		case ".ptr":
			attr.Ptr = true
		case ".v2", ".v4", ".v8":
			attr.Vec = &v
		default:
			attr.Space = &v
		}
		g.Attrs = append(g.Attrs, attr)
	}
	g.Type = *f.plex.Next()
	for {
		n := f.plex.Peek()
		if n.Type != tIdent {
			return nil
		}
		f.plex.Next()
		rn := &gRegName{Pos: n.Pos, Name: n.Value}
		if f.punct("<") {
			var ok bool
			if rn.Count, ok = f.take(tInt); !ok || !f.punct(">") {
				return nil
			}
		}
		g.Names = append(g.Names, rn)
		if f.punct(";") {
			return g
		}
		if !f.punct(",") {
			return nil
		}
	}
}

// loc parses `.loc file line column` with its extras (gLoc).
func (f *fastParser) loc() *gLoc {
	t := f.plex.Peek()
	if t.Type != tDot || t.Value != ".loc" {
		return nil
	}
	f.plex.Next()
	g := &gLoc{Pos: t.Pos}
	if !f.ints(&g.Nums) {
		return nil
	}
	for f.punct(",") {
		e := f.plex.Peek()
		x := &gLocExtra{Pos: e.Pos}
		if e.Type != tIdent {
			return nil
		}
		f.plex.Next()
		switch e.Value {
		case "function_name":
			n := f.plex.Peek()
			if n.Type != tIdent && n.Type != tDot {
				return nil
			}
			f.plex.Next()
			v := n.Value
			x.FuncName = &v
			if f.punct("+") {
				var ok bool
				if x.FuncOff, ok = f.take(tInt); !ok {
					return nil
				}
			}
		case "inlined_at":
			if !f.ints(&x.Inlined) {
				return nil
			}
		default:
			return nil
		}
		g.Extra = append(g.Extra, x)
	}
	return g
}

// ints appends the values of three integer tokens to *dst.
func (f *fastParser) ints(dst *[]string) bool {
	for range 3 {
		v, ok := f.take(tInt)
		if !ok {
			return false
		}
		*dst = append(*dst, *v)
	}
	return true
}

// attr parses one attribute if the next token is one (gAttr); ok is false
// where the statement must be left to the grammar.
func (f *fastParser) attr() (a *gAttr, ok bool) {
	t := f.plex.Peek()
	if t.Type != tDot {
		return nil, true
	}
	a = &gAttr{Pos: t.Pos}
	v := t.Value
	switch v {
	case ".align":
		f.plex.Next()
		a.Align, ok = f.take(tInt)
		return a, ok
	case ".v2", ".v4", ".v8":
		a.Vec = &v
	case ".ptr":
		a.Ptr = true
	case ".global", ".shared", ".const", ".local":
		a.Space = &v
	case ".attribute":
		f.plex.Next()
		if !f.punct("(") {
			return nil, false
		}
		if a.Attribute, ok = f.take(tDot); !ok || !f.punct(")") {
			return nil, false
		}
		return a, true
	default:
		return nil, true
	}
	f.plex.Next()
	return a, true
}

// attrs parses attributes while they come.
func (f *fastParser) attrs(dst *[]*gAttr) bool {
	for {
		a, ok := f.attr()
		if !ok {
			return false
		}
		if a == nil {
			return true
		}
		*dst = append(*dst, a)
	}
}

// dim parses `[N]` or `[]` (gDim); the caller has seen '['.
func (f *fastParser) dim() *gDim {
	t := f.plex.Next()
	d := &gDim{Pos: t.Pos}
	if n := f.plex.Peek(); n.Type == tInt {
		tok := *f.plex.Next()
		d.N = &tok
	}
	if !f.punct("]") {
		return nil
	}
	return d
}

// varSpaces begin a variable declaration (gVar).
var varSpaces = map[string]bool{".global": true, ".const": true, ".shared": true, ".local": true, ".param": true, ".tex": true}

// varDecl parses a variable declaration with its initialiser (gVar).
func (f *fastParser) varDecl() *gVar {
	t := f.plex.Peek()
	if t.Type != tDot || !varSpaces[t.Value] {
		return nil
	}
	f.plex.Next()
	g := &gVar{Pos: t.Pos, Space: t.Value}
	if !f.attrs(&g.Attrs) {
		return nil
	}
	if typ := f.plex.Peek(); typ.Type == tDot {
		g.Type = *f.plex.Next()
	} else {
		return nil
	}
	n, ok := f.take(tIdent)
	if !ok {
		return nil
	}
	g.Name = *n
	for {
		b := f.plex.Peek()
		if b.Type != tPunct || b.Value != "[" {
			break
		}
		d := f.dim()
		if d == nil {
			return nil
		}
		g.Dims = append(g.Dims, d)
	}
	if f.punct("=") {
		if g.Init = f.init(); g.Init == nil {
			return nil
		}
	}
	if !f.punct(";") {
		return nil
	}
	return g
}

// init parses an initialiser (gInit).
func (f *fastParser) init() *gInit {
	t := f.plex.Peek()
	g := &gInit{Pos: t.Pos}
	if t.Type == tPunct && t.Value == "{" {
		f.plex.Next()
		g.Open = true
		if f.punct("}") {
			return g
		}
		for {
			e := f.init()
			if e == nil {
				return nil
			}
			g.List = append(g.List, e)
			if f.punct("}") {
				return g
			}
			if !f.punct(",") {
				return nil
			}
		}
	}
	s := &gInitScalar{Pos: t.Pos}
	switch {
	case t.Type == tIdent && t.Value == "generic":
		f.plex.Next()
		var ok bool
		if !f.punct("(") {
			return nil
		}
		if s.Generic, ok = f.take(tIdent); !ok || !f.punct(")") {
			return nil
		}
	case t.Type == tIdent:
		s.Sym, _ = f.take(tIdent)
	case t.Type == tInt || t.Type == tFloat:
		s.Num = f.num()
	default:
		return nil
	}
	if o := f.plex.Peek(); o.Type == tPunct && (o.Value == "+" || o.Value == "-") {
		f.plex.Next()
		v := o.Value
		s.OffSign = &v
		var ok bool
		if s.Off, ok = f.take(tInt); !ok {
			return nil
		}
	}
	g.Elem = s
	return g
}

// perfs parses directives with optional integer lists (gPerf).
func (f *fastParser) perfs(dst *[]*gPerf) bool {
	for {
		t := f.plex.Peek()
		if t.Type != tDot {
			return true
		}
		f.plex.Next()
		p := &gPerf{Pos: t.Pos, Name: t.Value}
		if n := f.plex.Peek(); n.Type == tInt {
			for {
				v, _ := f.take(tInt)
				p.Values = append(p.Values, *v)
				if c := f.plex.Peek(); c.Type != tPunct || c.Value != "," {
					break
				}
				f.plex.Next()
				if n := f.plex.Peek(); n.Type != tInt {
					return false
				}
			}
		}
		*dst = append(*dst, p)
	}
}

// params parses a parenthesised parameter list if one comes (gParams).
func (f *fastParser) params() (ps *gParams, ok bool) {
	t := f.plex.Peek()
	if t.Type != tPunct || t.Value != "(" {
		return nil, true
	}
	f.plex.Next()
	ps = &gParams{Pos: t.Pos}
	if f.punct(")") {
		return ps, true
	}
	for {
		s := f.plex.Peek()
		if s.Type != tDot || s.Value != ".param" && s.Value != ".reg" {
			return nil, false
		}
		f.plex.Next()
		p := &gParam{Pos: s.Pos, Space: s.Value}
		if !f.attrs(&p.Pre) {
			return nil, false
		}
		if typ := f.plex.Peek(); typ.Type == tDot {
			p.Type = *f.plex.Next()
		} else {
			return nil, false
		}
		if !f.attrs(&p.Post) {
			return nil, false
		}
		n, ok := f.take(tIdent)
		if !ok {
			return nil, false
		}
		p.Name = *n
		if b := f.plex.Peek(); b.Type == tPunct && b.Value == "[" {
			if p.Dim = f.dim(); p.Dim == nil {
				return nil, false
			}
		}
		ps.List = append(ps.List, p)
		if f.punct(")") {
			return ps, true
		}
		if !f.punct(",") {
			return nil, false
		}
	}
}

// function parses a .entry or .func header with its body token (gFunc).
func (f *fastParser) function() *gFunc {
	t := f.plex.Peek()
	if t.Type != tDot || t.Value != ".entry" && t.Value != ".func" {
		return nil
	}
	f.plex.Next()
	g := &gFunc{Pos: t.Pos, Kind: t.Value}
	var ok bool
	if !f.perfs(&g.Pre) {
		return nil
	}
	if g.Returns, ok = f.params(); !ok {
		return nil
	}
	n := f.plex.Peek()
	if n.Type != tIdent {
		return nil
	}
	g.Name = *f.plex.Next()
	if g.Params, ok = f.params(); !ok || !f.perfs(&g.Perf) {
		return nil
	}
	if b := f.plex.Peek(); b.Type == tBody {
		tok := *f.plex.Next()
		g.Body = &tok
		return g
	}
	if !f.punct(";") {
		return nil
	}
	return g
}

// linkages may begin a module item before its function or variable.
var linkages = map[string]bool{".visible": true, ".weak": true, ".extern": true, ".common": true}

// item parses a module-level function or variable (gItem); the directives
// of the module header are left to the grammar.
func (f *fastParser) item() *gItem {
	t := f.plex.Peek()
	if t.Type != tDot {
		return nil
	}
	g := &gItem{Pos: t.Pos}
	if linkages[t.Value] {
		f.plex.Next()
		v := t.Value
		g.Linkage = &v
	}
	switch n := f.plex.Peek(); {
	case n.Type != tDot:
		return nil
	case n.Value == ".entry" || n.Value == ".func":
		if g.Func = f.function(); g.Func == nil {
			return nil
		}
	default:
		if g.Var = f.varDecl(); g.Var == nil {
			return nil
		}
	}
	return g
}
