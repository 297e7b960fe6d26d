package demangle

import "strings"

// A node is a piece of a demangled name. Declarator syntax splits a type
// around the name it declares (int (*p)[4]): left prints what comes before
// the name, right what comes after.
type node interface {
	left(p *printer)
	right(p *printer)
}

// maxOutput and maxSteps bound the work of printing: substitutions share
// nodes, so a short name can describe an enormous tree.
const (
	maxOutput = 1 << 16
	maxSteps  = 1 << 20
)

type printer struct {
	b     strings.Builder
	steps int
	err   string
	// pack is the element of an argument pack a pack expansion is
	// printing (-1 outside expansions).
	pack int
	// resolving counts the template parameters being printed inside one
	// another: T_ can name an argument that is itself T_.
	resolving int
}

func (p *printer) ok() bool {
	p.steps++
	if p.err == "" && (p.b.Len() > maxOutput || p.steps > maxSteps) {
		p.err = "the demangled name is too large"
	}
	return p.err == ""
}

func (p *printer) str(s string) {
	if p.ok() {
		p.b.WriteString(s)
	}
}

func (p *printer) last() byte {
	s := p.b.String()
	if s == "" {
		return 0
	}
	return s[len(s)-1]
}

func (p *printer) print(n node) {
	if p.ok() {
		n.left(p)
		n.right(p)
	}
}

// list prints nodes separated by ", ", expanding argument packs.
func (p *printer) list(ns []node) {
	first := true
	for _, n := range ns {
		if !p.ok() {
			return
		}
		if isEmptyPack(n, p, 0) {
			continue // an empty pack prints nothing, separator included
		}
		if !first {
			p.str(", ")
		}
		p.print(n)
		first = false
	}
}

func isEmptyPack(n node, p *printer, depth int) bool {
	switch n := n.(type) {
	case *pack:
		return len(n.elems) == 0
	case *templateParam:
		if r := n.resolve(p); r != nil && depth < 32 {
			return isEmptyPack(r, p, depth+1)
		}
	case *expansion:
		return packSize(n.pattern, p, 0) == 0
	}
	return false
}

// name is an identifier, a builtin type or any fixed text.
type name struct{ s string }

func (n *name) left(p *printer)  { p.str(n.s) }
func (n *name) right(p *printer) {}

// nested is prefix::n.
type nested struct{ prefix, n node }

func (n *nested) left(p *printer) {
	p.print(n.prefix)
	p.str("::")
	p.print(n.n)
}
func (n *nested) right(p *printer) {}

// template is n<args>.
type template struct {
	n    node
	args []node
}

func (t *template) left(p *printer) {
	p.print(t.n)
	p.str("<")
	p.list(t.args)
	if p.last() == '>' {
		p.str(" ")
	}
	p.str(">")
}
func (t *template) right(p *printer) {}

// abiTag is n[abi:tag].
type abiTag struct {
	n   node
	tag string
}

func (a *abiTag) left(p *printer) {
	p.print(a.n)
	p.str("[abi:" + a.tag + "]")
}
func (a *abiTag) right(p *printer) {}

// qual is a type with CV qualifiers (" const", " volatile", " restrict").
type qual struct {
	child node
	q     string
}

func (q *qual) left(p *printer) {
	q.child.left(p)
	if _, fn := q.child.(*function); !fn {
		p.str(q.q)
	}
}

func (q *qual) right(p *printer) {
	q.child.right(p)
	if _, fn := q.child.(*function); fn {
		p.str(q.q)
	}
}

// declarator reports whether a pointer to t needs parentheses: t is a
// function or array type (through qualifiers).
func declarator(t node) bool {
	switch t := t.(type) {
	case *function, *array:
		return true
	case *qual:
		_, fn := t.child.(*function)
		return fn
	}
	return false
}

// opensParen reports whether t's left part ends inside the parentheses of
// a declarator (void (*), int (&): the name goes right there.
func opensParen(t node) bool {
	switch t := t.(type) {
	case *pointer:
		return declarator(t.child) || opensParen(t.child)
	case *memberPointer:
		return declarator(t.member) || opensParen(t.member)
	case *qual:
		return opensParen(t.child)
	case *array:
		return opensParen(t.elem)
	case *function:
		return t.ret != nil && opensParen(t.ret)
	}
	return false
}

// pointer is a pointer or reference: sym is "*", "&" or "&&".
type pointer struct {
	child node
	sym   string
}

func (t *pointer) left(p *printer) {
	child, sym := t.collapse(p)
	child.left(p)
	if declarator(child) {
		if c := p.last(); c != '(' && c != '*' && c != ' ' {
			p.str(" ")
		}
		p.str("(")
	}
	p.str(sym)
}

func (t *pointer) right(p *printer) {
	child, _ := t.collapse(p)
	if declarator(child) {
		p.str(")")
	}
	child.right(p)
}

// collapse applies C++'s reference collapsing to a reference whose
// referent, through template parameters, is a reference: T& with T = U&&
// is U&, T&& with T = U& is U&.
func (t *pointer) collapse(p *printer) (node, string) {
	child, sym := t.child, t.sym
	if sym == "*" {
		return child, sym
	}
	for i := 0; i < 64; i++ {
		r := child
		if tp, ok := r.(*templateParam); ok {
			if r = tp.resolve(p); r == nil {
				return t.child, t.sym
			}
		}
		inner, ok := r.(*pointer)
		if !ok || inner.sym == "*" {
			return child, sym
		}
		if inner.sym == "&" {
			sym = "&"
		}
		child = inner.child
	}
	return child, sym
}

// memberPointer is a pointer to a member of class cls.
type memberPointer struct{ cls, member node }

func (t *memberPointer) left(p *printer) {
	t.member.left(p)
	if declarator(t.member) {
		if c := p.last(); c != '(' && c != '*' && c != ' ' {
			p.str(" ")
		}
		p.str("(")
	} else {
		p.str(" ")
	}
	p.print(t.cls)
	p.str("::*")
}

func (t *memberPointer) right(p *printer) {
	if declarator(t.member) {
		p.str(")")
	}
	t.member.right(p)
}

// function is a function type.
type function struct {
	ret    node
	params []node
	cv     string // " const" etc. of a member function type
	ref    string // " &" or " &&"
}

func (f *function) left(p *printer) {
	if f.ret != nil {
		f.ret.left(p)
	}
}

func (f *function) right(p *printer) {
	if c := p.last(); c != ')' && c != ' ' {
		p.str(" ")
	}
	p.str("(")
	p.list(f.params)
	p.str(")")
	p.str(f.cv + f.ref)
	if f.ret != nil {
		f.ret.right(p)
	}
}

// array is elem [dim].
type array struct {
	elem node
	dim  node // nil: unknown bound
}

func (a *array) left(p *printer) { a.elem.left(p) }

func (a *array) right(p *printer) {
	if p.last() != ']' {
		p.str(" ")
	}
	p.str("[")
	if a.dim != nil {
		p.print(a.dim)
	}
	p.str("]")
	a.elem.right(p)
}

// vector is a GNU vector type.
type vector struct {
	elem node
	dim  string
}

func (v *vector) left(p *printer) {
	p.print(v.elem)
	p.str(" __vector(" + v.dim + ")")
}
func (v *vector) right(p *printer) {}

// encoding is a function: return type (templates only), name, parameters.
type encoding struct {
	name   node
	ret    node
	params []node
	cv     string
	ref    string
	// noParams prints only the name (Options NoParams); set on the
	// outermost encoding by Demangle.
	noParams bool
}

func (e *encoding) left(p *printer) {
	if e.noParams {
		p.print(e.name)
		return
	}
	if e.ret != nil {
		e.ret.left(p)
		if !opensParen(e.ret) {
			p.str(" ")
		}
	}
	p.print(e.name)
	p.str("(")
	p.list(e.params)
	p.str(")")
	p.str(e.cv + e.ref)
	if e.ret != nil {
		e.ret.right(p)
	}
}
func (e *encoding) right(p *printer) {}

// local is an entity declared inside a function.
type local struct{ fn, entity node }

func (l *local) left(p *printer) {
	p.print(l.fn)
	p.str("::")
	p.print(l.entity)
}
func (l *local) right(p *printer) {}

// special is "vtable for X" and the like.
type special struct {
	prefix string
	child  node
}

func (s *special) left(p *printer) {
	p.str(s.prefix)
	p.print(s.child)
}
func (s *special) right(p *printer) {}

// lambda is a closure type.
type lambda struct {
	params []node
	n      string
}

func (l *lambda) left(p *printer) {
	p.str("{lambda(")
	p.list(l.params)
	p.str(")#" + l.n + "}")
}
func (l *lambda) right(p *printer) {}

// ctor is a constructor or destructor of the class its prefix names.
type ctor struct {
	cls  node
	dtor bool
}

func (c *ctor) left(p *printer) {
	if c.dtor {
		p.str("~")
	}
	p.print(baseName(c.cls))
}
func (c *ctor) right(p *printer) {}

// baseName is the unqualified name of a class, without template
// arguments: what its constructors are called.
func baseName(n node) node {
	for {
		switch t := n.(type) {
		case *nested:
			n = t.n
		case *template:
			n = t.n
		case *abiTag:
			n = t.n
		case *stdSub:
			return &name{t.ctorName}
		default:
			return n
		}
	}
}

// stdSub is one of the abbreviations Sa, Sb, Ss, Si, So, Sd. It prints its
// short form, but a constructor of it uses the class template's name and
// a qualified name under it the full type.
type stdSub struct {
	short, full, ctorName string
}

func (s *stdSub) left(p *printer)  { p.str(s.short) }
func (s *stdSub) right(p *printer) {}

// conversion is "operator T".
type conversion struct{ t node }

func (c *conversion) left(p *printer) {
	p.str("operator ")
	p.print(c.t)
}
func (c *conversion) right(p *printer) {}

// pack is an argument pack (J ... E).
type pack struct{ elems []node }

func (k *pack) left(p *printer) {
	if p.pack >= 0 && p.pack < len(k.elems) {
		p.print(k.elems[p.pack])
		return
	}
	p.list(k.elems)
}
func (k *pack) right(p *printer) {}

// expansion is a pack expansion (Dp T): the pattern printed once per
// element of the pack it mentions.
type expansion struct{ pattern node }

func (e *expansion) left(p *printer) {
	n := packSize(e.pattern, p, 0)
	if n < 0 {
		p.print(e.pattern)
		return
	}
	saved := p.pack
	for i := 0; i < n; i++ {
		if i > 0 {
			p.str(", ")
		}
		p.pack = i
		p.print(e.pattern)
	}
	p.pack = saved
}
func (e *expansion) right(p *printer) {}

// packSize finds the size of the first argument pack n refers to (-1:
// none).
func packSize(n node, p *printer, depth int) int {
	if depth > 64 || !p.ok() {
		return -1
	}
	switch t := n.(type) {
	case *templateParam:
		if r := t.resolve(p); r != nil {
			if k, ok := r.(*pack); ok {
				return len(k.elems)
			}
		}
	case *pack:
		return len(t.elems)
	case *pointer:
		return packSize(t.child, p, depth+1)
	case *qual:
		return packSize(t.child, p, depth+1)
	case *template:
		for _, a := range t.args {
			if s := packSize(a, p, depth+1); s >= 0 {
				return s
			}
		}
	case *nested:
		if s := packSize(t.prefix, p, depth+1); s >= 0 {
			return s
		}
		return packSize(t.n, p, depth+1)
	case *function:
		if t.ret != nil {
			if s := packSize(t.ret, p, depth+1); s >= 0 {
				return s
			}
		}
		for _, a := range t.params {
			if s := packSize(a, p, depth+1); s >= 0 {
				return s
			}
		}
	}
	return -1
}

// templateParam is T_, T0_, ...: the argument of the template being
// encoded, known only once its arguments have been read.
type templateParam struct {
	idx   int
	scope *[]node
}

// resolve returns the argument t names.
func (t *templateParam) resolve(p *printer) node {
	if t.scope == nil || t.idx >= len(*t.scope) {
		if p.err == "" {
			p.err = "a template parameter refers to no template argument"
		}
		return nil
	}
	return (*t.scope)[t.idx]
}

// enter guards against an argument that names itself (T_ = T_).
func (t *templateParam) enter(p *printer) bool {
	if p.resolving >= 32 {
		if p.err == "" {
			p.err = "a template parameter refers to itself"
		}
		return false
	}
	p.resolving++
	return true
}

func (t *templateParam) left(p *printer) {
	if r := t.resolve(p); r != nil && p.ok() && t.enter(p) {
		r.left(p)
		p.resolving--
	}
}

func (t *templateParam) right(p *printer) {
	if r := t.resolve(p); r != nil && p.ok() && t.enter(p) {
		r.right(p)
		p.resolving--
	}
}

// Expressions (template arguments X...E, array bounds, decltype).

// subexpr prints an operand, parenthesised unless it is a name or a
// function parameter (as c++filt does).
func subexpr(p *printer, n node) {
	switch n.(type) {
	case *name, *nested, *funcParam:
		p.print(n)
	default:
		p.str("(")
		p.print(n)
		p.str(")")
	}
}

type binary struct {
	op   string
	a, b node
}

func (e *binary) left(p *printer) {
	if e.op == ">" {
		p.str("(")
	}
	subexpr(p, e.a)
	p.str(e.op)
	subexpr(p, e.b)
	if e.op == ">" {
		p.str(")")
	}
}
func (e *binary) right(p *printer) {}

type unary struct {
	op string
	a  node
}

func (e *unary) left(p *printer) {
	p.str(e.op)
	subexpr(p, e.a)
}
func (e *unary) right(p *printer) {}

// sizeofType is sizeof (T) or alignof (T).
type sizeofType struct {
	op string
	t  node
}

func (e *sizeofType) left(p *printer) {
	p.str(e.op + " (")
	p.print(e.t)
	p.str(")")
}
func (e *sizeofType) right(p *printer) {}

type call struct {
	fn   node
	args []node
}

func (e *call) left(p *printer) {
	p.print(e.fn)
	p.str("(")
	p.list(e.args)
	p.str(")")
}
func (e *call) right(p *printer) {}

type cast struct{ t, a node }

func (e *cast) left(p *printer) {
	p.str("(")
	p.print(e.t)
	p.str(")")
	p.print(e.a)
}
func (e *cast) right(p *printer) {}

type member struct {
	op   string // "." or "->"
	a, m node
}

func (e *member) left(p *printer) {
	p.print(e.a)
	p.str(e.op)
	p.print(e.m)
}
func (e *member) right(p *printer) {}

type funcParam struct{ n string }

func (f *funcParam) left(p *printer)  { p.str("{parm#" + f.n + "}") }
func (f *funcParam) right(p *printer) {}

type decltype struct{ e node }

func (d *decltype) left(p *printer) {
	p.str("decltype (")
	p.print(d.e)
	p.str(")")
}
func (d *decltype) right(p *printer) {}

// literal is a typed constant: 16u, -5, true, (char)65.
type literal struct {
	t   node // printed in a cast when suffix is "" and cast is set
	val string
	// suffix is the C++ literal suffix of the type (u, l, ul, ll, ull);
	// cast says the value is printed as (T)val.
	suffix string
	cast   bool
}

func (l *literal) left(p *printer) {
	if l.cast {
		p.str("(")
		p.print(l.t)
		p.str(")")
	}
	p.str(l.val + l.suffix)
}
func (l *literal) right(p *printer) {}

// addrOf is a template argument naming an entity (L_Z...E): &name.
type entity struct{ enc node }

func (e *entity) left(p *printer)  { p.print(e.enc) }
func (e *entity) right(p *printer) {}
