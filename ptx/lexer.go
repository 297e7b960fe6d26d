package ptx

import (
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types produced by the hand-written lexer. The names are the ones
// the participle grammar tags refer to (@Ident, @Dot, ...).
const (
	tEOF    = lexer.EOF
	tIdent  = lexer.TokenType(iota + 1) // %r1, %tid.x, _Z3fooi, $L__BB0_1, sm_90a, _, ld.global.nc.v4.f32
	tDot                                // .reg, .b32, .global, .L2::128B, .shared::cta
	tInt                                // 42, 0x1F, 017, 0b101, 7U (sign is a separate token)
	tFloat                              // 0f3F800000, 0d3FF0000000000000, 1.5, 2e10
	tString                             // "nounroll" (Value keeps the quotes)
	tPunct                              // one of , ; : { } [ ] ( ) < > = + - ! @ |
	tBody                               // module mode: a whole top-level { ... } block, verbatim
	tError                              // text the lexer could not make sense of
	tDeep                               // a bracket nested more than maxNesting deep
)

var tokenNames = map[lexer.TokenType]string{
	tEOF:    "EOF",
	tIdent:  "Ident",
	tDot:    "Dot",
	tInt:    "Int",
	tFloat:  "Float",
	tString: "String",
	tPunct:  "Punct",
	tBody:   "Body",
	tError:  "Error",
	tDeep:   "Deep",
}

// character classes
const (
	cIdent  = 1 << iota // may continue an identifier: [A-Za-z0-9_$]
	cStart              // may start an identifier: [A-Za-z_$]
	cDigit              // [0-9]
	cHex                // [0-9A-Fa-f]
	cPunct              // single-character punctuation
	cSpace              // blank (not newline)
	cScanBr             // interesting to the brace scanner: { } " / \n
)

var class [256]uint8

func init() {
	for c := 'a'; c <= 'z'; c++ {
		class[c] |= cIdent | cStart
	}
	for c := 'A'; c <= 'Z'; c++ {
		class[c] |= cIdent | cStart
	}
	class['_'] |= cIdent | cStart
	class['$'] |= cIdent | cStart
	for c := '0'; c <= '9'; c++ {
		class[c] |= cIdent | cDigit | cHex
	}
	for _, c := range "abcdefABCDEF" {
		class[c] |= cHex
	}
	for _, c := range ",;:{}[]()<>=+-!@|" {
		class[c] |= cPunct
	}
	for _, c := range " \t\r\f\v" {
		class[c] |= cSpace
	}
	for _, c := range "{}\"/\n" {
		class[c] |= cScanBr
	}
}

// lexDef is the participle lexer.Definition for PTX.
type lexDef struct{}

// ptxLexer is the package's lexer definition.
var ptxLexer lexer.Definition = lexDef{}

func (lexDef) Symbols() map[string]lexer.TokenType {
	m := make(map[string]lexer.TokenType, len(tokenNames))
	for t, n := range tokenNames {
		m[n] = t
	}
	return m
}

func (d lexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (lexDef) LexString(filename, src string) (lexer.Lexer, error) {
	return newScanner(filename, src, 0, len(src), 1, false), nil
}

func (lexDef) LexBytes(filename string, src []byte) (lexer.Lexer, error) {
	return newScanner(filename, string(src), 0, len(src), 1, false), nil
}

// scanner is the hand-written PTX lexer. It works on a range of a string
// holding the whole source, so token values are substrings (no copies) and
// offsets are absolute.
type scanner struct {
	src          string
	filename     string
	pos          int // next byte to read
	end          int // end of the range
	line         int // line of pos
	lineStart    int // offset of the first byte of that line
	module       bool
	last         byte // the last punctuation emitted, or 0
	operand      bool // the last token ends an operand (name, number, ')' or ']')
	lastEnd      int  // where the last token ended
	errTok       lexer.Token
	tokLine      int // line of the token being scanned
	tokLineStart int
	nest         int         // brackets open ({, (, [), bounded by maxNesting
	braces       *braceIndex // module mode: braces after an unbalanced one
}

// maxNesting bounds how deep brackets may nest in a statement or an
// initialiser, which bounds the parser's recursion: deeper input is an
// error, not a stack overflow.
const maxNesting = 256

// newScanner lexes src[start:end]; line is the line number of offset start.
// In module mode a top-level `{ ... }` that is not part of an initialiser
// is returned whole as one tBody token (function bodies and .section
// contents), found by a fast brace-matching scan.
func newScanner(filename, src string, start, end, line int, module bool) *scanner {
	ls := start
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	return &scanner{src: src, filename: filename, pos: start, end: end, line: line, lineStart: ls, module: module}
}

func (s *scanner) position(off int) lexer.Position {
	return lexer.Position{Filename: s.filename, Offset: off, Line: s.line, Column: off - s.lineStart + 1}
}

// skip skips blanks, newlines and comments. An unterminated block comment
// is returned as an error token.
func (s *scanner) skip() bool {
	src := s.src
	for s.pos < s.end {
		c := src[s.pos]
		switch {
		case c == ' ' || c == '\t':
			s.pos++
		case class[c]&cSpace != 0:
			s.pos++
		case c == '\n':
			s.pos++
			s.line++
			s.lineStart = s.pos
		case c == '/' && s.pos+1 < s.end && src[s.pos+1] == '/':
			i := strings.IndexByte(src[s.pos:s.end], '\n')
			if i < 0 {
				s.pos = s.end
			} else {
				s.pos += i
			}
		case c == '/' && s.pos+1 < s.end && src[s.pos+1] == '*':
			start := s.pos
			startTok := s.position(start)
			s.pos += 2
			for {
				if s.pos+1 >= s.end {
					s.pos = s.end
					s.errTok = lexer.Token{Type: tError, Value: src[start:min(start+2, s.end)], Pos: startTok}
					return true
				}
				if src[s.pos] == '*' && src[s.pos+1] == '/' {
					s.pos += 2
					break
				}
				if src[s.pos] == '\n' {
					s.line++
					s.lineStart = s.pos + 1
				}
				s.pos++
			}
		default:
			return false
		}
	}
	return false
}

// Next returns the next token; it never returns an error: text it cannot
// lex becomes a tError token for the parser to report.
func (s *scanner) Next() (lexer.Token, error) {
	t, start := s.scan()
	if t == tComment {
		return s.errTok, nil
	}
	v := s.src[start:s.pos]
	if t == tDeep {
		// The value is left empty: grammar literals match on the value
		// alone, and this must match none of them.
		v = ""
	}
	s.lastEnd = s.pos
	return lexer.Token{Type: t, Value: v, Pos: lexer.Position{
		Filename: s.filename, Offset: start, Line: s.tokLine, Column: start - s.tokLineStart + 1}}, nil
}

// tComment is what scan returns for an unterminated block comment, whose
// error token skip has made.
const tComment = lexer.TokenType(-100)

// scan finds the next token: its type and start; it ends at s.pos, and
// began on line s.tokLine.
func (s *scanner) scan() (lexer.TokenType, int) {
	if s.skip() {
		return tComment, 0
	}
	s.tokLine, s.tokLineStart = s.line, s.lineStart
	if s.pos >= s.end {
		return tEOF, s.end
	}
	src := s.src
	start := s.pos
	c := src[start]
	cl := class[c]
	switch {
	case cl&cStart != 0 || c == '%':
		if !s.name() {
			return tError, start
		}
		if c != '%' {
			// An opcode and its modifiers, written without blanks, are
			// one token (ld.global.L2::128B.v4.f32): no other name is
			// followed directly by a dot, and one token costs the parser
			// far less than six. The converter splits it.
			for s.pos+1 < s.end && src[s.pos] == '.' && class[src[s.pos+1]]&cIdent != 0 {
				s.pos++
				s.dotted()
			}
		}
		// Likewise the two destinations %p1|%p2 of setp, shfl, elect...
		if s.pos+1 < s.end && src[s.pos] == '|' && (src[s.pos+1] == '%' || class[src[s.pos+1]]&cStart != 0) {
			save := s.pos
			s.pos++
			if !s.name() {
				s.pos = save
			}
		}
		s.last, s.operand = 0, true
		return tIdent, start
	case c == '.':
		s.pos++
		if !s.dotted() { // "." or "::" with nothing after it
			return tError, start
		}
		s.last, s.operand = 0, false
		return tDot, start
	case cl&cDigit != 0:
		s.last, s.operand = 0, true
		return s.number(start), start
	case c == '-' && !(s.operand && s.lastEnd == start) && start+1 < s.end && class[src[start+1]]&cDigit != 0:
		// a negative literal; right after an operand '-' is a binary
		// minus ([sym-4]), as it is in nvcc's output
		s.last, s.operand = 0, true
		return s.number(start), start
	case c == '"':
		s.pos++
		for s.pos < s.end {
			switch src[s.pos] {
			case '\\':
				s.pos += 2
				continue
			case '"':
				s.pos++
				s.last, s.operand = 0, false
				return tString, start
			case '\n':
				// unterminated: the error token runs to the end of the line,
				// as the brace scanner's idea of the string does
				return tError, start
			}
			s.pos++
		}
		s.pos = min(s.pos, s.end)
		return tError, start
	case cl&cPunct != 0:
		if c == '{' && s.module && s.last != '=' && s.last != '{' && s.last != ',' {
			return s.block(start), start
		}
		switch c {
		case '{', '(', '[':
			if s.nest >= maxNesting {
				s.pos++
				s.last, s.operand = 0, false
				return tDeep, start
			}
			s.nest++
		case '}', ')', ']':
			if s.nest > 0 {
				s.nest--
			}
		}
		s.pos++
		s.last, s.operand = c, c == ')' || c == ']'
		return tPunct, start
	}
	_, size := utf8.DecodeRuneInString(src[start:s.end])
	s.pos += size
	s.last, s.operand = 0, false
	return tError, start
}

// name scans a name: [A-Za-z_$][A-Za-z0-9_$]* or %[A-Za-z0-9_$]+, the
// latter with a component suffix (%tid.x, %ntid.y) as part of the name.
func (s *scanner) name() bool {
	src := s.src
	start := s.pos
	if src[s.pos] == '%' {
		s.pos++
		for s.pos < s.end && class[src[s.pos]]&cIdent != 0 {
			s.pos++
		}
		if s.pos == start+1 {
			return false
		}
		if s.pos+1 < s.end && src[s.pos] == '.' && class[src[s.pos+1]]&cStart != 0 && src[s.pos+1] != '$' {
			s.pos += 2
			for s.pos < s.end && class[src[s.pos]]&cIdent != 0 {
				s.pos++
			}
		}
		return true
	}
	s.pos++
	for s.pos < s.end && class[src[s.pos]]&cIdent != 0 {
		s.pos++
	}
	return true
}

// dotted scans the name of a directive or modifier after its dot:
// identifier characters, possibly in "::"-joined parts (shared::cta,
// L2::128B, mbarrier::complete_tx::bytes). It reports whether the name is
// well formed.
func (s *scanner) dotted() bool {
	src := s.src
	for {
		n := s.pos
		for s.pos < s.end && class[src[s.pos]]&cIdent != 0 {
			s.pos++
		}
		if s.pos == n {
			return false
		}
		if s.pos+2 < s.end && src[s.pos] == ':' && src[s.pos+1] == ':' {
			s.pos += 2
			continue
		}
		return true
	}
}

// number lexes an integer or floating literal starting at a digit or at
// the minus sign of a negative literal.
func (s *scanner) number(start int) lexer.TokenType {
	src := s.src
	d := start
	if src[d] == '-' {
		d++
	}
	s.pos = d + 1
	t := tInt
	if src[d] == '0' && s.pos < s.end {
		switch src[s.pos] {
		case 'x', 'X':
			s.pos++
			s.hexDigits()
			s.suffixU()
			return s.numberEnd(t, start, s.pos > d+2)
		case 'b', 'B':
			s.pos++
			n := s.pos
			for s.pos < s.end && (src[s.pos] == '0' || src[s.pos] == '1') {
				s.pos++
			}
			ok := s.pos > n
			s.suffixU()
			return s.numberEnd(t, start, ok)
		case 'f', 'F':
			s.pos++
			n := s.hexDigits()
			return s.numberEnd(tFloat, start, n == 8)
		case 'd', 'D':
			s.pos++
			n := s.hexDigits()
			return s.numberEnd(tFloat, start, n == 16)
		}
	}
	for s.pos < s.end && class[src[s.pos]]&cDigit != 0 {
		s.pos++
	}
	if s.pos+1 < s.end && src[s.pos] == '.' && class[src[s.pos+1]]&cDigit != 0 {
		t = tFloat
		s.pos++
		for s.pos < s.end && class[src[s.pos]]&cDigit != 0 {
			s.pos++
		}
	}
	if s.pos < s.end && (src[s.pos] == 'e' || src[s.pos] == 'E') {
		p := s.pos + 1
		if p < s.end && (src[p] == '+' || src[p] == '-') {
			p++
		}
		if p < s.end && class[src[p]]&cDigit != 0 {
			t = tFloat
			s.pos = p
			for s.pos < s.end && class[src[s.pos]]&cDigit != 0 {
				s.pos++
			}
		}
	}
	if t == tInt {
		s.suffixU()
	}
	return s.numberEnd(t, start, true)
}

func (s *scanner) hexDigits() int {
	n := s.pos
	for s.pos < s.end && class[s.src[s.pos]]&cHex != 0 {
		s.pos++
	}
	return s.pos - n
}

func (s *scanner) suffixU() {
	if s.pos < s.end && s.src[s.pos] == 'U' {
		s.pos++
	}
}

// numberEnd finishes a literal: it is malformed when ok is false or when
// identifier characters follow it directly (0x1G, 12abc, 0f3F80).
func (s *scanner) numberEnd(t lexer.TokenType, start int, ok bool) lexer.TokenType {
	for s.pos < s.end && (class[s.src[s.pos]]&cIdent != 0 || s.src[s.pos] == '.') {
		if s.src[s.pos] == '.' && (s.pos+1 >= s.end || class[s.src[s.pos+1]]&cDigit == 0) {
			break
		}
		s.pos++
		ok = false
	}
	if !ok {
		t = tError
	}
	return t
}

// block scans a top-level { ... } (module mode) to its matching brace,
// stepping over strings and comments, and returns it as one tBody token.
// When the braces inside do not balance, the body ends at the first "}"
// that begins a line (where nvcc closes a function), so that one
// unbalanced brace spoils one body and not the rest of the module; with no
// such "}" the brace becomes a one-character tError token.
//
// After a scan has run into the end of the input, the rest of the input is
// indexed once (braceIndex), so that many unbalanced braces cost
// O(n log n) rather than a scan to the end each.
func (s *scanner) block(start int) lexer.TokenType {
	src := s.src
	end := -1
	if s.braces == nil || start < s.braces.from {
		depth := 0
		walkBraces(src, start, s.end, func(i int, open bool) bool {
			if open {
				depth++
				return true
			}
			depth--
			if depth == 0 {
				end = i + 1
				return false
			}
			return true
		})
		if end < 0 {
			s.braces = indexBraces(src, start, s.end)
		}
	}
	if end < 0 {
		end = s.braces.lookup(start)
	}
	if end < 0 {
		s.pos = start + 1
		return tError
	}
	body := src[start:end]
	if n := strings.Count(body, "\n"); n > 0 {
		s.line += n
		s.lineStart = start + strings.LastIndexByte(body, '\n') + 1
	}
	s.pos = end
	s.last, s.operand = 0, false
	return tBody
}

// walkBraces calls fn with the offset of each brace in src[from:end] that
// is outside strings and comments, until fn returns false.
func walkBraces(src string, from, end int, fn func(i int, open bool) bool) {
	i := from
	for i < end {
		c := src[i]
		if class[c]&cScanBr == 0 {
			i++
			continue
		}
		switch c {
		case '{', '}':
			if !fn(i, c == '{') {
				return
			}
			i++
		case '"':
			i++
			for i < end && src[i] != '"' && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			if i < end && src[i] == '"' {
				i++
			}
		case '/':
			switch {
			case i+1 < end && src[i+1] == '/':
				k := strings.IndexByte(src[i:end], '\n')
				if k < 0 {
					return
				}
				i += k
			case i+1 < end && src[i+1] == '*':
				k := strings.Index(src[i+2:end], "*/")
				if k < 0 {
					return
				}
				i += k + 4
			default:
				i++
			}
		default: // '\n'
			i++
		}
	}
}

// braceIndex records, for the braces of src[from:], where each "{" is
// closed, and where the "}"s that begin a line are.
type braceIndex struct {
	from   int
	opens  []int // offsets of "{", ascending
	closes []int // offset after the matching "}", or -1
	col1   []int // offset after each "}" that begins a line, ascending
}

func indexBraces(src string, from, end int) *braceIndex {
	b := &braceIndex{from: from}
	var stack []int
	walkBraces(src, from, end, func(i int, open bool) bool {
		if open {
			stack = append(stack, len(b.opens))
			b.opens = append(b.opens, i)
			b.closes = append(b.closes, -1)
			return true
		}
		if n := len(stack); n > 0 {
			b.closes[stack[n-1]] = i + 1
			stack = stack[:n-1]
		}
		if i == 0 || src[i-1] == '\n' {
			b.col1 = append(b.col1, i+1)
		}
		return true
	})
	return b
}

// lookup returns the end of the block opened at q: after its matching
// brace, else after the first "}" beginning a line after q, else -1.
func (b *braceIndex) lookup(q int) int {
	if k := sort.SearchInts(b.opens, q); k < len(b.opens) && b.opens[k] == q && b.closes[k] >= 0 {
		return b.closes[k]
	}
	if j := sort.SearchInts(b.col1, q+2); j < len(b.col1) {
		return b.col1[j]
	}
	return -1
}
