package ptx

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

const header = ".version 8.5\n.target sm_90a\n.address_size 64\n"

// kernel wraps statements in a module with one kernel, k.
func kernel(stmts string) string {
	return header + "\n.visible .entry k()\n{\n" + stmts + "\n}\n"
}

// parseBody parses statements inside a kernel and returns them.
func parseBody(t *testing.T, stmts string) []*Statement {
	t.Helper()
	m, err := Parse("t.ptx", []byte(kernel(stmts)))
	require.NoError(t, err)
	require.Len(t, m.Funcs, 1)
	return m.Funcs[0].Body
}

var posType = reflect.TypeOf(Pos{})

// clearPos zeroes every exported Pos field reachable from v, so trees can
// be compared without positions.
func clearPos(v any) {
	clearPosValue(reflect.ValueOf(v))
}

func clearPosValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			clearPosValue(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			clearPosValue(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == posType {
			if v.CanSet() {
				v.Set(reflect.Zero(posType))
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				clearPosValue(v.Field(i))
			}
		}
	}
}

// dump renders the exported fields of a tree, positions left out, as
// indented JSON: two trees are the same when their dumps are.
func dump(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	require.NoError(t, d.Decode(&x))
	dropPos(x)
	out, err := json.MarshalIndent(x, "", " ")
	require.NoError(t, err)
	return string(out)
}

// sameTree reports whether a and b have the same exported fields,
// positions left out: what comparing their dumps says, without the cost of
// rendering them (the fuzz target compares three trees an input).
func sameTree(a, b any) bool {
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b))
}

func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		if a.Type() == posType {
			return true
		}
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() && !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !sameValue(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

func dropPos(x any) {
	switch x := x.(type) {
	case map[string]any:
		delete(x, "Pos")
		for _, v := range x {
			dropPos(v)
		}
	case []any:
		for _, v := range x {
			dropPos(v)
		}
	}
}

// testdataFiles lists testdata/*.ptx in order.
func testdataFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.ptx"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sort.Strings(files)
	return files
}

func readFile(t testing.TB, name string) []byte {
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return b
}

func f32bits(f float32) uint64 { return uint64(math.Float32bits(f)) }
func f64bits(f float64) uint64 { return math.Float64bits(f) }
