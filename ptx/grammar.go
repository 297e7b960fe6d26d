package ptx

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar. These types mirror the PTX syntax closely; the
// converters in convert.go turn them into the AST of ast.go (numbers
// evaluated, initialisers flattened, operand kinds decided) and check what
// a grammar cannot say well.
//
// Numbers are captured as text: participle's own conversions know neither
// the U suffix nor 0f/0d literals.
//
// Module level: the lexer runs in module mode, so a function body or a
// .section's contents is one Body token, and the module is parsed one
// item at a time. Bodies are parsed statement by statement; the dispatch on
// the first token (which of the statement grammars applies) is done by hand
// in parse.go, which keeps participle from trying every alternative for
// every instruction.

// gItem is one module-level item.
type gItem struct {
	Pos     lexer.Position
	Version *string   `parser:"  '.version' @( Float | Int )"`
	Target  []string  `parser:"| '.target' @Ident ( ',' @Ident )*"`
	Address *string   `parser:"| '.address_size' @Int"`
	File    *gFile    `parser:"| '.file' @@"`
	Section *gSection `parser:"| '.section' @@"`
	Linkage *string   `parser:"| @( '.visible' | '.weak' | '.extern' | '.common' )?"`
	Func    *gFunc    `parser:"  ( @@"`
	Var     *gVar     `parser:"  | @@ )"`
}

type gFile struct {
	Pos       lexer.Position
	Index     string  `parser:"@Int"`
	Name      string  `parser:"@String"`
	Timestamp *string `parser:"( ',' @Int"`
	Size      *string `parser:"  ',' @Int )?"`
}

type gSection struct {
	Pos  lexer.Position
	Name string      `parser:"@Dot"`
	Body lexer.Token `parser:"@Body"`
}

// gFunc is a .entry or .func header, with its body as one Body token.
type gFunc struct {
	Pos     lexer.Position
	Kind    string       `parser:"@( '.entry' | '.func' )"`
	Pre     []*gPerf     `parser:"@@*"` // .noreturn before the name
	Returns *gParams     `parser:"@@?"`
	Name    lexer.Token  `parser:"@Ident"`
	Params  *gParams     `parser:"@@?"`
	Perf    []*gPerf     `parser:"@@*"`
	Body    *lexer.Token `parser:"( @Body | ';' )"`
}

type gParams struct {
	Pos  lexer.Position
	List []*gParam `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
}

// gPerf is `.maxntid 256, 1, 1`, `.explicitcluster`, `.noreturn`, ...
type gPerf struct {
	Pos    lexer.Position
	Name   string   `parser:"@Dot"`
	Values []string `parser:"( @Int ( ',' @Int )* )?"`
}

// gParam is `.param .align 8 .b8 name[16]` or `.param .u64 .ptr .global .align 4 name`.
type gParam struct {
	Pos   lexer.Position
	Space string      `parser:"@( '.param' | '.reg' )"`
	Pre   []*gAttr    `parser:"@@*"`
	Type  lexer.Token `parser:"@Dot"`
	Post  []*gAttr    `parser:"@@*"`
	Name  string      `parser:"@Ident"`
	Dim   *gDim       `parser:"@@?"`
}

// gAttr is one attribute of a declaration written around its type.
type gAttr struct {
	Pos       lexer.Position
	Align     *string `parser:"  '.align' @Int"`
	Vec       *string `parser:"| @( '.v2' | '.v4' | '.v8' )"`
	Ptr       bool    `parser:"| @'.ptr'"`
	Space     *string `parser:"| @( '.global' | '.shared' | '.const' | '.local' )"`
	Attribute *string `parser:"| '.attribute' '(' @Dot ')'"`
}

// gDim is `[N]` or `[]`.
type gDim struct {
	Pos lexer.Position
	N   *lexer.Token `parser:"'[' @Int? ']'"`
}

// gVar is a variable declaration at module or body scope.
type gVar struct {
	Pos   lexer.Position
	Space string      `parser:"@( '.global' | '.const' | '.shared' | '.local' | '.param' | '.tex' )"`
	Attrs []*gAttr    `parser:"@@*"`
	Type  lexer.Token `parser:"@Dot"`
	Name  string      `parser:"@Ident"`
	Dims  []*gDim     `parser:"@@*"`
	Init  *gInit      `parser:"( '=' @@ )? ';'"`
}

// gInit is an initialiser: a scalar or a (nested) brace list.
type gInit struct {
	Pos  lexer.Position
	Open bool         `parser:"(  @'{'"`
	List []*gInit     `parser:"   ( @@ ( ',' @@ )* )? '}'"`
	Elem *gInitScalar `parser:" | @@ )"`
}

type gInitScalar struct {
	Pos     lexer.Position
	Generic *string `parser:"(  'generic' '(' @Ident ')'"`
	Sym     *string `parser:" | @Ident"`
	Num     *gNum   `parser:" | @@ )"`
	OffSign *string `parser:"( @( '+' | '-' )"`
	Off     *string `parser:"  @Int )?"`
}

// gNum is a number; the lexer makes the minus sign of a negative literal
// part of its token (except after an operand, where '-' is subtraction).
type gNum struct {
	Pos   lexer.Position
	Int   *string `parser:"  @Int"`
	Float *string `parser:"| @Float"`
}

// Body statements.

type gReg struct {
	Pos   lexer.Position
	Attrs []*gAttr    `parser:"'.reg' @@*"`
	Type  lexer.Token `parser:"@Dot"`
	Names []*gRegName `parser:"@@ ( ',' @@ )* ';'"`
}

type gRegName struct {
	Pos   lexer.Position
	Name  string  `parser:"@Ident"`
	Count *string `parser:"( '<' @Int '>' )?"`
}

// gLoc is `.loc file line column` with optional extras. (One capture of
// the three numbers is cheaper than three: .loc is every other line of
// -lineinfo output.)
type gLoc struct {
	Pos   lexer.Position
	Nums  []string     `parser:"'.loc' @( Int Int Int )"`
	Extra []*gLocExtra `parser:"( ',' @@ )*"`
}

// gLocExtra is `function_name $L__info_string0` or `inlined_at 1 50 7`.
type gLocExtra struct {
	Pos      lexer.Position
	FuncName *string  `parser:"(  'function_name' @( Ident | Dot )"`
	FuncOff  *string  `parser:"   ( '+' @Int )?"`
	Inlined  []string `parser:" | 'inlined_at' @( Int Int Int ) )"`
}

type gPragma struct {
	Pos     lexer.Position
	Strings []string `parser:"'.pragma' @String ( ',' @String )* ';'"`
}

type gTargets struct {
	Pos   lexer.Position
	Kind  string   `parser:"@( '.branchtargets' | '.calltargets' )"`
	Names []string `parser:"@Ident ( ',' @Ident )* ';'"`
}

type gProto struct {
	Pos      lexer.Position
	Name     string   `parser:"@Ident ':' '.callprototype'"`
	Returns  *gParams `parser:"@@? '_'"`
	Params   *gParams `parser:"@@?"`
	NoReturn bool     `parser:"@'.noreturn'? ';'"`
}

// gInst is an instruction. The lexer delivers the opcode and its
// modifiers as one token (ld.global.nc.v4.f32), and a pair of destinations
// as one (%p1|%p2); the converter splits them. The alternatives of an
// operand come in order of frequency: each one tried costs an allocation.
type gInst struct {
	Pos      lexer.Position
	Opcode   string      `parser:"@Ident"`
	Operands []*gOperand `parser:"( @@ ( ',' @@ )* )? ';'"`
}

// gGuarded is an instruction with a guard, @%p or @!%p. (A statement
// starting with '@' is parsed with this grammar, any other with gInst, so
// unguarded instructions do not pay for trying a guard.)
type gGuarded struct {
	Pos   lexer.Position
	Guard *gGuard `parser:"@@"`
	Inst  *gInst  `parser:"@@"`
}

type gGuard struct {
	Pos lexer.Position
	Neg bool   `parser:"'@' @'!'?"`
	Reg string `parser:"@Ident"`
}

// gOperand is one operand. A name may be followed by '+' and an integer
// (`%r1 + 1`, `%rd2+-8`): a register expression, which ptxas takes as a
// value operand (not `%r1 - 1`: ptxas 13 reports a syntax error there).
type gOperand struct {
	Pos   lexer.Position
	Name  *string     `parser:"(  @Ident"`
	Off   *string     `parser:"   ( '+' @Int )?"`
	Addr  *gAddr      `parser:"| '[' @@ ']'"`
	Num   *gNum       `parser:"| @@"`
	Vec   []*gOperand `parser:"| '{' @@ ( ',' @@ )* '}'"`
	List  *gList      `parser:"| @@"`
	Not   *string     `parser:"| '!' @Ident"`
	Minus *string     `parser:"| '-' @Ident )"`
}

type gAddr struct {
	Pos   lexer.Position
	Base  *string     `parser:"(  @Ident"`
	Sign  *string     `parser:"   ( @( '+' | '-' )"`
	Off   *string     `parser:"     @Int )?"`
	Abs   *gNum       `parser:" | @@ )"`
	Extra []*gOperand `parser:"( ',' @@ )*"`
}

type gList struct {
	Pos   lexer.Position
	Items []*gOperand `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
}

// build makes a parser for one grammar root. With no lookahead, an
// alternative that has consumed a token is committed to, so a syntax error
// is reported where it is rather than where backtracking gave up (and no
// time goes into backtracking). The grammar is written so that the first
// token always decides.
func build[G any]() *participle.Parser[G] {
	return participle.MustBuild[G](participle.Lexer(ptxLexer), participle.UseLookahead(0))
}

// The parsers are built once; participle parsers are safe for concurrent use.
var (
	itemParser    = build[gItem]()
	instParser    = build[gInst]()
	guardedParser = build[gGuarded]()
	regParser     = build[gReg]()
	varParser     = build[gVar]()
	locParser     = build[gLoc]()
	pragmaParser  = build[gPragma]()
	targetsParser = build[gTargets]()
	protoParser   = build[gProto]()
)

var trailing = []participle.ParseOption{participle.AllowTrailing(true)}
