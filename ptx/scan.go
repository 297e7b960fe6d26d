package ptx

import (
	"strconv"
	"strings"
)

// Decls summarises a function body from a token scan, without parsing it:
// what it declares and which names it mentions. Listing the kernels of a
// large module with their resources needs no more than this, at the
// lexer's speed rather than the parser's.
type Decls struct {
	// Regs counts declared registers by type (".b32" -> 35 for %r<35>).
	Regs map[string]int
	// Vars are the .local, .shared and .param variables declared in the body
	// (initialisers are not read).
	Vars []*VarDecl
	// Names are the identifiers the body mentions (operands, call targets).
	Names map[string]bool
	// Instructions counts the instruction statements.
	Instructions int
}

// ScanDecls summarises the body of f. For a function whose body is already
// parsed, it walks the statements instead.
func (m *Module) ScanDecls(f *Function) *Decls {
	d := &Decls{Regs: map[string]int{}, Names: map[string]bool{}}
	if !f.HasBody {
		return d
	}
	if f.bodyParsed || f.owner == nil {
		d.walk(f.Body)
		return d
	}
	sc := newScanner(m.Filename, m.src, f.bodyStart+1, f.bodyEnd, f.bodyPos.Line, false)
	var stmt []string // the tokens of the current statement
	var types []byte  // their types
	flush := func() {
		if len(stmt) > 0 {
			d.statement(stmt, types)
		}
		stmt, types = stmt[:0], types[:0]
	}
	locLine := 0 // .loc ends at the end of its line, without a ';'
	for {
		t, _ := sc.Next()
		if locLine != 0 && t.Pos.Line != locLine {
			stmt, types, locLine = stmt[:0], types[:0], 0
		}
		if t.Type == tDot && t.Value == ".loc" && len(stmt) == 0 {
			locLine = t.Pos.Line
		}
		switch t.Type {
		case tEOF:
			flush()
			return d
		case tPunct:
			switch t.Value {
			case ";", "{", "}":
				flush()
				continue
			case ":":
				// a label ends a statement of its own
				if len(stmt) == 1 {
					stmt, types = stmt[:0], types[:0]
					continue
				}
			}
		}
		stmt = append(stmt, t.Value)
		types = append(types, byte(t.Type))
	}
}

// statement records one statement's declarations and names.
func (d *Decls) statement(toks []string, types []byte) {
	switch toks[0] {
	case ".reg":
		t, vec := "", 0
		for i := 1; i < len(toks); i++ {
			tok := toks[i]
			switch {
			case tok == ".v2" || tok == ".v4":
				vec = int(tok[2] - '0')
			case types[i] == byte(tDot) && t == "":
				t = tok
			case types[i] == byte(tIdent):
				n := 1
				if i+3 < len(toks) && toks[i+1] == "<" && toks[i+3] == ">" {
					if v, err := strconv.Atoi(toks[i+2]); err == nil {
						n = v
					}
					i += 3
				}
				if vec > 0 {
					n *= vec
				}
				d.Regs[t] += n
			}
		}
		return
	case ".local", ".shared", ".param":
		v := &VarDecl{Space: toks[0]}
		for i := 1; i < len(toks); i++ {
			tok := toks[i]
			switch {
			case tok == "=":
				i = len(toks)
			case tok == ".align" && i+1 < len(toks):
				v.Align, _ = strconv.Atoi(toks[i+1])
				i++
			case tok == ".v2" || tok == ".v4":
				v.Vector = int(tok[2] - '0')
			case tok == ".extern" || tok == ".visible" || tok == ".weak":
				v.Linkage = tok
			case types[i] == byte(tDot) && v.Type == "":
				v.Type = tok
			case types[i] == byte(tIdent) && v.Name == "":
				v.Name = tok
			case tok == "[" && i+1 < len(toks):
				n := int64(0)
				if toks[i+1] != "]" {
					n, _ = strconv.ParseInt(toks[i+1], 0, 64)
					i++
				}
				v.Dims = append(v.Dims, n)
			}
		}
		d.Vars = append(d.Vars, v)
		return
	}
	if types[0] == byte(tIdent) && !strings.HasPrefix(toks[0], "%") {
		d.Instructions++
	} else if toks[0] == "@" || toks[0] == "@!" {
		d.Instructions++
	}
	for i, tok := range toks {
		if types[i] == byte(tIdent) && i > 0 {
			d.Names[tok] = true
		}
	}
}

// walk summarises already parsed statements.
func (d *Decls) walk(ss []*Statement) {
	for _, s := range ss {
		switch {
		case s.IsBlock:
			d.walk(s.Block)
		case s.Reg != nil:
			for _, n := range s.Reg.Names {
				c := max(n.Count, 1)
				if s.Reg.Vector > 0 {
					c *= s.Reg.Vector
				}
				d.Regs[s.Reg.Type] += c
			}
		case s.Var != nil:
			d.Vars = append(d.Vars, s.Var)
		case s.Inst != nil:
			d.Instructions++
			for _, o := range s.Inst.Operands {
				d.names(o)
			}
		}
	}
}

func (d *Decls) names(o *Operand) {
	if o.Name != "" {
		d.Names[o.Name] = true
	}
	for _, e := range o.Elems {
		d.names(e)
	}
}
