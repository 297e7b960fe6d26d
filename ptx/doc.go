// Package ptx parses PTX modules as nvcc emits them into an AST, reports
// positioned errors (file:line:col: message), and prints an AST back to PTX.
//
// It does not execute anything: lowering and execution live in package vm.
//
// # API
//
//	m, err := ptx.Parse(filename, src)     // everything; bodies in parallel on large modules
//	m, err := ptx.ParseLazy(filename, src) // directives, variables, function headers
//	f := m.Entry("_Z6kernelPf")            // a kernel by name (m.Func for any function)
//	err = m.ParseBody(f)                   // its body, on demand (once; goroutine-safe)
//	err = ptx.Print(w, m)                  // PTX text that parses back to the same tree
//
// ParseMode takes flags: AllErrors (every error, not the first ten on
// different lines) and Lazy. Errors come as an ErrorList of *Error, sorted
// by position, one per line, in the manner of go/scanner; the module parsed
// so far is returned with them.
//
// # How it works
//
// A hand-written lexer (lexer.go) implements participle's lexer.Definition.
// In module mode it returns each function body and each .section's
// contents as a single token, found by a brace-matching scan that steps
// over strings and comments, so the module level costs little however big
// the bodies are. The module's directives, variables and function headers
// are parsed item by item, and bodies statement by statement, with
// participle grammars (grammar.go); the first token of a statement picks
// the grammar. The grammar's nodes are converted into the AST (convert.go),
// where literals are evaluated, initialisers flattened and what a grammar
// cannot say is checked. A syntax error skips to the end of its statement
// (or item), so one parse reports the errors of many lines.
//
// # Conventions of the AST
//
//   - Every node has the position of its first token.
//   - Opcode and modifiers are split: ld.global.nc.v4.f32 is Opcode "ld",
//     Mods [".global" ".nc" ".v4" ".f32"] (scopes stay inside a modifier:
//     ".shared::cta", ".L2::128B").
//   - Integers are 64-bit two's complement (0xFFFFFFFFFFFFFFFF is -1);
//     0f literals keep float32 bits, 0d and decimal literals float64 bits.
//   - A texture or surface operand [t, {c1, c2}] is an OpAddress whose
//     Elems hold what follows the base, the coordinate vector last.
//   - Call syntax: call.uni (retval0), f, (param0, param1) has operands
//     OpList, OpName, OpList; an indirect call adds the prototype's name.
//   - `$L: .branchtargets a, b;` (the label list of brx.idx) is a label
//     statement followed by a Statement with Targets; so is .calltargets.
//   - .section contents are kept verbatim, for printing only.
//
// Strings in the AST point into one copy of the source kept by the Module.
package ptx
