package demangle

import (
	"bufio"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.golden from the corpora with GNU c++filt")

// handCases were checked against GNU c++filt 2.40: the constructs CUDA code
// produces (templates, namespaces, substitutions, function pointers,
// lambdas, anonymous namespaces, packs, literals, operators) and a few
// the standard library does.
var handCases = []struct{ in, want string }{
	{"_Z3fooPFviE", "foo(void (*)(int))"},
	{"_Z3fooPA4_i", "foo(int (*) [4])"},
	{"_Z3fooRA4_i", "foo(int (&) [4])"},
	{"_Z3fooM1AFviE", "foo(void (A::*)(int))"},
	{"_Z3fooM1Ai", "foo(int A::*)"},
	{"_Z3fooPVKi", "foo(int const volatile*)"},
	{"_Z3fooKPc", "foo(char* const)"},
	{"_Z3fooPFPFivEdE", "foo(int (*(*)(double))())"},
	{"_ZNSsC1Ev", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string()"},
	{"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)"},
	{"_Z3fooIiEvT_", "void foo<int>(int)"},
	{"_Z3fooIJidEEvDpT_", "void foo<int, double>(int, double)"},
	{"_Z3fooIJEEvv", "void foo<>()"},
	{"_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const"},
	{"_ZZ4mainENKUliE0_clEi", "main::{lambda(int)#2}::operator()(int) const"},
	{"_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()"},
	{"_Z3fooILi5EEvv", "void foo<5>()"},
	{"_Z3fooILin5EEvv", "void foo<-5>()"},
	{"_Z3fooILc65EEvv", "void foo<(char)65>()"},
	{"_Z3fooILb1EEvv", "void foo<true>()"},
	{"_Z3fooILl5EEvv", "void foo<5l>()"},
	{"_Z3fooILy5EEvv", "void foo<5ull>()"},
	{"_Z3foov.clone.1", "foo() [clone .clone.1]"},
	{"_ZTV3Foo", "vtable for Foo"},
	{"_ZGVZ3foovE1x", "guard variable for foo()::x"},
	{"_ZN3FooC2Ev", "Foo::Foo()"},
	{"_ZN3FooD1Ev", "Foo::~Foo()"},
	{"_ZN3FooplERKS_", "Foo::operator+(Foo const&)"},
	{"_ZN3FoocviEv", "Foo::operator int()"},
	{"_ZNK3Foo3barEv", "Foo::bar() const"},
	{"_ZNR3Foo3barEv", "Foo::bar() &"},
	{"_ZNO3Foo3barEv", "Foo::bar() &&"},
	{"_Z3fooDv4_f", "foo(float __vector(4))"},
	{"_Z3fooPFvvEPFivE", "foo(void (*)(), int (*)())"},
	{"_ZZ3foovE1x_0", "foo()::x"},
	{"_Z3fooILPv0EEvv", "void foo<(void*)0>()"},
	{"_Z1fIiEDTplfp_fp_ET_", "decltype ({parm#1}+{parm#1}) f<int>(int)"},
	{"_ZN1AIiE1fIdEEvT_", "void A<int>::f<double>(double)"},
	{"_Z3fooSt6vectorIiSaIiEE", "foo(std::vector<int, std::allocator<int> >)"},
	{"_Z3fooDn", "foo(decltype(nullptr))"},
	{"_Z3fooNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "foo(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >)"},
	{"_ZN3foo3barB5cxx11Ev", "foo::bar[abi:cxx11]()"},
	{"_Z3fooA_i", "foo(int [])"},
	{"_Z3fooPK3Bar", "foo(Bar const*)"},
	{"_Z1fPFvRKiE", "f(void (*)(int const&))"},
	{"_Z1fM1AKFvvE", "f(void (A::*)() const)"},
	{"_ZZN1A1fEvENKUlvE_clEv", "A::f()::{lambda()#1}::operator()() const"},
	{"_Z1fIN1AUt_EEvv", "void f<A::{unnamed type#1}>()"},
	{"_ZN1AUt_E", "A::{unnamed type#1}"},
	{"_Z1fILi2EEvRAplT_Li1E_i", "void f<2>(int (&) [(2)+(1)])"},
	{"_Z1fIiEDTcl1gfp_EET_", "decltype (g({parm#1})) f<int>(int)"},
	{"_Z1fIiEDTngfp_ET_", "decltype (-{parm#1}) f<int>(int)"},
	{"_Z1fIiEDTstT_ET_", "decltype (sizeof (int)) f<int>(int)"},
	{"_Z1fIiEDTszfp_ET_", "decltype (sizeof {parm#1}) f<int>(int)"},
	{"_Z1fIiEvPDtfp_E", "void f<int>(decltype ({parm#1})*)"},
	{"_ZN1BIXadL_Z1gvEEE1fEv", "B<&(g())>::f()"},
	{"_Z1fIiEDTdtfp_1xET_", "decltype ({parm#1}.x) f<int>(int)"},
	{"_Z1fIiEDTcvT_fp_ET_", "decltype ((int){parm#1}) f<int>(int)"},
	{"_Z1fIiEDTplfp_Li1EET_", "decltype ({parm#1}+(1)) f<int>(int)"},
	{"_Z3fooIiEPFvvEv", "void (*foo<int>())()"},
	{"_Z1fIiEDTcmfp_fp_ET_", "decltype ({parm#1},{parm#1}) f<int>(int)"},
	{"_Z1fPrVKi", "f(int const volatile restrict*)"},
	{"_Z1fILDnEEvv", "void f<decltype(nullptr)>()"},
	{"_Z1fILf3f800000EEvv", "void f<(float)[3f800000]>()"},
	{"_Z1fIL3Foo1EEvv", "void f<(Foo)1>()"},
	{"_Z1fILh65EEvv", "void f<(unsigned char)65>()"},
	{"_Z1fILj0EEvv", "void f<0u>()"},
	{"_ZN1A1fEv.cold", "A::f() [clone .cold]"},
	{"_Z1fv.constprop.0.isra.0", "f() [clone .constprop.0] [clone .isra.0]"},
	{"_ZN3FoonwEm", "Foo::operator new(unsigned long)"},
	{"_ZN3FoodaEPv", "Foo::operator delete[](void*)"},
	{"_ZN3FooclEv", "Foo::operator()()"},
	{"_ZN3FooixEi", "Foo::operator[](int)"},
	{"_ZN3FooptEv", "Foo::operator->()"},
	{"_ZN3FoocmERKS_", "Foo::operator,(Foo const&)"},
	{"_Z1fCf", "f(float _Complex)"},
	{"_Z1fDF16_", "f(_Float16)"},
	{"_Z1fDh", "f(half)"},
	{"_Z1fu6__bf16", "f(__bf16)"},
	{"_Z1fIJEEvDpT_", "void f<>()"},
	{"_Z1fIJiEEvDpPT_", "void f<int>(int*)"},
	{"_ZTI3Foo", "typeinfo for Foo"},
	{"_ZTS3Foo", "typeinfo name for Foo"},
	{"_ZThn8_N3Foo1fEv", "non-virtual thunk to Foo::f()"},
	{"_ZTv0_n24_N3Foo1fEv", "virtual thunk to Foo::f()"},
	{"_ZN1AD0Ev", "A::~A()"},
	{"_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size() const"},
	{"_ZNSt8ios_base4InitC1Ev", "std::ios_base::Init::Init()"},
	{"_ZSt4cout", "std::cout"},
	{"_ZNSoC1Ev", "std::basic_ostream<char, std::char_traits<char> >::basic_ostream()"},
	{"_ZNSaIcED2Ev", "std::allocator<char>::~allocator()"},
	{"_Z1fSs", "f(std::basic_string<char, std::char_traits<char>, std::allocator<char> >)"},
	{"_Z1fSi", "f(std::basic_istream<char, std::char_traits<char> >)"},
	{"_ZN1AIiEC1Ev", "A<int>::A()"},
	{"_Z3fooIiEvT_S0_", "void foo<int>(int, int)"},
	{"_Z3fooIiEvT_S_", "void foo<int>(int, foo)"},
	{"_ZL3barv", "bar()"},
	{"_Z1fPA2_A3_i", "f(int (*) [2][3])"},
	{"_Z1fIA3_iEvv", "void f<int [3]>()"},
	{"_Z1fRKPFvvE", "f(void (* const&)())"},
	{"_Z1fPKFvvE", "f(void (*)() const)"},
	{"_Z3fooIiEPiv", "int* foo<int>()"},
	{"_Z3fooIiERFvvEv", "void (&foo<int>())()"},
	{"_Z3fooIiEPA3_iv", "int (*foo<int>()) [3]"},
	{"_Z10restrict_kPfPKfPVi", "restrict_k(float*, float const*, int volatile*)"},
	{"_Z11with_lambdaIZ11host_launchPfEUliE_EvS0_T_", "void with_lambda<host_launch(float*)::{lambda(int)#1}>(float*, host_launch(float*)::{lambda(int)#1})"},
	{"_Z3arrPA4_iRA8_i", "arr(int (*) [4], int (&) [8])"},
	{"_Z3litILj128ELb1EEvPj", "void lit<128u, true>(unsigned int*)"},
	{"_Z5applyPfPKfPFfffEi", "apply(float*, float const*, float (*)(float, float), int)"},
	{"_Z6memptrM1SiPS_", "memptr(int S::*, S*)"},
	{"_Z8variadicIJifcEEvPiDpT_", "void variadic<int, float, char>(int*, int, float, char)"},
	{"_ZN5outer5inner4fillIdLi4EEEvPNS0_4TileIT_XT0_EEES3_", "void outer::inner::fill<double, 4>(outer::inner::Tile<double, 4>*, double)"},
	{"_ZN1A1BIiE1fIcEEvT_", "void A::B<int>::f<char>(char)"},
	{"_ZNKSt8functionIFviEEclEi", "std::function<void (int)>::operator()(int) const"},
	{"_Z1fSt8functionIFvRKiEE", "f(std::function<void (int const&)>)"},
	{"_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv", "__gnu_cxx::new_allocator<char>::allocate(unsigned long, void const*)"},
	{"_ZTW1x", "TLS wrapper function for x"},
	{"_ZTH1x", "TLS init function for x"},
	{"_Z1fPU3AS1i", "f(int AS1*)"},
	{"_Z1fIJPiPfEEvDpT_", "void f<int*, float*>(int*, float*)"},
	{"_ZN1AcvT_IiEEv", "A::operator int<int>()"},
	{"_Z1gIiEvPFT_S0_E", "void g<int>(int (*)(int))"},
}

func TestDemangleHandCases(t *testing.T) {
	for _, c := range handCases {
		t.Run(c.in, func(t *testing.T) {
			got, err := Demangle(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// mangledNames finds every mangled name in the PTX of the corpora, except
// the _param_N names nvcc derives from kernel names.
func mangledNames(t *testing.T) []string {
	re := regexp.MustCompile(`_Z[A-Za-z0-9_]+`)
	param := regexp.MustCompile(`_param_[0-9]+$`)
	seen := map[string]bool{}
	for _, dir := range []string{"../../testdata/nvcc/ptx", "../../testdata/nvcc/ptx_targets", "../../testdata/conformance/ptx"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.ptx"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range re.FindAllString(string(src), -1) {
				if !param.MatchString(m) {
					seen[m] = true
				}
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestDemangleCorpus(t *testing.T) {
	names := mangledNames(t)
	golden := filepath.Join("testdata", "corpus.golden")
	if *update {
		cmd := exec.Command("c++filt")
		cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
		out, err := cmd.Output()
		require.NoError(t, err, "-update needs GNU c++filt")
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		require.Len(t, lines, len(names))
		var b strings.Builder
		for i, n := range names {
			b.WriteString(n + "\t" + lines[i] + "\n")
		}
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	f, err := os.Open(golden)
	require.NoError(t, err)
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in, out, ok := strings.Cut(sc.Text(), "\t")
		require.True(t, ok, sc.Text())
		want[in] = out
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, len(names), 300)
	for _, n := range names {
		w, ok := want[n]
		if !assert.True(t, ok, "%s is in the corpora but not in %s (run with -update)", n, golden) {
			continue
		}
		got, err := Demangle(n)
		if assert.NoError(t, err, n) {
			assert.Equal(t, w, got, n)
		}
	}
}

func TestNoParams(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_Z12matmul_tiledPfPKfS1_j", "matmul_tiled"},
		{"_ZN5outer5inner4fillIfLi16EEEvPNS0_4TileIT_XT0_EEES3_", "outer::inner::fill<float, 16>"},
		{"_ZNK3Foo3barEv", "Foo::bar"},
		{"_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()"},
		{"_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo"},
		{"_ZSt4cout", "std::cout"},
	} {
		got, err := Demangle(c.in, NoParams)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

func TestNotMangled(t *testing.T) {
	for _, in := range []string{"", "matmul", "_z3foov", "Z3foov", "__cuda_sm3x_div_rn_noftz_f32"} {
		_, err := Demangle(in)
		assert.ErrorIs(t, err, ErrNotMangled, in)
		assert.Equal(t, in, Filter(in))
	}
}

func TestMalformed(t *testing.T) {
	for _, in := range []string{
		"_Z", "_Z3", "_Z3fo", "_Z99foov", "_Z3fooPq", "_ZN3foo3barv",
		"_Z3fooS_", "_Z3fooS0_", "_Z3fooI", "_Z1fILi", "_Z1fILiE", "_ZTVZ", "_ZN3fooEv3",
		"_Z3foovv.", "_Z3foov$x", "_Z1fIiEvT0_", "_ZC1v", "_Z1fA", "_Z1fFv", "_Z1fM1A",
		"_Z1fIXquT_T_T_EEvv", "_Z3foo" + strings.Repeat("P", 500) + "i",
		"_Z3fooIJ", "_ZZ3foov", "_Z1fDF", "_ZN1AD", "_Z1fUt_",
		"_Z1fIT_EvT_", // T_ is its own argument
	} {
		t.Run(in, func(t *testing.T) {
			s, err := Demangle(in)
			var de *Error
			if assert.True(t, errors.As(err, &de), "got %q, %v", s, err) {
				assert.Equal(t, in, de.Name)
				assert.Contains(t, err.Error(), "cannot demangle")
			}
			assert.Equal(t, in, Filter(in))
		})
	}
}

// A substitution can name a tree that doubles at each step; printing it
// stops with an error instead of running out of memory.
func TestHugeExpansion(t *testing.T) {
	// f(A<int, int>, A<A<int, int>, A<int, int> >, ...): each parameter
	// is twice as long as the one before.
	in := "_Z1f1AIiiE"
	for i := 0; i < 40; i++ {
		// Parameter i is substitution 2i+1 (2i is the template name A).
		in += "1AIS" + seq(2*i+1) + "S" + seq(2*i+1) + "E"
	}
	_, err := Demangle(in)
	var de *Error
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Contains(t, de.Msg, "too large")
}

func seq(i int) string {
	if i == 0 {
		return "_"
	}
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	s := ""
	for n := i - 1; ; n /= 36 {
		s = string(digits[n%36]) + s
		if n < 36 {
			break
		}
	}
	return s + "_"
}

func FuzzDemangle(f *testing.F) {
	for _, c := range handCases {
		f.Add(c.in)
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "corpus.golden")); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if in, _, ok := strings.Cut(l, "\t"); ok {
				f.Add(in)
			}
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		s, err := Demangle(in)
		if err != nil {
			if s != "" {
				t.Fatalf("%q: output %q with error %v", in, s, err)
			}
			return
		}
		if len(s) > maxOutput+1024 {
			t.Fatalf("%q: output of %d bytes", in, len(s))
		}
		again, err := Demangle(in)
		if err != nil || again != s {
			t.Fatalf("%q: not deterministic", in)
		}
		if _, err := Demangle(in, NoParams); err != nil {
			t.Fatalf("%q: NoParams fails where the full form works: %v", in, err)
		}
	})
}

func TestSignature(t *testing.T) {
	for _, c := range []struct {
		in     string
		name   string
		params []string
	}{
		{"_Z12matmul_tiledPfPKfS1_j", "matmul_tiled", []string{"float*", "float const*", "float const*", "unsigned int"}},
		{"_Z5applyPfPKfPFfffEi", "apply", []string{"float*", "float const*", "float (*)(float, float)", "int"}},
		{"_Z3foov", "foo", nil},
		{"_ZN5outer5inner4fillIfLi16EEEvPNS0_4TileIT_XT0_EEES3_", "outer::inner::fill<float, 16>", []string{"outer::inner::Tile<float, 16>*", "float"}},
		{"_ZSt4cout", "std::cout", nil},
		{"_Z8variadicIJifcEEvPiDpT_", "variadic<int, float, char>", []string{"int*", "int", "float", "char"}},
		{"_Z1fIJEEvDpT_", "f<>", nil},
	} {
		name, params, err := Signature(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.name, name, c.in)
		assert.Equal(t, c.params, params, c.in)
	}
	_, _, err := Signature("matmul")
	assert.ErrorIs(t, err, ErrNotMangled)
}
