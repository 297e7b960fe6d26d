package ptx

import (
	"sync"

	"github.com/alecthomas/participle/v2/lexer"
)

// Pos is a position in a PTX source file. Its String method prints
// file:line:column.
type Pos = lexer.Position

// Module is one PTX translation unit, as `nvcc -ptx` writes it.
type Module struct {
	Pos         Pos
	Filename    string
	Version     string   // ".version 8.5" -> "8.5"
	Target      []string // ".target sm_90a, texmode_independent" -> ["sm_90a", "texmode_independent"]
	AddressSize int      // 32 or 64; 64 when the directive is absent
	Files       []*FileDirective
	Vars        []*VarDecl  // module-scope variables, in source order
	Funcs       []*Function // entries, functions and declarations, in source order
	Sections    []*Section  // .section blocks (DWARF), kept only for printing

	src     string // the source, kept for bodies parsed on demand (AST strings point into it)
	mode    Mode
	entries map[string]*Function // .entry functions by name
	funcs   map[string]*Function // every function by name; a definition wins over a declaration
	order   []any                // the *VarDecl, *Function, *FileDirective and *Section items in source order
}

// FileDirective is `.file N "name" [, timestamp, size]`.
type FileDirective struct {
	Pos       Pos
	Index     int
	Name      string // as written between the quotes (escapes are not interpreted)
	Timestamp int64  // optional; 0 when absent
	Size      int64  // optional; 0 when absent
}

// Section is a `.section name { ... }` block; its contents are not interpreted.
type Section struct {
	Pos  Pos
	Name string
	Raw  string // the text between the braces, verbatim
}

// Function is a `.entry` or `.func`, with or without a body.
type Function struct {
	Pos      Pos
	Linkage  string // "", ".visible", ".weak", ".extern"
	Entry    bool   // .entry (a kernel) rather than .func
	NoReturn bool   // .noreturn
	Name     string
	Returns  []*Param // .func return parameters, in order
	Params   []*Param
	Perf     []*PerfDirective // .maxntid, .reqntid, .minnctapersm, .maxnreg, .maxclusterrank, ...
	HasBody  bool             // false for a declaration (prototype) ending in ';'

	// Body holds the statements once parsed. With lazy parsing it stays nil
	// until Module.ParseBody is called for this function.
	Body       []*Statement
	bodyParsed bool
	bodyStart  int // byte offsets of the body's braces in Module.src (lazy parsing)
	bodyEnd    int
	bodyPos    Pos        // position of the opening brace
	owner      *Module    // the module whose source holds the body
	once       *sync.Once // guards the on-demand parse of the body
	bodyErr    error      // the result of that parse
}

// BodyParsed reports whether Body holds the parsed statements.
func (f *Function) BodyParsed() bool { return f.bodyParsed }

// Param is one parameter of an entry or function.
type Param struct {
	Pos      Pos
	Space    string // ".param" or ".reg"
	Align    int    // 0 when no .align was given
	Vector   int    // 0, 2, 4 (".v2", ".v4": a vector-typed parameter)
	Type     string // ".u64", ".b8", ".f32", ".pred", ...
	PtrSpace string // for `.ptr .global .align 8` attributes on kernel params (older PTX); "" otherwise
	PtrAlign int
	Name     string
	ArrayLen int // -1 for a scalar; N for `name[N]`; 0 for `name[]`
}

// PerfDirective is a performance-tuning directive on a function header,
// e.g. `.maxntid 256, 1, 1` -> {Name: ".maxntid", Values: [256 1 1]}.
type PerfDirective struct {
	Pos    Pos
	Name   string
	Values []int64
}

// VarDecl declares a variable in a state space, at module or function scope.
type VarDecl struct {
	Pos     Pos
	Linkage string // "", ".extern", ".visible", ".weak", ".common"
	Space   string // ".global", ".const", ".shared", ".local", ".param", ".tex"
	Align   int    // 0 when no .align was given
	Vector  int    // 0, 2, 4 (".v2", ".v4")
	Type    string // ".b8", ".f32", ".u64", ".texref", ...
	Name    string
	Dims    []int64 // array dimensions in order; 0 for an unsized "[]"; nil for a scalar
	Init    []*InitElem
	HasInit bool     // an initialiser was written (possibly `= {}`)
	Attrs   []string // .attribute(.managed) -> [".managed"]
}

// InitKind says what an initialiser element holds.
type InitKind int

const (
	InitInt    InitKind = iota // integer literal (Int holds its two's-complement bits)
	InitFloat                  // floating literal (Float holds the IEEE bits of the written width)
	InitSymbol                 // address of a symbol, optionally generic(sym) and +offset
)

// InitElem is one scalar of a (flattened) initialiser list.
type InitElem struct {
	Pos     Pos
	Kind    InitKind
	Int     uint64
	Float   uint64 // bits; Double says whether they are float64 (0d) or float32 (0f) bits
	Double  bool
	Symbol  string
	Generic bool // generic(sym)
	Offset  int64
}

// Statement is one item of a function body: exactly one field is set.
type Statement struct {
	Pos       Pos
	Label     string // "$L__BB0_1" for "$L__BB0_1:"; "" otherwise
	Reg       *RegDecl
	Var       *VarDecl // .local / .shared / .param / .const inside a body
	Loc       *LocDirective
	Pragma    []string       // .pragma "nounroll";  -> ["nounroll"]
	Prototype *CallPrototype // prototype_0 : .callprototype ...
	Inst      *Instruction
	Block     []*Statement // a nested { ... } scope, e.g. a call sequence
	IsBlock   bool         // Block was written (it may be empty)
	Targets   *TargetList  // .branchtargets / .calltargets (follows the label that names the list)
}

// TargetList is `.branchtargets L1, L2, ...;` (the label list of brx.idx) or
// `.calltargets f1, f2;` (the possible callees of an indirect call). It is
// written after a label: `$L_brx_0: .branchtargets $L__BB0_1, $L__BB0_2;`
// is a Statement{Label: "$L_brx_0"} followed by a Statement{Targets: ...},
// and `brx.idx %r1, $L_brx_0;` names the label.
type TargetList struct {
	Pos       Pos
	Directive string   // ".branchtargets" or ".calltargets"
	Names     []string // labels or function names, in order
}

// RegDecl is `.reg .type name, name<N>, ...;`.
type RegDecl struct {
	Pos    Pos
	Type   string // ".b32", ".pred", ".f64", ...
	Vector int    // 0, 2, 4
	Names  []*RegName
}

// RegName is one declarator: `%r` with Count N for `%r<N>` (registers %r0..%r(N-1)),
// or a single register with Count 0.
type RegName struct {
	Pos   Pos
	Name  string
	Count int
}

// LocDirective is `.loc file line col [, function_name X, inlined_at f l c]`.
type LocDirective struct {
	Pos          Pos
	File         int
	Line         int
	Column       int
	FunctionName string // label naming the inlined function's name string, if given
	FunctionOff  int64  // offset added to it: `function_name .debug_str+16`
	InlinedFile  int    // 0 when not inlined
	InlinedLine  int
	InlinedCol   int
	Inlined      bool // ", inlined_at F L C" was written
}

// CallPrototype is `name : .callprototype (rets) _ (params) [.noreturn];`.
type CallPrototype struct {
	Pos      Pos
	Name     string
	Returns  []*Param
	Params   []*Param
	NoReturn bool // .noreturn
}

// Instruction is one PTX instruction with its optional guard.
type Instruction struct {
	Pos      Pos
	Guard    *Guard
	Opcode   string   // "ld", "setp", "mad", ...
	Mods     []string // the dotted suffixes in source order: ld.global.nc.v4.f32 -> [".global" ".nc" ".v4" ".f32"]
	Operands []*Operand
}

// Guard is `@%p` or `@!%p`.
type Guard struct {
	Pos Pos
	Neg bool
	Reg string
}

// OperandKind classifies an operand.
type OperandKind int

const (
	OpName    OperandKind = iota // a register, special register (%tid.x), symbol, label, function, the sink "_", WARP_SZ; a vector register's element (%v.x) or a video operand's selector (%r1.b0) stays in the name
	OpInt                        // integer literal
	OpFloat                      // 0f/0d or decimal floating literal
	OpAddress                    // [base], [base+imm], [imm]; texture/surface operands [t, {c}] (see Operand.Elems)
	OpVector                     // {a, b, c, d}
	OpList                       // (a, b) in call syntax, or a brx.idx label list
	OpRegPlus                    // a register plus an immediate, `%r1 + 1`, `%rd2+-8` (Name, Int): a value operand ptxas takes (`st.u64 [a], %rd1 + 1;`)
)

// Operand is one instruction operand.
type Operand struct {
	Pos    Pos
	Kind   OperandKind
	Neg    bool   // "!%p" (logical not of a predicate source)
	Minus  bool   // "-%r" (a negated source: vmad's operands)
	Name   string // OpName: "%r1", "%tid.x", "_Z3fooi", "$L__BB0_3", "_"; OpAddress: base name or ""; OpRegPlus: the register
	Pair   string // the second destination of "%p1|%p2" (setp, and friends)
	Int    int64  // OpInt value; OpAddress offset; OpRegPlus immediate
	Float  uint64 // OpFloat bits
	Double bool   // OpFloat: Float holds float64 bits (0d or decimal) rather than float32 bits (0f)

	// Elems holds the elements of an OpVector or OpList. For an OpAddress
	// it holds what follows the base after commas: a texture or surface
	// operand `[%rd1, {%f1, %f2}]` is {Kind: OpAddress, Name: "%rd1",
	// Elems: [{Kind: OpVector, Elems: [%f1 %f2]}]}, and the
	// independent-mode form `[tex, sampler, {%f1, %f2}]` has Elems
	// [sampler, {%f1, %f2}]. The coordinate vector is always the last element.
	Elems []*Operand
}
