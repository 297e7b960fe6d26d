package ptx

import (
	"bufio"
	"io"
	"strconv"
)

// Print writes m as PTX text in the layout nvcc uses. The text parses back
// to the same tree (positions aside). Comments are not kept. The module
// directives come first; variables, functions, .file directives and
// .section blocks follow in the order the source had them, and items added
// to the module since it was parsed follow in that order by kind. A body
// that ParseLazy has not parsed yet is copied verbatim from the source.
func Print(w io.Writer, m *Module) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	p := printer{}
	if m.Version != "" {
		p.s(".version ").s(m.Version).nl()
	}
	if len(m.Target) > 0 {
		p.s(".target ")
		for i, t := range m.Target {
			if i > 0 {
				p.s(", ")
			}
			p.s(t)
		}
		p.nl()
	}
	p.s(".address_size ").i(int64(m.AddressSize)).nl()
	p.nl()
	var last any
	for _, it := range items(m) {
		switch it := it.(type) {
		case *VarDecl:
			if _, ok := last.(*VarDecl); !ok && last != nil {
				p.nl()
			}
			p.varDecl(it)
			p.nl()
		case *Function:
			if last != nil {
				p.nl()
			}
			p.function(it)
		case *FileDirective:
			p.s(".file\t").i(int64(it.Index)).s(` "`).s(it.Name).s(`"`)
			if it.Timestamp != 0 || it.Size != 0 {
				p.s(", ").i(it.Timestamp).s(", ").i(it.Size)
			}
			p.nl()
		case *Section:
			p.s(".section\t").s(it.Name).nl().s("{").s(it.Raw).s("}").nl()
		}
		last = it
		if len(p.b) >= 32<<10 {
			if err := p.flush(bw); err != nil {
				return err
			}
		}
	}
	if err := p.flush(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// items lists the module's variables, functions, files and sections in
// source order, followed by any not seen by the parser, grouped by kind.
func items(m *Module) []any {
	n := len(m.Vars) + len(m.Funcs) + len(m.Files) + len(m.Sections)
	present := make(map[any]bool, n)
	for _, v := range m.Vars {
		present[v] = true
	}
	for _, f := range m.Funcs {
		present[f] = true
	}
	for _, f := range m.Files {
		present[f] = true
	}
	for _, s := range m.Sections {
		present[s] = true
	}
	out := make([]any, 0, n)
	for _, it := range m.order {
		if present[it] {
			out = append(out, it)
			delete(present, it) // once only
		}
	}
	add := func(it any) {
		if present[it] {
			out = append(out, it)
			delete(present, it)
		}
	}
	for _, v := range m.Vars {
		add(v)
	}
	for _, f := range m.Funcs {
		add(f)
	}
	for _, f := range m.Files {
		add(f)
	}
	for _, s := range m.Sections {
		add(s)
	}
	return out
}

type printer struct {
	b []byte
}

func (p *printer) flush(w *bufio.Writer) error {
	_, err := w.Write(p.b)
	p.b = p.b[:0]
	return err
}

func (p *printer) s(s string) *printer { p.b = append(p.b, s...); return p }
func (p *printer) nl() *printer        { p.b = append(p.b, '\n'); return p }
func (p *printer) i(v int64) *printer  { p.b = strconv.AppendInt(p.b, v, 10); return p }

func (p *printer) hex(v uint64, digits int) {
	const h = "0123456789ABCDEF"
	for k := digits - 1; k >= 0; k-- {
		p.b = append(p.b, h[(v>>(4*uint(k)))&15])
	}
}

func (p *printer) function(f *Function) {
	if f.Linkage != "" {
		p.s(f.Linkage).s(" ")
	}
	if f.Entry {
		p.s(".entry ")
	} else {
		p.s(".func ")
		if f.Returns != nil {
			p.s(" ")
			p.paramList(f.Returns, false)
			p.s(" ")
		}
	}
	p.s(f.Name)
	if f.Params != nil || f.Entry || f.HasBody {
		p.paramList(f.Params, true)
	}
	p.nl()
	if f.NoReturn {
		p.s(".noreturn").nl()
	}
	for _, d := range f.Perf {
		p.s(d.Name)
		for i, v := range d.Values {
			if i > 0 {
				p.s(",")
			}
			p.s(" ").i(v)
		}
		p.nl()
	}
	if !f.HasBody {
		p.s(";").nl()
		return
	}
	if !f.bodyParsed && f.owner != nil && f.bodyEnd < len(f.owner.src) {
		p.s(f.owner.src[f.bodyStart : f.bodyEnd+1]).nl()
		return
	}
	p.s("{").nl()
	p.statements(f.Body)
	p.s("}").nl()
}

// paramList prints (a, b); multi puts one parameter per line, as nvcc does.
func (p *printer) paramList(ps []*Param, multi bool) {
	if !multi || len(ps) == 0 {
		p.s("(")
		for i, q := range ps {
			if i > 0 {
				p.s(", ")
			}
			p.param(q)
		}
		p.s(")")
		return
	}
	p.s("(").nl()
	for i, q := range ps {
		p.s("\t")
		p.param(q)
		if i < len(ps)-1 {
			p.s(",")
		}
		p.nl()
	}
	p.s(")")
}

func (p *printer) param(q *Param) {
	p.s(q.Space)
	if q.Align != 0 {
		p.s(" .align ").i(int64(q.Align))
	}
	if q.Vector != 0 {
		p.s(" .v").i(int64(q.Vector))
	}
	p.s(" ").s(q.Type)
	if q.PtrSpace != "" || q.PtrAlign != 0 {
		p.s(" .ptr")
		if q.PtrSpace != "" {
			p.s(" ").s(q.PtrSpace)
		}
		p.s(" .align ").i(int64(q.PtrAlign))
	}
	p.s(" ").s(q.Name)
	if q.ArrayLen >= 0 {
		p.s("[")
		if q.ArrayLen > 0 {
			p.i(int64(q.ArrayLen))
		}
		p.s("]")
	}
}

func (p *printer) varDecl(v *VarDecl) {
	if v.Linkage != "" {
		p.s(v.Linkage).s(" ")
	}
	p.s(v.Space)
	for _, a := range v.Attrs {
		p.s(" .attribute(").s(a).s(")")
	}
	if v.Align != 0 {
		p.s(" .align ").i(int64(v.Align))
	}
	if v.Vector != 0 {
		p.s(" .v").i(int64(v.Vector))
	}
	p.s(" ").s(v.Type).s(" ").s(v.Name)
	for _, d := range v.Dims {
		p.s("[")
		if d > 0 {
			p.i(d)
		}
		p.s("]")
	}
	if v.HasInit {
		p.s(" = ")
		scalar := v.Dims == nil && len(v.Init) == 1
		if !scalar {
			p.s("{")
		}
		for i, e := range v.Init {
			if i > 0 {
				p.s(", ")
			}
			p.initElem(e)
		}
		if !scalar {
			p.s("}")
		}
	}
	p.s(";")
}

func (p *printer) initElem(e *InitElem) {
	switch e.Kind {
	case InitInt:
		p.i(int64(e.Int))
	case InitFloat:
		p.float(e.Float, e.Double)
	case InitSymbol:
		if e.Generic {
			p.s("generic(").s(e.Symbol).s(")")
		} else {
			p.s(e.Symbol)
		}
		if e.Offset != 0 {
			p.s("+").i(e.Offset)
		}
	}
}

func (p *printer) float(bits uint64, double bool) {
	if double {
		p.s("0d")
		p.hex(bits, 16)
	} else {
		p.s("0f")
		p.hex(bits&0xFFFFFFFF, 8)
	}
}

func (p *printer) statements(body []*Statement) {
	for _, st := range body {
		p.statement(st)
	}
}

func (p *printer) statement(st *Statement) {
	switch {
	case st.Label != "":
		p.s(st.Label).s(":").nl()
	case st.Reg != nil:
		r := st.Reg
		p.s("\t.reg ")
		if r.Vector != 0 {
			p.s(".v").i(int64(r.Vector)).s(" ")
		}
		p.s(r.Type).s(" \t")
		for i, n := range r.Names {
			if i > 0 {
				p.s(", ")
			}
			p.s(n.Name)
			if n.Count > 0 {
				p.s("<").i(int64(n.Count)).s(">")
			}
		}
		p.s(";").nl()
	case st.Var != nil:
		p.s("\t")
		p.varDecl(st.Var)
		p.nl()
	case st.Loc != nil:
		l := st.Loc
		p.s("\t.loc\t").i(int64(l.File)).s(" ").i(int64(l.Line)).s(" ").i(int64(l.Column))
		if l.FunctionName != "" {
			p.s(", function_name ").s(l.FunctionName)
			if l.FunctionOff != 0 {
				p.s("+").i(l.FunctionOff)
			}
		}
		if l.Inlined {
			p.s(", inlined_at ").i(int64(l.InlinedFile)).s(" ").i(int64(l.InlinedLine)).s(" ").i(int64(l.InlinedCol))
		}
		p.nl()
	case st.Pragma != nil:
		p.s("\t.pragma ")
		for i, s := range st.Pragma {
			if i > 0 {
				p.s(", ")
			}
			p.s(`"`).s(s).s(`"`)
		}
		p.s(";").nl()
	case st.Prototype != nil:
		c := st.Prototype
		p.s("\t").s(c.Name).s(" : .callprototype ")
		p.paramList(c.Returns, false)
		p.s("_ ")
		p.paramList(c.Params, false)
		if c.NoReturn {
			p.s(" .noreturn")
		}
		p.s(";").nl()
	case st.Targets != nil:
		p.s("\t").s(st.Targets.Directive).s(" ")
		for i, n := range st.Targets.Names {
			if i > 0 {
				p.s(", ")
			}
			p.s(n)
		}
		p.s(";").nl()
	case st.Inst != nil:
		p.inst(st.Inst)
	case st.IsBlock || st.Block != nil:
		p.s("\t{").nl()
		p.statements(st.Block)
		p.s("\t}").nl()
	}
}

func (p *printer) inst(in *Instruction) {
	p.s("\t")
	if g := in.Guard; g != nil {
		p.s("@")
		if g.Neg {
			p.s("!")
		}
		p.s(g.Reg).s(" ")
	}
	p.s(in.Opcode)
	for _, m := range in.Mods {
		p.s(m)
	}
	if len(in.Operands) > 0 {
		p.s(" \t")
		p.operands(in.Operands)
	}
	p.s(";").nl()
}

func (p *printer) operands(ops []*Operand) {
	for i, op := range ops {
		if i > 0 {
			p.s(", ")
		}
		p.operand(op)
	}
}

func (p *printer) operand(op *Operand) {
	switch op.Kind {
	case OpName:
		if op.Neg {
			p.s("!")
		}
		if op.Minus {
			p.s("-")
		}
		p.s(op.Name)
		if op.Pair != "" {
			p.s("|").s(op.Pair)
		}
	case OpRegPlus:
		p.s(op.Name).s("+").i(op.Int)
	case OpInt:
		p.i(op.Int)
	case OpFloat:
		p.float(op.Float, op.Double)
	case OpAddress:
		p.s("[")
		if op.Name != "" {
			p.s(op.Name)
			if op.Int != 0 {
				p.s("+").i(op.Int)
			}
		} else {
			p.i(op.Int)
		}
		for _, e := range op.Elems {
			p.s(", ")
			p.operand(e)
		}
		p.s("]")
	case OpVector:
		p.s("{")
		p.operands(op.Elems)
		p.s("}")
	case OpList:
		p.s("(")
		p.operands(op.Elems)
		p.s(")")
	}
}
