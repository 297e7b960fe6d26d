package ptx

import "strings"

// opcodes are the instruction names of the PTX ISA (through 8.x), without
// modifiers: what an instruction may be called at all, whether or not this
// emulator runs it.
var opcodes = map[string]bool{}

func init() {
	for _, op := range strings.Fields(`
		abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra brev
		brkpt brx call clusterlaunchcontrol clz cnot copysign cos cp createpolicy cvt cvta discard div
		dp2a dp4a elect ex2 exit fence fma fns getctarank griddepcontrol isspacep istypeof ld ldmatrix
		ldu lg2 lop3 mad mad24 madc mapa match max mbarrier membar min mma mov movmatrix mul mul24
		multimem nanosleep neg not or pmevent popc prefetch prefetchu prmt rcp red redux rem ret rsqrt
		sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st stackrestore stacksave stmatrix
		sub subc suld suq sured sust szext tanh tcgen05 tensormap testp tex tld4 trap txq vabsdiff
		vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2 vavrg4 vmad vmax vmax2 vmax4 vmin vmin2 vmin4 vote
		vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma wmma xor`) {
		opcodes[op] = true
	}
}

// KnownOpcode reports whether op (without modifiers: "add", not "add.f32")
// names a PTX instruction.
func KnownOpcode(op string) bool { return opcodes[op] }

// UnknownInstruction words the error for an instruction whose opcode is no
// PTX instruction: "unknown instruction addd.f32; did you mean add.f32?",
// the suggestion being the nearest opcode by edit distance, with the
// instruction's own modifiers.
func UnknownInstruction(op string, mods []string) string {
	msg := "unknown instruction " + op + strings.Join(mods, "")
	best, bestD := "", 3 // suggest nothing further than two edits away
	if len(op) <= 3 {
		bestD = 2 // nor more than one from a short name
	}
	// Among the nearest, the one sharing the longest beginning (ldd: ld,
	// not add), then the first in order.
	bestP := 0
	for k := range opcodes {
		d, p := editDistance(op, k), commonPrefix(op, k)
		if d < bestD || d == bestD && best != "" && (p > bestP || p == bestP && k < best) {
			best, bestD, bestP = k, d, p
		}
	}
	if best == "" {
		return msg
	}
	return msg + "; did you mean " + best + strings.Join(mods, "") + "?"
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the Levenshtein distance of a and b (opcodes are short:
// this costs little); far apart lengths give a large number at once.
func editDistance(a, b string) int {
	if d := len(a) - len(b); d > 2 || d < -2 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// CheckOpcodes reports, as positioned errors, the instructions of the
// parsed bodies whose opcode is no PTX instruction: a module that uses one
// is malformed, whatever runs it. Bodies not parsed yet are not read.
func (m *Module) CheckOpcodes() error {
	var list ErrorList
	var walk func([]*Statement)
	walk = func(ss []*Statement) {
		for _, s := range ss {
			switch {
			case s.IsBlock:
				walk(s.Block)
			case s.Inst != nil && !opcodes[s.Inst.Opcode]:
				list = append(list, &Error{Pos: s.Inst.Pos, Msg: UnknownInstruction(s.Inst.Opcode, s.Inst.Mods)})
			}
		}
	}
	for _, f := range m.Funcs {
		walk(f.Body)
	}
	return list.Err()
}
