package demangle

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotMangled is returned for a name that is not an Itanium C++ mangled
// name (it does not start with _Z): a C function, a PTX-only name.
var ErrNotMangled = errors.New("not a mangled C++ name")

// Error is a mangled name this package cannot read.
type Error struct {
	Name   string
	Offset int // where in Name reading stopped
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cannot demangle %s: %s at offset %d", e.Name, e.Msg, e.Offset)
}

// Option changes what Demangle prints.
type Option int

const (
	// NoParams prints a function's qualified name only: no return type,
	// parameters or qualifiers (c++filt -p).
	NoParams Option = iota + 1
)

// maxInput bounds the names Demangle reads; nvcc's longest are a few
// hundred bytes.
const maxInput = 1 << 14

// maxDepth bounds the nesting of types and names.
const maxDepth = 200

// Demangle returns the C++ name that mangled encodes, printed as GNU
// c++filt prints it. It returns ErrNotMangled for names that do not start
// with _Z and an *Error for malformed or unsupported ones.
func Demangle(mangled string, opts ...Option) (string, error) {
	if !strings.HasPrefix(mangled, "_Z") {
		return "", ErrNotMangled
	}
	if len(mangled) > maxInput {
		return "", &Error{Name: mangled, Msg: "name too long"}
	}
	st := &state{s: mangled, pos: 2}
	n := st.encoding()
	var clones []string
	for st.err == nil && st.pos < len(st.s) && st.s[st.pos] == '.' {
		clones = append(clones, st.vendorSuffix())
	}
	if st.err == nil && st.pos != len(st.s) {
		st.fail("unexpected characters")
	}
	if st.err != nil {
		return "", st.err
	}
	for _, o := range opts {
		if o == NoParams {
			if e, ok := n.(*encoding); ok {
				e.noParams = true
			}
		}
	}
	p := &printer{pack: -1}
	p.print(n)
	for _, c := range clones {
		p.str(" [clone " + c + "]")
	}
	if p.err != "" {
		return "", &Error{Name: mangled, Offset: len(mangled), Msg: p.err}
	}
	return p.b.String(), nil
}

// Filter returns the demangled form of name, or name itself if it is not
// a mangled name this package can read.
func Filter(name string, opts ...Option) string {
	if s, err := Demangle(name, opts...); err == nil {
		return s
	}
	return name
}

type state struct {
	s     string
	pos   int
	subs  []node
	tmpl  *[]node // the template arguments T_ refers to
	depth int
	// noTemplateArgs says a T_ being read is not followed by its own
	// template arguments (the type of a conversion operator).
	noTemplateArgs bool
	err            *Error
}

func (st *state) fail(msg string) node {
	if st.err == nil {
		st.err = &Error{Name: st.s, Offset: st.pos, Msg: msg}
	}
	return nil
}

func (st *state) peek() byte {
	if st.pos < len(st.s) {
		return st.s[st.pos]
	}
	return 0
}

func (st *state) peek2() byte {
	if st.pos+1 < len(st.s) {
		return st.s[st.pos+1]
	}
	return 0
}

func (st *state) eat(c byte) bool {
	if st.peek() == c {
		st.pos++
		return true
	}
	return false
}

func (st *state) expect(c byte) bool {
	if st.eat(c) {
		return true
	}
	st.fail(fmt.Sprintf("expected %q", c))
	return false
}

func (st *state) enter() bool {
	st.depth++
	if st.depth > maxDepth {
		st.fail("nested too deeply")
		return false
	}
	return st.err == nil
}

func (st *state) leave() { st.depth-- }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number reads [n] <decimal digits>.
func (st *state) number() (string, bool) {
	start := st.pos
	neg := st.eat('n')
	d := st.pos
	for isDigit(st.peek()) {
		st.pos++
	}
	if st.pos == d || st.pos-d > 19 {
		st.pos = start
		st.fail("expected a number")
		return "", false
	}
	v := st.s[d:st.pos]
	if neg {
		v = "-" + v
	}
	return v, true
}

// count reads a non-negative decimal length.
func (st *state) count() (int, bool) {
	n := 0
	start := st.pos
	for isDigit(st.peek()) {
		n = n*10 + int(st.s[st.pos]-'0')
		st.pos++
		if n > maxInput {
			st.fail("number too large")
			return 0, false
		}
	}
	if st.pos == start {
		st.fail("expected a number")
		return 0, false
	}
	return n, true
}

// seqID reads a base-36 substitution index up to '_'; "" is -1.
func (st *state) seqID() (int, bool) {
	n := -1
	for {
		c := st.peek()
		var d int
		switch {
		case isDigit(c):
			d = int(c - '0')
		case 'A' <= c && c <= 'Z':
			d = int(c-'A') + 10
		case c == '_':
			st.pos++
			return n + 1, true
		default:
			st.fail("bad substitution index")
			return 0, false
		}
		if n < 0 {
			n = 0
		}
		n = n*36 + d
		if n > maxInput {
			st.fail("substitution index too large")
			return 0, false
		}
		st.pos++
	}
}

func (st *state) vendorSuffix() string {
	start := st.pos
	st.pos++ // '.'
	c := st.peek()
	switch {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_':
		for c := st.peek(); 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'; c = st.peek() {
			st.pos++
		}
	case isDigit(c):
		for isDigit(st.peek()) {
			st.pos++
		}
	default:
		st.fail("bad vendor suffix")
		return ""
	}
	for st.peek() == '.' && isDigit(st.peek2()) {
		st.pos++
		for isDigit(st.peek()) {
			st.pos++
		}
	}
	return st.s[start:st.pos]
}

// nameInfo is what the end of a name says about the function it names.
type nameInfo struct {
	template bool   // the name ends in template arguments: a return type follows
	ctorConv bool   // a constructor, destructor or conversion: no return type
	cv, ref  string // qualifiers of a member function
}

// encoding reads <encoding>: a function (name and parameters), a data
// name, or a special name.
func (st *state) encoding() node {
	if !st.enter() {
		return nil
	}
	defer st.leave()
	switch st.peek() {
	case 'T', 'G':
		return st.specialName()
	}
	saved := st.tmpl
	st.tmpl = &[]node{}
	defer func() { st.tmpl = saved }()
	n, info := st.name(true)
	if st.err != nil {
		return nil
	}
	if c := st.peek(); c == 0 || c == 'E' || c == '.' {
		return n
	}
	e := &encoding{name: n, cv: info.cv, ref: info.ref}
	if info.template && !info.ctorConv {
		if e.ret = st.typ(); e.ret == nil {
			return nil
		}
	}
	params := st.params()
	if st.err != nil {
		return nil
	}
	e.params = params
	return e
}

// params reads parameter types up to 'E', '.' or the end; a lone void is
// an empty list.
func (st *state) params() []node {
	var ps []node
	voidOnly := st.peek() == 'v'
	for {
		c := st.peek()
		if c == 0 || c == 'E' || c == '.' {
			break
		}
		// The ref-qualifier of a function type (F ... R E).
		if (c == 'R' || c == 'O') && st.peek2() == 'E' {
			break
		}
		t := st.typ()
		if t == nil {
			return nil
		}
		ps = append(ps, t)
	}
	if voidOnly && len(ps) == 1 {
		return []node{}
	}
	return ps
}

func (st *state) specialName() node {
	two := func(prefix string, f func() node) node {
		st.pos += 2
		c := f()
		if c == nil {
			return nil
		}
		return &special{prefix: prefix, child: c}
	}
	switch st.s[st.pos:min(st.pos+2, len(st.s))] {
	case "TV":
		return two("vtable for ", st.typ)
	case "TT":
		return two("VTT for ", st.typ)
	case "TI":
		return two("typeinfo for ", st.typ)
	case "TS":
		return two("typeinfo name for ", st.typ)
	case "Th":
		return two("non-virtual thunk to ", func() node {
			if _, ok := st.number(); !ok || !st.expect('_') {
				return nil
			}
			return st.encoding()
		})
	case "Tv":
		return two("virtual thunk to ", func() node {
			if !st.callOffsetV() {
				return nil
			}
			return st.encoding()
		})
	case "Tc":
		return two("covariant return thunk to ", func() node {
			if !st.callOffset() || !st.callOffset() {
				return nil
			}
			return st.encoding()
		})
	case "TH":
		return two("TLS init function for ", st.plainName)
	case "TW":
		return two("TLS wrapper function for ", st.plainName)
	case "GV":
		return two("guard variable for ", st.plainName)
	case "GT":
		st.pos += 2
		if !st.eat('t') && !st.eat('n') {
			return st.fail("bad transaction clone")
		}
		c := st.encoding()
		if c == nil {
			return nil
		}
		return &special{prefix: "transaction clone for ", child: c}
	}
	return st.fail("unknown special name")
}

func (st *state) plainName() node {
	n, _ := st.name(false)
	return n
}

// callOffsetV reads the offsets of a virtual thunk: <number> _ <number> _.
func (st *state) callOffsetV() bool {
	if _, ok := st.number(); !ok || !st.expect('_') {
		return false
	}
	if _, ok := st.number(); !ok || !st.expect('_') {
		return false
	}
	return true
}

func (st *state) callOffset() bool {
	switch {
	case st.eat('h'):
		if _, ok := st.number(); !ok || !st.expect('_') {
			return false
		}
		return true
	case st.eat('v'):
		return st.callOffsetV()
	}
	st.fail("bad call offset")
	return false
}

// name reads <name>. top says it is the name of an encoding, whose
// template arguments T_ refers to.
func (st *state) name(top bool) (node, nameInfo) {
	var info nameInfo
	if !st.enter() {
		return nil, info
	}
	defer st.leave()
	switch c := st.peek(); {
	case c == 'N':
		return st.nested(top)
	case c == 'Z':
		return st.localName()
	case c == 'S' && st.peek2() != 't':
		// <unscoped-template-name> through a substitution.
		sub := st.substitution()
		if sub == nil {
			return nil, info
		}
		if st.peek() != 'I' {
			return st.fail("a substitution names a template but no arguments follow"), info
		}
		args := st.templateArgs(top)
		if args == nil {
			return nil, info
		}
		info.template = true
		return &template{n: sub, args: args}, info
	}
	var n node
	if st.peek() == 'S' {
		st.pos += 2 // St
		u, ctorConv := st.unqualifiedName(nil)
		if u == nil {
			return nil, info
		}
		info.ctorConv = ctorConv
		n = &nested{prefix: &name{"std"}, n: u}
	} else {
		u, ctorConv := st.unqualifiedName(nil)
		if u == nil {
			return nil, info
		}
		info.ctorConv = ctorConv
		n = u
	}
	if st.peek() == 'I' {
		st.subs = append(st.subs, n)
		args := st.templateArgs(top)
		if args == nil {
			return nil, info
		}
		info.template = true
		n = &template{n: n, args: args}
	}
	return n, info
}

func (st *state) cvQualifiers() string {
	var r, v, k bool
	for {
		switch {
		case st.eat('r'):
			r = true
		case st.eat('V'):
			v = true
		case st.eat('K'):
			k = true
		default:
			q := ""
			if k {
				q += " const"
			}
			if v {
				q += " volatile"
			}
			if r {
				q += " restrict"
			}
			return q
		}
	}
}

func (st *state) nested(top bool) (node, nameInfo) {
	var info nameInfo
	st.pos++ // N
	info.cv = st.cvQualifiers()
	switch {
	case st.eat('R'):
		info.ref = " &"
	case st.eat('O'):
		info.ref = " &&"
	}
	var cur node
	pushed := false
	for st.err == nil && st.peek() != 'E' {
		pushed = false
		c := st.peek()
		switch {
		case c == 0:
			return st.fail("unterminated nested name"), info
		case c == 'S' && st.peek2() == 't':
			if cur != nil {
				return st.fail("std:: inside a nested name"), info
			}
			st.pos += 2
			cur = &name{"std"}
			continue
		case c == 'S':
			if cur != nil {
				return st.fail("a substitution inside a nested name"), info
			}
			cur = st.substitution()
			if s, ok := cur.(*stdSub); ok {
				// A qualified name under std::string is under its full
				// type.
				cur = &stdSub{short: s.full, full: s.full, ctorName: s.ctorName}
			}
			info.template = false
			continue
		case c == 'I':
			if cur == nil {
				return st.fail("template arguments without a template"), info
			}
			args := st.templateArgs(top)
			if args == nil {
				return nil, info
			}
			cur = &template{n: cur, args: args}
			info.template = true
		case c == 'T':
			if cur != nil {
				return st.fail("a template parameter inside a nested name"), info
			}
			cur = st.templateParam()
			info.template = false
		case c == 'D' && (st.peek2() == 't' || st.peek2() == 'T'):
			if cur != nil {
				return st.fail("decltype inside a nested name"), info
			}
			cur = st.decltype()
			info.template = false
		case c == 'M':
			// <data-member-prefix>: the closure's scope is cur itself.
			st.pos++
			continue
		default:
			u, ctorConv := st.unqualifiedName(cur)
			if u == nil {
				return nil, info
			}
			info.ctorConv = ctorConv
			info.template = false
			if cur == nil {
				cur = u
			} else {
				cur = &nested{prefix: cur, n: u}
			}
		}
		if cur == nil {
			return nil, info
		}
		st.subs = append(st.subs, cur)
		pushed = true
	}
	if st.err != nil {
		return nil, info
	}
	st.pos++ // E
	if cur == nil {
		return st.fail("empty nested name"), info
	}
	if pushed {
		// The entity itself is not a substitution candidate (types add
		// themselves back).
		st.subs = st.subs[:len(st.subs)-1]
	}
	return cur, info
}

// unqualifiedName reads <unqualified-name>; scope is the enclosing name
// (for constructors). ctorConv reports a constructor, destructor or
// conversion operator.
func (st *state) unqualifiedName(scope node) (node, bool) {
	var n node
	ctorConv := false
	c := st.peek()
	switch {
	case isDigit(c):
		n = st.sourceName()
	case c == 'L':
		// GCC's internal-linkage prefix: L <source-name>.
		st.pos++
		n = st.sourceName()
		st.discriminator()
	case c == 'C' && (isDigit(st.peek2()) || st.peek2() == 'I'):
		if scope == nil {
			return st.fail("a constructor outside a class"), false
		}
		st.pos += 2
		if st.s[st.pos-1] == 'I' {
			st.pos++ // CI1 <base class type>
			if st.typ() == nil {
				return nil, false
			}
		}
		n, ctorConv = &ctor{cls: scope}, true
	case c == 'D' && isDigit(st.peek2()):
		if scope == nil {
			return st.fail("a destructor outside a class"), false
		}
		st.pos += 2
		n, ctorConv = &ctor{cls: scope, dtor: true}, true
	case c == 'U' && st.peek2() == 't':
		st.pos += 2
		num := "1"
		if isDigit(st.peek()) {
			v, ok := st.count()
			if !ok {
				return nil, false
			}
			num = fmt.Sprint(v + 2)
		}
		if !st.expect('_') {
			return nil, false
		}
		n = &name{"{unnamed type#" + num + "}"}
		st.subs = append(st.subs, n)
		return n, false
	case c == 'U' && st.peek2() == 'l':
		st.pos += 2
		params := st.params()
		if st.err != nil || !st.expect('E') {
			return nil, false
		}
		if params == nil {
			params = []node{}
		}
		num := "1"
		if isDigit(st.peek()) {
			v, ok := st.count()
			if !ok {
				return nil, false
			}
			num = fmt.Sprint(v + 2)
		}
		if !st.expect('_') {
			return nil, false
		}
		n = &lambda{params: params, n: num}
	case 'a' <= c && c <= 'z':
		n, ctorConv = st.operatorName()
	default:
		return st.fail("expected a name"), false
	}
	if n == nil {
		return nil, false
	}
	for st.peek() == 'B' {
		st.pos++
		t, ok := st.identifier()
		if !ok {
			return nil, false
		}
		n = &abiTag{n: n, tag: t}
	}
	return n, ctorConv
}

func (st *state) identifier() (string, bool) {
	n, ok := st.count()
	if !ok {
		return "", false
	}
	if n == 0 || st.pos+n > len(st.s) {
		st.fail("a name runs past the end")
		return "", false
	}
	id := st.s[st.pos : st.pos+n]
	st.pos += n
	return id, true
}

func (st *state) sourceName() node {
	id, ok := st.identifier()
	if !ok {
		return nil
	}
	if len(id) >= 10 && strings.HasPrefix(id, "_GLOBAL_") && strings.ContainsRune("._$", rune(id[8])) && id[9] == 'N' {
		return &name{"(anonymous namespace)"}
	}
	return &name{id}
}

// discriminator skips _ <digit> or __ <number> _.
func (st *state) discriminator() {
	if st.peek() != '_' {
		return
	}
	switch {
	case isDigit(st.peek2()):
		st.pos += 2
	case st.peek2() == '_':
		st.pos += 2
		if _, ok := st.count(); ok {
			st.expect('_')
		}
	}
}

func (st *state) localName() (node, nameInfo) {
	var info nameInfo
	st.pos++ // Z
	fn := st.encoding()
	if fn == nil || !st.expect('E') {
		return nil, info
	}
	var entity node
	switch st.peek() {
	case 's':
		st.pos++
		entity = &name{"string literal"}
	case 'd':
		// Default argument: d [<number>] _ <name>.
		st.pos++
		if isDigit(st.peek()) {
			if _, ok := st.count(); !ok {
				return nil, info
			}
		}
		if !st.expect('_') {
			return nil, info
		}
		entity, info = st.name(false)
	default:
		entity, info = st.name(false)
	}
	if entity == nil {
		return nil, info
	}
	st.discriminator()
	return &local{fn: fn, entity: entity}, info
}

// operators maps operator codes to their spelling and arity (as
// expressions).
var operators = map[string]struct {
	sym   string
	arity int
}{
	"nw": {"new", 1}, "na": {"new[]", 1}, "dl": {"delete", 1}, "da": {"delete[]", 1},
	"ps": {"+", 1}, "ng": {"-", 1}, "ad": {"&", 1}, "de": {"*", 1}, "co": {"~", 1},
	"pl": {"+", 2}, "mi": {"-", 2}, "ml": {"*", 2}, "dv": {"/", 2}, "rm": {"%", 2},
	"an": {"&", 2}, "or": {"|", 2}, "eo": {"^", 2}, "aS": {"=", 2}, "pL": {"+=", 2},
	"mI": {"-=", 2}, "mL": {"*=", 2}, "dV": {"/=", 2}, "rM": {"%=", 2}, "aN": {"&=", 2},
	"oR": {"|=", 2}, "eO": {"^=", 2}, "ls": {"<<", 2}, "rs": {">>", 2}, "lS": {"<<=", 2},
	"rS": {">>=", 2}, "eq": {"==", 2}, "ne": {"!=", 2}, "lt": {"<", 2}, "gt": {">", 2},
	"le": {"<=", 2}, "ge": {">=", 2}, "ss": {"<=>", 2}, "nt": {"!", 1}, "aa": {"&&", 2},
	"oo": {"||", 2}, "pp": {"++", 1}, "mm": {"--", 1}, "cm": {",", 2}, "pm": {"->*", 2},
	"pt": {"->", 2}, "cl": {"()", 0}, "ix": {"[]", 2}, "qu": {"?", 3}, "aw": {"co_await", 1},
}

func (st *state) operatorName() (node, bool) {
	code := st.s[st.pos:min(st.pos+2, len(st.s))]
	switch code {
	case "cv":
		st.pos += 2
		// In operator T_<int>, the arguments are the operator's, not a
		// template template parameter's.
		st.noTemplateArgs = true
		t := st.typ()
		st.noTemplateArgs = false
		if t == nil {
			return nil, false
		}
		return &conversion{t: t}, true
	case "li":
		st.pos += 2
		id, ok := st.identifier()
		if !ok {
			return nil, false
		}
		return &name{`operator"" ` + id}, false
	}
	if code != "" && code[0] == 'v' && len(code) == 2 && isDigit(code[1]) {
		st.pos += 2
		id, ok := st.identifier()
		if !ok {
			return nil, false
		}
		return &name{"operator " + id}, false
	}
	op, ok := operators[code]
	if !ok {
		return st.fail("unknown operator"), false
	}
	st.pos += 2
	sym := op.sym
	if c := sym[0]; 'a' <= c && c <= 'z' {
		sym = " " + sym
	}
	return &name{"operator" + sym}, false
}

var stdSubs = map[byte]*stdSub{
	'a': {"std::allocator", "std::allocator", "allocator"},
	'b': {"std::basic_string", "std::basic_string", "basic_string"},
	's': {"std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "basic_string"},
	'i': {"std::basic_istream<char, std::char_traits<char> >", "std::basic_istream<char, std::char_traits<char> >", "basic_istream"},
	'o': {"std::basic_ostream<char, std::char_traits<char> >", "std::basic_ostream<char, std::char_traits<char> >", "basic_ostream"},
	'd': {"std::basic_iostream<char, std::char_traits<char> >", "std::basic_iostream<char, std::char_traits<char> >", "basic_iostream"},
}

// substitution reads S_, S<seq-id>_ or one of the std abbreviations (not
// St, which callers handle).
func (st *state) substitution() node {
	st.pos++ // S
	if s, ok := stdSubs[st.peek()]; ok {
		st.pos++
		return s
	}
	i, ok := st.seqID()
	if !ok {
		return nil
	}
	if i >= len(st.subs) {
		return st.fail("substitution out of range")
	}
	return st.subs[i]
}

func (st *state) templateParam() node {
	st.pos++ // T
	i, ok := st.seqID()
	if !ok {
		return nil
	}
	return &templateParam{idx: i, scope: st.tmpl}
}

// templateArgs reads I <template-arg>+ E. top says they are the
// arguments of the encoding's name, which T_ refers to.
func (st *state) templateArgs(top bool) []node {
	if !st.enter() {
		return nil
	}
	defer st.leave()
	st.pos++ // I
	args := []node{}
	for st.err == nil && st.peek() != 'E' {
		if st.peek() == 0 {
			st.fail("unterminated template arguments")
			return nil
		}
		a := st.templateArg()
		if a == nil {
			return nil
		}
		args = append(args, a)
	}
	if st.err != nil {
		return nil
	}
	st.pos++ // E
	if top {
		*st.tmpl = args
	}
	return args
}

func (st *state) templateArg() node {
	switch st.peek() {
	case 'L':
		return st.exprPrimary()
	case 'X':
		st.pos++
		e := st.expression()
		if e == nil || !st.expect('E') {
			return nil
		}
		return e
	case 'J':
		st.pos++
		k := &pack{elems: []node{}}
		for st.err == nil && st.peek() != 'E' {
			if st.peek() == 0 {
				return st.fail("unterminated argument pack")
			}
			a := st.templateArg()
			if a == nil {
				return nil
			}
			k.elems = append(k.elems, a)
		}
		if st.err != nil {
			return nil
		}
		st.pos++
		return k
	}
	return st.typ()
}

var builtins = map[byte]string{
	'v': "void", 'w': "wchar_t", 'b': "bool", 'c': "char", 'a': "signed char",
	'h': "unsigned char", 's': "short", 't': "unsigned short", 'i': "int",
	'j': "unsigned int", 'l': "long", 'm': "unsigned long", 'x': "long long",
	'y': "unsigned long long", 'n': "__int128", 'o': "unsigned __int128",
	'f': "float", 'd': "double", 'e': "long double", 'g': "__float128", 'z': "...",
}

var dBuiltins = map[byte]string{
	'd': "decimal64", 'e': "decimal128", 'f': "decimal32", 'h': "half",
	'i': "char32_t", 's': "char16_t", 'u': "char8_t", 'a': "auto",
	'c': "decltype(auto)", 'n': "decltype(nullptr)",
}

// literalSuffix is how c++filt writes a literal of an integer type
// without a cast.
var literalSuffix = map[byte]string{'i': "", 'j': "u", 'l': "l", 'm': "ul", 'x': "ll", 'y': "ull"}

// typ reads <type>.
func (st *state) typ() node {
	if !st.enter() {
		return nil
	}
	defer st.leave()
	c := st.peek()
	if s, ok := builtins[c]; ok {
		st.pos++
		return &name{s}
	}
	var t node
	switch c {
	case 'u':
		st.pos++
		id, ok := st.identifier()
		if !ok {
			return nil
		}
		t = &name{id}
	case 'U':
		// Vendor qualifier: U <source-name> <type> (address spaces).
		st.pos++
		id, ok := st.identifier()
		if !ok {
			return nil
		}
		child := st.typ()
		if child == nil {
			return nil
		}
		t = &qual{child: child, q: " " + id}
	case 'D':
		switch c2 := st.peek2(); c2 {
		case 'p':
			st.pos += 2
			child := st.typ()
			if child == nil {
				return nil
			}
			t = &expansion{pattern: child}
		case 't', 'T':
			t = st.decltype()
		case 'v':
			st.pos += 2
			dim, ok := st.number()
			if !ok || !st.expect('_') {
				return nil
			}
			elem := st.typ()
			if elem == nil {
				return nil
			}
			t = &vector{elem: elem, dim: dim}
		case 'F':
			st.pos += 2
			bits, ok := st.number()
			if !ok {
				return nil
			}
			switch {
			case st.eat('_'):
				t = &name{"_Float" + bits}
			case st.eat('x'):
				t = &name{"_Float" + bits + "x"}
			default:
				return st.fail("bad _Float type")
			}
			return t
		case 'B', 'U':
			st.pos += 2
			bits, ok := st.number()
			if !ok || !st.expect('_') {
				return nil
			}
			if c2 == 'U' {
				return &name{"unsigned _BitInt(" + bits + ")"}
			}
			return &name{"_BitInt(" + bits + ")"}
		case 'x', 'o', 'O', 'w':
			t = st.functionType("")
		default:
			if s, ok := dBuiltins[c2]; ok {
				st.pos += 2
				return &name{s}
			}
			return st.fail("unknown type")
		}
	case 'r', 'V', 'K':
		q := st.cvQualifiers()
		if st.peek() == 'F' {
			t = st.functionType(q)
			break
		}
		child := st.typ()
		if child == nil {
			return nil
		}
		t = &qual{child: child, q: q}
	case 'P', 'R', 'O':
		st.pos++
		child := st.typ()
		if child == nil {
			return nil
		}
		t = &pointer{child: child, sym: map[byte]string{'P': "*", 'R': "&", 'O': "&&"}[c]}
	case 'C', 'G':
		st.pos++
		child := st.typ()
		if child == nil {
			return nil
		}
		suffix := " _Complex"
		if c == 'G' {
			suffix = " _Imaginary"
		}
		t = &qual{child: child, q: suffix}
	case 'F':
		t = st.functionType("")
	case 'A':
		t = st.arrayType()
	case 'M':
		st.pos++
		cls := st.typ()
		if cls == nil {
			return nil
		}
		mem := st.typ()
		if mem == nil {
			return nil
		}
		t = &memberPointer{cls: cls, member: mem}
	case 'T':
		switch st.peek2() {
		case 's', 'u', 'e':
			// Elaborated type specifier: Ts <name> (struct), Tu, Te.
			st.pos += 2
			n, _ := st.name(false)
			t = n
		default:
			t = st.templateParam()
			if t != nil && st.peek() == 'I' && !st.noTemplateArgs {
				st.subs = append(st.subs, t)
				args := st.templateArgs(false)
				if args == nil {
					return nil
				}
				t = &template{n: t, args: args}
			}
		}
	case 'S':
		if st.peek2() == 't' {
			n, _ := st.name(false)
			t = n
			break
		}
		sub := st.substitution()
		if sub == nil || st.peek() != 'I' {
			return sub // a substitution is not a new candidate
		}
		args := st.templateArgs(false)
		if args == nil {
			return nil
		}
		t = &template{n: sub, args: args}
	case 'N', 'Z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, _ := st.name(false)
		t = n
	default:
		return st.fail("unknown type")
	}
	if t == nil || st.err != nil {
		return nil
	}
	st.subs = append(st.subs, t)
	return t
}

// functionType reads [Dx/Do/DO...E/Dw...E] F [Y] <return> <params> [R|O] E;
// q are the CV qualifiers that preceded it.
func (st *state) functionType(q string) node {
	for st.peek() == 'D' {
		switch st.peek2() {
		case 'x', 'o':
			st.pos += 2
		case 'O':
			st.pos += 2
			if st.expression() == nil || !st.expect('E') {
				return nil
			}
		case 'w':
			st.pos += 2
			for st.err == nil && st.peek() != 'E' {
				if st.peek() == 0 || st.typ() == nil {
					return st.fail("unterminated exception specification")
				}
			}
			st.pos++
		default:
			return st.fail("unknown type")
		}
	}
	if !st.expect('F') {
		return nil
	}
	st.eat('Y')
	ret := st.typ()
	if ret == nil {
		return nil
	}
	params := st.params()
	if st.err != nil {
		return nil
	}
	f := &function{ret: ret, params: params}
	if params == nil {
		return st.fail("a function type without parameters")
	}
	switch {
	case st.eat('R'):
		f.ref = " &"
	case st.eat('O'):
		f.ref = " &&"
	}
	if !st.expect('E') {
		return nil
	}
	if q != "" {
		st.subs = append(st.subs, f)
		return &qual{child: f, q: q}
	}
	return f
}

func (st *state) arrayType() node {
	st.pos++ // A
	a := &array{}
	switch c := st.peek(); {
	case c == '_':
	case isDigit(c):
		d, ok := st.number()
		if !ok {
			return nil
		}
		a.dim = &name{d}
	default:
		if a.dim = st.expression(); a.dim == nil {
			return nil
		}
	}
	if !st.expect('_') {
		return nil
	}
	if a.elem = st.typ(); a.elem == nil {
		return nil
	}
	return a
}

func (st *state) decltype() node {
	st.pos += 2 // Dt or DT
	e := st.expression()
	if e == nil || !st.expect('E') {
		return nil
	}
	return &decltype{e: e}
}

// exprPrimary reads L <type> <value> E, L <mangled-name> E.
func (st *state) exprPrimary() node {
	if !st.enter() {
		return nil
	}
	defer st.leave()
	st.pos++ // L
	if st.peek() == '_' && st.peek2() == 'Z' || st.peek() == 'Z' {
		if st.peek() == '_' {
			st.pos++
		}
		st.pos++
		enc := st.encoding()
		if enc == nil || !st.expect('E') {
			return nil
		}
		return &entity{enc: enc}
	}
	tc := st.peek()
	t := st.typ()
	if t == nil {
		return nil
	}
	if st.eat('E') {
		return t // LDnE: nullptr
	}
	var val string
	switch tc {
	case 'f', 'd', 'e', 'g':
		start := st.pos
		for c := st.peek(); isDigit(c) || 'a' <= c && c <= 'f'; c = st.peek() {
			st.pos++
		}
		val = "[" + st.s[start:st.pos] + "]"
	default:
		v, ok := st.number()
		if !ok {
			return nil
		}
		val = v
	}
	if !st.expect('E') {
		return nil
	}
	if tc == 'b' && (val == "0" || val == "1") {
		return &name{map[string]string{"0": "false", "1": "true"}[val]}
	}
	if sfx, ok := literalSuffix[tc]; ok {
		return &literal{t: t, val: val, suffix: sfx}
	}
	return &literal{t: t, val: val, cast: true}
}

// expression reads the subset of <expression> that template arguments,
// array bounds and decltype in CUDA code use.
func (st *state) expression() node {
	if !st.enter() {
		return nil
	}
	defer st.leave()
	c := st.peek()
	switch {
	case c == 'T':
		return st.templateParam()
	case c == 'L':
		return st.exprPrimary()
	case isDigit(c):
		n, _ := st.name(false)
		return n
	case c == 'f' && st.peek2() == 'p':
		st.pos += 2
		st.cvQualifiers()
		if st.eat('_') {
			return &funcParam{n: "1"}
		}
		v, ok := st.count()
		if !ok || !st.expect('_') {
			return nil
		}
		return &funcParam{n: fmt.Sprint(v + 2)}
	}
	code := st.s[st.pos:min(st.pos+2, len(st.s))]
	switch code {
	case "st", "at":
		st.pos += 2
		t := st.typ()
		if t == nil {
			return nil
		}
		return &sizeofType{op: map[string]string{"st": "sizeof", "at": "alignof"}[code], t: t}
	case "sz", "az":
		st.pos += 2
		a := st.expression()
		if a == nil {
			return nil
		}
		return &unary{op: map[string]string{"sz": "sizeof ", "az": "alignof "}[code], a: a}
	case "cl":
		st.pos += 2
		fn := st.expression()
		if fn == nil {
			return nil
		}
		var args []node
		for st.err == nil && st.peek() != 'E' {
			if st.peek() == 0 {
				return st.fail("unterminated call")
			}
			a := st.expression()
			if a == nil {
				return nil
			}
			args = append(args, a)
		}
		st.pos++
		return &call{fn: fn, args: args}
	case "cv":
		st.pos += 2
		t := st.typ()
		if t == nil {
			return nil
		}
		if st.peek() == '_' {
			return st.fail("unsupported expression")
		}
		a := st.expression()
		if a == nil {
			return nil
		}
		return &cast{t: t, a: a}
	case "dt", "pt":
		st.pos += 2
		a := st.expression()
		if a == nil {
			return nil
		}
		m, _ := st.unqualifiedName(nil)
		if m == nil {
			return nil
		}
		return &member{op: map[string]string{"dt": ".", "pt": "->"}[code], a: a, m: m}
	}
	op, ok := operators[code]
	if !ok || op.arity == 0 || op.arity == 3 || code == "nw" || code == "na" || code == "dl" || code == "da" {
		return st.fail("unsupported expression")
	}
	st.pos += 2
	a := st.expression()
	if a == nil {
		return nil
	}
	if op.arity == 1 {
		return &unary{op: op.sym, a: a}
	}
	b := st.expression()
	if b == nil {
		return nil
	}
	return &binary{op: op.sym, a: a, b: b}
}

// Signature splits a function's mangled name into its qualified name (as
// NoParams prints it) and its parameter types, one string each (none for
// f(void)). A name that is not a function's has no parameters.
func Signature(mangled string) (name string, params []string, err error) {
	if name, err = Demangle(mangled, NoParams); err != nil {
		return "", nil, err
	}
	st := &state{s: mangled, pos: 2}
	e, ok := st.encoding().(*encoding)
	if !ok || st.err != nil {
		return name, nil, nil
	}
	for _, t := range e.params {
		// A pack expansion is as many parameters as its pack has elements.
		n, pattern, pack := 1, t, -1
		if x, ok := t.(*expansion); ok {
			if k := packSize(x.pattern, &printer{pack: -1}, 0); k >= 0 {
				n, pattern, pack = k, x.pattern, 0
			}
		}
		for i := 0; i < n; i++ {
			p := &printer{pack: -1}
			if pack >= 0 {
				p.pack = i
			}
			p.print(pattern)
			if p.err != "" {
				return "", nil, &Error{Name: mangled, Offset: len(mangled), Msg: p.err}
			}
			params = append(params, p.b.String())
		}
	}
	return name, params, nil
}
