package ptx

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"golang.org/x/sync/errgroup"
)

// Mode controls optional parser behaviour.
type Mode uint

const (
	// AllErrors reports every error, not only the first ten on different lines.
	AllErrors Mode = 1 << iota
	// Lazy parses module directives and function headers only; bodies are
	// parsed by Module.ParseBody when asked for.
	Lazy
)

// maxErrors is how many errors a parse reports without AllErrors.
const maxErrors = 10

// Parse parses a whole PTX module, bodies included (in parallel on large
// modules). On errors it returns the module as far as it could be parsed
// and an ErrorList.
//
// The AST's strings point into one copy of src that the module keeps.
func Parse(filename string, src []byte) (*Module, error) {
	return ParseMode(filename, src, 0)
}

// ParseLazy parses the module directives, variables and function headers;
// each body is parsed when Module.ParseBody is called for it. Errors in a
// body are reported by ParseBody.
func ParseLazy(filename string, src []byte) (*Module, error) {
	return ParseMode(filename, src, Lazy)
}

// ParseMode parses a module with the given Mode.
func ParseMode(filename string, src []byte, mode Mode) (*Module, error) {
	m := &Module{
		Pos:         Pos{Filename: filename, Line: 1, Column: 1},
		Filename:    filename,
		AddressSize: 64,
		src:         string(src),
		mode:        mode,
	}
	errs := &errSink{all: mode&AllErrors != 0}
	m.parseItems(errs)
	m.index()
	list := errs.list
	if mode&Lazy == 0 {
		list = append(list, m.parseAllBodies()...)
	}
	return m, finish(list, mode)
}

// finish sorts the errors, keeps one per line and the first ten (unless
// AllErrors), and returns nil for none.
func finish(list ErrorList, mode Mode) error {
	if len(list) == 0 {
		return nil
	}
	if mode&AllErrors != 0 {
		list.Sort()
		return list
	}
	list.RemoveMultiples()
	if len(list) > maxErrors {
		list = list[:maxErrors]
	}
	return list
}

// Entry returns the kernel (.entry) called name, or nil.
func (m *Module) Entry(name string) *Function { return m.entries[name] }

// Func returns the function or kernel called name, or nil. Where a
// function is both declared and defined, the definition is returned.
func (m *Module) Func(name string) *Function { return m.funcs[name] }

func (m *Module) index() {
	m.entries = make(map[string]*Function)
	m.funcs = make(map[string]*Function, len(m.Funcs))
	for _, f := range m.Funcs {
		if f.Entry {
			if old := m.entries[f.Name]; old == nil || !old.HasBody {
				m.entries[f.Name] = f
			}
		}
		if old := m.funcs[f.Name]; old == nil || !old.HasBody {
			m.funcs[f.Name] = f
		}
	}
}

// ParseBody parses the body of f, a function of m, unless it has been
// parsed already; it returns the body's errors as an ErrorList (the same
// ones on every call). It is safe to call from several goroutines.
func (m *Module) ParseBody(f *Function) error {
	if f == nil || !f.HasBody || f.once == nil {
		return nil // not a parsed function with a body: nothing to do
	}
	if f.owner != m {
		return fmt.Errorf("ptx: function %s is not a function of module %s", f.Name, m.Filename)
	}
	f.once.Do(func() {
		f.bodyErr = finish(m.parseBody(f), m.mode)
	})
	return f.bodyErr
}

// parseAllBodies parses every body not parsed yet, in parallel when the
// module is large, and returns their errors.
func (m *Module) parseAllBodies() ErrorList {
	var todo []*Function
	size := 0
	for _, f := range m.Funcs {
		if f.HasBody && f.once != nil && !f.bodyParsed {
			todo = append(todo, f)
			size += f.bodyEnd - f.bodyStart
		}
	}
	procs := runtime.GOMAXPROCS(0)
	if procs == 1 || len(todo) < 2 || size < 64<<10 {
		for _, f := range todo {
			_ = m.ParseBody(f)
		}
	} else {
		var g errgroup.Group
		g.SetLimit(procs)
		for _, f := range todo {
			g.Go(func() error {
				_ = m.ParseBody(f)
				return nil
			})
		}
		_ = g.Wait()
	}
	var list ErrorList
	for _, f := range todo {
		if l, ok := f.bodyErr.(ErrorList); ok {
			list = append(list, l...)
		}
	}
	return list
}

// errSink collects errors: one per line and at most ten unless all.
type errSink struct {
	list ErrorList
	all  bool
}

func (e *errSink) add(pos Pos, msg string) {
	if n := len(e.list); !e.all && n > 0 && e.list[n-1].Pos.Line == pos.Line {
		return
	}
	e.list = append(e.list, &Error{Pos: pos, Msg: msg})
}

func (e *errSink) full() bool { return !e.all && len(e.list) >= maxErrors }

// ---- module level ----

// itemStart are the directives that begin a module-level item.
var itemStart = map[string]bool{
	".version": true, ".target": true, ".address_size": true, ".file": true, ".section": true,
	".visible": true, ".weak": true, ".extern": true, ".common": true,
	".entry": true, ".func": true, ".global": true, ".const": true, ".shared": true, ".tex": true, ".local": true,
}

func (m *Module) parseItems(errs *errSink) {
	sc := newScanner(m.Filename, m.src, 0, len(m.src), 1, true)
	plex, _ := lexer.Upgrade(sc) // the scanner never fails
	c := conv{errs: errs}
	p := &stmtParser{plex: plex, errs: errs, eofText: "end of file",
		startWords: "a module directive such as .version, .target, .entry, .func or .global"}
	for !errs.full() {
		t := plex.Peek()
		if t.EOF() {
			if m.Version == "" && len(errs.list) == 0 {
				// PTX requires .version (and .target) before anything else;
				// without it this is not a PTX module (an empty or wrong file).
				errs.add(Pos{Filename: m.Filename, Line: 1, Column: 1}, "expected a .version directive (a PTX module begins with .version and .target), found none")
			}
			return
		}
		start := plex.MakeCheckpoint()
		p.kind = kindVar
		it := fast(p, (*fastParser).item)
		var err error
		if it == nil {
			it, err = itemParser.ParseFromLexer(plex, trailing...)
		}
		if err != nil {
			off := p.syntaxError(err, start)
			p.resyncItem(start, off)
			continue
		}
		switch {
		case it.Version != nil:
			m.Version = *it.Version
		case it.Target != nil:
			m.Target = it.Target
		case it.Address != nil:
			m.AddressSize = int(c.size(it.Pos, *it.Address))
			if m.AddressSize != 32 && m.AddressSize != 64 {
				errs.add(it.Pos, "expected .address_size 32 or 64, found "+*it.Address)
			}
		case it.File != nil:
			f := &FileDirective{Pos: it.Pos, Index: int(c.size(it.File.Pos, it.File.Index)), Name: unquote(it.File.Name)}
			if it.File.Timestamp != nil {
				f.Timestamp = int64(c.int(it.File.Pos, *it.File.Timestamp))
				f.Size = int64(c.int(it.File.Pos, *it.File.Size))
			}
			m.Files = append(m.Files, f)
			m.order = append(m.order, f)
		case it.Section != nil:
			b := it.Section.Body.Value
			s := &Section{Pos: it.Pos, Name: it.Section.Name, Raw: b[1 : len(b)-1]}
			m.Sections = append(m.Sections, s)
			m.order = append(m.order, s)
		default:
			linkage := ""
			if it.Linkage != nil {
				linkage = *it.Linkage
			}
			if it.Func != nil {
				f := c.function(it.Func, linkage, m)
				f.Pos = it.Pos
				m.Funcs = append(m.Funcs, f)
				m.order = append(m.order, f)
			} else {
				v := c.varDecl(it.Var, linkage)
				v.Pos = it.Pos
				if v.Space == ".param" {
					errs.add(it.Pos, "expected a .global, .const, .shared or .tex variable at module scope, found .param")
				}
				m.Vars = append(m.Vars, v)
				m.order = append(m.order, v)
			}
		}
	}
}

// resyncItem skips a broken module item: to just after the ';' or body
// that ends it, or to a directive beginning a line that starts a new item.
func (p *stmtParser) resyncItem(start lexer.Checkpoint, errOff int) {
	plex := p.plex
	plex.LoadCheckpoint(start)
	prevLine := -1
	for first := true; ; first = false {
		t := plex.Peek()
		if t.EOF() {
			return
		}
		if !first && t.Pos.Offset >= errOff && t.Pos.Line != prevLine && t.Type == tDot && itemStart[t.Value] {
			return
		}
		plex.Next()
		if t.Pos.Offset >= errOff && (t.Type == tBody || t.Type == tPunct && t.Value == ";") {
			return
		}
		prevLine = t.Pos.Line
	}
}

// ---- bodies ----

// stmtParser holds the state of parsing one token stream.
type stmtParser struct {
	plex    *lexer.PeekingLexer
	errs    *errSink
	c       conv
	eofText string // how the end of the stream reads in a message
	kind    int    // the statement grammar being parsed, for messages

	// startWords says what may begin an item, for an error at its first token
	startWords string
}

const (
	kindOther = iota
	kindList  // a statement ending in a comma list: instruction, .reg, .pragma, .branchtargets
	kindVar   // a variable declaration
	kindLoc   // .loc, which ends at the end of its line
)

type openBlock struct {
	list *[]*Statement
	pos  Pos
}

// parseBody parses f's body from the module source and returns its errors.
func (m *Module) parseBody(f *Function) ErrorList {
	sc := newScanner(m.Filename, m.src, f.bodyStart+1, f.bodyEnd, f.bodyPos.Line, false)
	plex, _ := lexer.Upgrade(sc)
	errs := &errSink{all: m.mode&AllErrors != 0}
	p := &stmtParser{plex: plex, errs: errs, c: conv{errs: errs}, eofText: `"}"`}
	f.Body = p.statements()
	f.bodyParsed = true
	return errs.list
}

func isPunct(t *lexer.Token, v string) bool { return t.Type == tPunct && t.Value == v }

// statements parses statements until the end of the stream.
func (p *stmtParser) statements() []*Statement {
	var body []*Statement
	stack := []openBlock{{list: &body}}
	cur := &body
	plex := p.plex
	for !p.errs.full() {
		t := plex.Peek()
		var st *Statement
		switch t.Type {
		case tEOF:
			if len(stack) > 1 {
				open := stack[len(stack)-1].pos
				p.errs.add(t.Pos, fmt.Sprintf("expected \"}\" to close the block opened at line %d, found the end of the function body", open.Line))
			}
			return body
		case tPunct:
			switch t.Value {
			case "{":
				plex.Next()
				st = &Statement{Pos: t.Pos, IsBlock: true}
				*cur = append(*cur, st)
				stack = append(stack, openBlock{list: &st.Block, pos: t.Pos})
				cur = &st.Block
				continue
			case "}":
				plex.Next()
				if len(stack) == 1 {
					p.errs.add(t.Pos, "expected a statement, found \"}\" with no block open")
					continue
				}
				stack = stack[:len(stack)-1]
				cur = stack[len(stack)-1].list
				continue
			case ";":
				plex.Next() // an empty statement
				continue
			case "@":
				if g := fast(p, (*fastParser).guarded); g != nil {
					st = &Statement{Pos: g.Pos, Inst: p.c.guarded(g)}
				} else if g := parseWith(p, guardedParser, kindList); g != nil {
					st = &Statement{Pos: g.Pos, Inst: p.c.guarded(g)}
				}
			default:
				p.unexpected(t, "a statement")
			}
		case tDot:
			switch t.Value {
			case ".reg":
				if g := fast(p, (*fastParser).reg); g != nil {
					st = &Statement{Pos: g.Pos, Reg: p.c.reg(g)}
				} else if g := parseWith(p, regParser, kindList); g != nil {
					st = &Statement{Pos: g.Pos, Reg: p.c.reg(g)}
				}
			case ".local", ".shared", ".param", ".const", ".global", ".tex":
				if g := fast(p, (*fastParser).varDecl); g != nil {
					st = &Statement{Pos: g.Pos, Var: p.c.varDecl(g, "")}
				} else if g := parseWith(p, varParser, kindVar); g != nil {
					st = &Statement{Pos: g.Pos, Var: p.c.varDecl(g, "")}
				}
			case ".loc":
				if g := fast(p, (*fastParser).loc); g != nil {
					st = &Statement{Pos: g.Pos, Loc: p.c.loc(g)}
				} else if g := parseWith(p, locParser, kindLoc); g != nil {
					st = &Statement{Pos: g.Pos, Loc: p.c.loc(g)}
				}
			case ".pragma":
				if g := parseWith(p, pragmaParser, kindList); g != nil {
					st = &Statement{Pos: g.Pos, Pragma: make([]string, len(g.Strings))}
					for i, s := range g.Strings {
						st.Pragma[i] = unquote(s)
					}
				}
			case ".branchtargets", ".calltargets":
				if g := parseWith(p, targetsParser, kindList); g != nil {
					st = &Statement{Pos: g.Pos, Targets: &TargetList{Pos: g.Pos, Directive: g.Kind, Names: g.Names}}
				}
			default:
				p.unexpected(t, "a statement")
			}
		case tIdent:
			cp := plex.MakeCheckpoint()
			plex.Next()
			t2 := *plex.Peek()
			var t3 lexer.Token
			if isPunct(&t2, ":") {
				plex.Next()
				t3 = *plex.Peek()
			}
			plex.LoadCheckpoint(cp)
			switch {
			case t3.Type == tDot && t3.Value == ".callprototype":
				if g := parseWith(p, protoParser, kindOther); g != nil {
					st = &Statement{Pos: g.Pos, Prototype: p.c.proto(g)}
				}
			case isPunct(&t2, ":"):
				plex.Next()
				plex.Next()
				st = &Statement{Pos: t.Pos, Label: t.Value}
			default:
				st = p.inst()
			}
		default:
			p.unexpected(t, "a statement")
		}
		if st != nil {
			*cur = append(*cur, st)
		}
	}
	return body
}

func (p *stmtParser) inst() *Statement {
	if g := fast(p, (*fastParser).inst); g != nil {
		return &Statement{Pos: g.Pos, Inst: p.c.inst(g)}
	}
	if g := parseWith(p, instParser, kindList); g != nil {
		return &Statement{Pos: g.Pos, Inst: p.c.inst(g)}
	}
	return nil
}

// parseWith runs one statement grammar from the current token; on a
// syntax error it reports it, skips the statement and returns nil.
func parseWith[G any](p *stmtParser, parser *participle.Parser[G], kind int) *G {
	p.kind = kind
	start := p.plex.MakeCheckpoint()
	g, err := parser.ParseFromLexer(p.plex, trailing...)
	if err != nil {
		off := p.syntaxError(err, start)
		p.resync(start, off)
		return nil
	}
	return g
}

// unexpected reports a token that cannot start a statement and skips it.
func (p *stmtParser) unexpected(t *lexer.Token, what string) {
	start := p.plex.MakeCheckpoint()
	if t.Type == tError || t.Type == tDeep {
		p.errs.add(t.Pos, lexMessage(t))
	} else {
		p.errs.add(t.Pos, "expected "+what+", found "+p.describe(t))
	}
	p.resync(start, t.Pos.Offset)
}

// bodyDirectives begin statements in a body.
var bodyDirectives = map[string]bool{
	".reg": true, ".local": true, ".shared": true, ".param": true, ".const": true, ".global": true,
	".tex": true, ".loc": true, ".pragma": true, ".branchtargets": true, ".calltargets": true,
}

// resync skips the broken statement that begins at start: to just after
// its ';', or to the first token after the error that begins a line and
// looks like the start of a statement, or to a '}' closing the enclosing
// block. Braces inside the statement (vector operands) are skipped whole.
func (p *stmtParser) resync(start lexer.Checkpoint, errOff int) {
	plex := p.plex
	plex.LoadCheckpoint(start)
	prevLine := -1
	depth := 0
	for first := true; ; first = false {
		t := plex.Peek()
		if t.EOF() {
			return
		}
		// nvcc never spreads a vector over lines, so a new line that looks
		// like a statement ends the broken one even inside braces.
		if !first && t.Pos.Offset >= errOff && t.Pos.Line != prevLine && p.startsStatement(t) {
			return
		}
		if t.Type == tPunct {
			switch t.Value {
			case "{":
				depth++
			case "}":
				if depth == 0 {
					if first {
						plex.Next()
					}
					return
				}
				depth--
			case ";":
				if depth == 0 {
					plex.Next()
					return
				}
			}
		}
		plex.Next()
		prevLine = t.Pos.Line
	}
}

// startsStatement guesses whether t (first on its line) begins a statement.
func (p *stmtParser) startsStatement(t *lexer.Token) bool {
	switch t.Type {
	case tDot:
		return bodyDirectives[t.Value]
	case tPunct:
		return t.Value == "@" || t.Value == "{" || t.Value == "}"
	case tIdent:
		if strings.IndexByte(t.Value, '.') > 0 && t.Value[0] != '%' {
			return true // an opcode with modifiers
		}
		// a label, or an opcode unless what follows continues a list
		cp := p.plex.MakeCheckpoint()
		p.plex.Next()
		n := p.plex.Peek()
		p.plex.LoadCheckpoint(cp)
		if n.Type == tPunct {
			switch n.Value {
			case ",", ")", "]", "}", "|", "+", "-":
				return false
			}
		}
		return true
	}
	return false
}

// ---- error messages ----

// syntaxError reports a participle error in the form "expected X, found
// Y" and returns the offset of the offending token.
func (p *stmtParser) syntaxError(err error, start lexer.Checkpoint) int {
	var ute *participle.UnexpectedTokenError
	if !errors.As(err, &ute) {
		var perr participle.Error
		if errors.As(err, &perr) {
			p.errs.add(perr.Position(), perr.Message())
			return perr.Position().Offset
		}
		t := p.plex.Peek()
		p.errs.add(t.Pos, err.Error())
		return t.Pos.Offset
	}
	tok := ute.Unexpected
	if tok.Type == tError || tok.Type == tDeep {
		p.errs.add(tok.Pos, lexMessage(&tok))
		return tok.Pos.Offset
	}
	expected := expectation(ute)
	prev := p.tokenBefore(start, tok.Pos.Offset)
	if prev == nil && p.startWords != "" {
		expected = p.startWords
	}
	expected = p.refine(expected, prev)
	// A statement cut short at the end of a line: report it there.
	if prev != nil && prev.Pos.Line < tok.Pos.Line && (strings.Contains(expected, `";"`) || p.kind == kindLoc) {
		p.errs.add(endOf(prev), "expected "+expected+", found newline")
		return tok.Pos.Offset
	}
	p.errs.add(tok.Pos, "expected "+expected+", found "+p.describe(&tok))
	return tok.Pos.Offset
}

// refine adds what participle leaves out of an expectation: the comma of
// a list, the count of an array, the rest of a declaration.
func (p *stmtParser) refine(expected string, prev *lexer.Token) string {
	if prev == nil {
		return expected
	}
	pv := ""
	if prev.Type == tPunct {
		pv = prev.Value
	}
	switch expected {
	case `"]"`:
		if pv == "[" {
			return `an integer or "]"`
		}
	case `")"`, `"}"`:
		if pv == "" || pv == ")" || pv == "]" || pv == "}" {
			return `"," or ` + expected
		}
	case `";"`:
		switch p.kind {
		case kindList:
			if pv != "," {
				return `"," or ";"`
			}
		case kindVar:
			return `"[", "=" or ";"`
		}
	}
	return expected
}

// tokenBefore returns the token before the one at offset off, scanning
// from start, or nil.
func (p *stmtParser) tokenBefore(start lexer.Checkpoint, off int) *lexer.Token {
	plex := p.plex
	save := plex.MakeCheckpoint()
	defer plex.LoadCheckpoint(save)
	plex.LoadCheckpoint(start)
	var prev *lexer.Token
	for {
		t := plex.Peek()
		if t.EOF() || t.Pos.Offset >= off {
			return prev
		}
		prev = plex.Next()
	}
}

// endOf is the position just after a token.
func endOf(t *lexer.Token) Pos {
	pos := t.Pos
	v := t.Value
	if i := strings.LastIndexByte(v, '\n'); i >= 0 {
		pos.Line += strings.Count(v, "\n")
		pos.Column = 1
		v = v[i+1:]
	}
	pos.Offset += len(t.Value)
	pos.Column += len(v)
	return pos
}

// describe names a token for a message.
func (p *stmtParser) describe(t *lexer.Token) string {
	switch t.Type {
	case tEOF:
		return p.eofText
	case tBody:
		return "a { ... } block"
	case tString:
		if len(t.Value) > 40 {
			return "a string"
		}
	}
	v := t.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return strconv.Quote(v)
}

// expectation turns participle's idea of what was expected into words.
func expectation(u *participle.UnexpectedTokenError) string {
	msg := u.Message()
	i := strings.Index(msg, "(expected ")
	if i < 0 {
		return "something else"
	}
	e := strings.TrimSuffix(msg[i+len("(expected "):], ")")
	return friendly(e)
}

// friendly rewrites participle's EBNF of an expectation: the first
// element of a sequence is what was needed at the failing token.
func friendly(e string) string {
	e = firstElement(e)
	if r, ok := nodeWords[e]; ok {
		return r
	}
	e = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(e, "?"), "*"), "+")
	if strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") && balanced(e[1:len(e)-1]) {
		e = e[1 : len(e)-1]
	}
	if r, ok := nodeWords[e]; ok {
		return r
	}
	alts := splitTop(e, " | ")
	if len(alts) > 1 {
		var words []string
		for _, a := range alts {
			w := friendly(a)
			if w == "" {
				continue
			}
			words = append(words, w)
		}
		return orList(words)
	}
	return e
}

// nodeWords names grammar nodes and token classes in messages.
var nodeWords = map[string]string{
	"<ident>":     "a name",
	"<dot>":       "a directive or type",
	"<int>":       "an integer",
	"<float>":     "a floating literal",
	"<string>":    "a string",
	"<body>":      `"{"`,
	"GOperand":    "an operand",
	"GParam":      "a parameter declaration",
	"GParams":     `"("`,
	"GAttr":       "an attribute",
	"GNum":        "a number",
	"GInit":       "an initialiser",
	"GRegName":    "a register name",
	"GDim":        `"["`,
	"GPerf":       "a directive",
	"GFunc":       ".entry or .func",
	"GVar":        "a variable declaration",
	"GGuard":      `"@"`,
	"GAddr":       "an address",
	"GList":       `"("`,
	"GInlineAt":   `"inlined_at"`,
	"GInitScalar": "an initialiser",
}

func balanced(s string) bool {
	d := 0
	inq := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inq = !inq
		case inq:
		case c == '(':
			d++
		case c == ')':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// firstElement returns the first element of an EBNF sequence.
func firstElement(e string) string {
	parts := splitTop(e, " ")
	if len(parts) == 0 {
		return e
	}
	return parts[0]
}

// splitTop splits s at sep outside parentheses and quotes.
func splitTop(s, sep string) []string {
	var out []string
	d := 0
	inq := false
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && (i == 0 || s[i-1] != '\\'):
			inq = !inq
		case inq:
		case c == '(':
			d++
		case c == ')':
			d--
		case d == 0 && strings.HasPrefix(s[i:], sep):
			out = append(out, s[last:i])
			i += len(sep) - 1
			last = i + 1
		}
	}
	return append(out, s[last:])
}

func orList(w []string) string {
	switch len(w) {
	case 0:
		return "something else"
	case 1:
		return w[0]
	}
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}

// lexMessage explains a token the lexer could not make sense of.
func lexMessage(t *lexer.Token) string {
	v := t.Value
	if t.Type == tDeep {
		return fmt.Sprintf("brackets nested more than %d deep", maxNesting)
	}
	switch {
	case v == "":
		return "unexpected end of input"
	case v[0] == '"':
		return "string literal not terminated"
	case strings.HasPrefix(v, "/*"):
		return "comment not terminated"
	case v[0] == '{':
		return `"{" has no matching "}"`
	case v[0] >= '0' && v[0] <= '9':
		return "malformed number " + strconv.Quote(v)
	case v[0] == '%':
		return `expected a register name after "%"`
	case v[0] == '.':
		return "malformed directive or modifier " + strconv.Quote(v)
	}
	r, _ := utf8.DecodeRuneInString(v)
	if r == utf8.RuneError {
		return fmt.Sprintf("unexpected byte 0x%02X", v[0])
	}
	return fmt.Sprintf("unexpected character %q", r)
}
