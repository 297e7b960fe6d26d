package memspace

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testView is a View over every space, with the allocations behind it.
type testView struct {
	*View
	buf    *Allocation // "buffer A", 1003 bytes
	consts *Allocation // the constant bank
	params *Allocation // the kernel parameters
	local  [32][]byte
}

const (
	testShared = 1020 // not a multiple of 8: an aligned access can run past the end
	testLocal  = 64
	testFParam = 16 // bytes per lane
	testConst  = ConstBankSize
	testParams = 4096
)

func newTestView(t *testing.T) *testView {
	t.Helper()
	g := NewGlobalMemory()
	tv := &testView{}
	var err error
	tv.buf, err = g.Malloc(1003, "buffer A")
	require.NoError(t, err)
	tv.consts, err = g.Malloc(testConst, "module constants")
	require.NoError(t, err)
	tv.params, err = g.Malloc(testParams, "kernel parameters")
	require.NoError(t, err)
	for l := range tv.local {
		tv.local[l] = make([]byte, testLocal)
	}
	tv.View = &View{
		Global:       g,
		Shared:       make([]byte, testShared),
		Local:        &tv.local,
		ConstBase:    tv.consts.Base,
		ConstSize:    testConst,
		ParamBase:    tv.params.Base,
		ParamSize:    testParams,
		FParam:       make([]byte, 32*testFParam),
		FParamStride: testFParam,
	}
	return tv
}

// mem returns the bytes that back addr in space s for lane l, bypassing
// the View, so that tests check what the View wrote.
func (tv *testView) mem(s Space, addr uint64, l int) []byte {
	switch s {
	case Global:
		return tv.buf.Data[addr-tv.buf.Base:]
	case Shared:
		return tv.View.Shared[addr:]
	case Local:
		return tv.local[l][addr:]
	case Const:
		return tv.consts.Data[addr:]
	case Param:
		return tv.params.Data[addr:]
	case FParam:
		return tv.View.FParam[uint64(l*testFParam)+addr:]
	}
	panic(s)
}

// base is an address in space s that tests may use.
func (tv *testView) base(s Space) uint64 {
	if s == Global {
		return tv.buf.Base
	}
	return 0
}

func lanes(ls ...int) uint32 {
	var m uint32
	for _, l := range ls {
		m |= 1 << l
	}
	return m
}

func newDst() *[MaxElems][]uint64 {
	var d [MaxElems][]uint64
	for e := range d {
		d[e] = make([]uint64, 32)
		for l := range d[e] {
			d[e][l] = 0xdead_beef_dead_beef
		}
	}
	return &d
}

var allSpaces = []Space{Global, Shared, Local, Const, Param, FParam}

// TestRoundTripEveryWidth stores through the View and checks the bytes in
// memory (little-endian), then loads them back, zero- and sign-extended,
// for every element width and vector length in every space.
func TestRoundTripEveryWidth(t *testing.T) {
	for _, s := range allSpaces {
		for _, esz := range []int{1, 2, 4, 8} {
			for _, nelem := range []int{1, 2, 4} {
				size := esz * nelem
				if s == FParam && size > testFParam {
					continue
				}
				t.Run(fmt.Sprintf("%s/%dx%d", s, nelem, esz), func(t *testing.T) {
					tv := newTestView(t)
					a := &Access{Space: s, Kind: Store, Size: uint8(size), Mask: lanes(0, 1, 7, 31)}
					src := newDst()
					for l := 0; l < 32; l++ {
						// Per-lane addresses: disjoint for spaces shared by the
						// warp, the same offset for per-lane spaces.
						a.Addr[l] = tv.base(s) + uint64(size*bits.OnesCount32(a.Mask&(1<<l-1)))
						if s == Local || s == FParam {
							a.Addr[l] = 0
						}
						for e := 0; e < nelem; e++ {
							// High bit of each element set, so sign extension shows.
							src[e][l] = 0x8070605040302010 ^ uint64(l)<<8 ^ uint64(e)<<16 | 1<<(8*esz-1)
						}
					}
					require.Nil(t, tv.Store(a, nelem, src))
					for l := 0; l < 32; l++ {
						if a.Mask&(1<<l) == 0 {
							continue
						}
						b := tv.mem(s, a.Addr[l], l)
						for e := 0; e < nelem; e++ {
							want := make([]byte, 8)
							binary.LittleEndian.PutUint64(want, src[e][l])
							assert.Equal(t, want[:esz], b[e*esz:(e+1)*esz], "lane %d element %d bytes", l, e)
						}
					}
					a.Kind = Load
					for _, signed := range []bool{false, true} {
						dst := newDst()
						require.Nil(t, tv.Load(a, nelem, signed, dst))
						for l := 0; l < 32; l++ {
							for e := 0; e < 4; e++ {
								if a.Mask&(1<<l) == 0 || e >= nelem {
									assert.Equal(t, uint64(0xdead_beef_dead_beef), dst[e][l], "untouched lane %d element %d", l, e)
									continue
								}
								want := src[e][l]
								if esz < 8 {
									want &= 1<<(8*esz) - 1
									if signed {
										want |= ^uint64(0) << (8 * esz) // the sign bit is set
									}
								}
								assert.Equal(t, want, dst[e][l], "lane %d element %d signed=%v", l, e, signed)
							}
						}
					}
				})
			}
		}
	}
}

func TestLittleEndianLayout(t *testing.T) {
	tv := newTestView(t)
	a := &Access{Space: Global, Kind: Store, Size: 8, Mask: 1}
	a.Addr[0] = tv.buf.Base + 8
	src := newDst()
	src[0][0] = 0x0102030405060708
	require.Nil(t, tv.Store(a, 1, src))
	assert.Equal(t, []byte{8, 7, 6, 5, 4, 3, 2, 1}, tv.buf.Data[8:16])
	// Narrower loads of the same bytes see the low-order parts first.
	for _, tt := range []struct {
		off  uint64
		size uint8
		want uint64
	}{{8, 1, 0x08}, {9, 1, 0x07}, {8, 2, 0x0708}, {10, 2, 0x0506}, {8, 4, 0x05060708}, {12, 4, 0x01020304}} {
		l := &Access{Space: Global, Kind: Load, Size: tt.size, Mask: 1}
		l.Addr[0] = tv.buf.Base + tt.off
		dst := newDst()
		require.Nil(t, tv.Load(l, 1, false, dst))
		assert.Equal(t, tt.want, dst[0][0], "%d bytes at +%d", tt.size, tt.off)
	}
}

// TestFaults checks that every space refuses accesses outside it and
// misaligned ones, and that the fault names the lane, the space, the
// address, the size and the reason.
func TestFaults(t *testing.T) {
	tv := newTestView(t)
	end := tv.buf.End()
	rng := fmt.Sprintf("[%#x, %#x)", tv.buf.Base, end)
	tests := []struct {
		name   string
		space  Space
		addr   uint64
		size   uint8
		ok     bool
		reason string
	}{
		{"global last word", Global, end - 11, 8, true, ""},
		{"global one byte past", Global, end - 3, 4, false, "runs past the end of buffer A " + rng + " by 1 bytes"},
		{"global vector past", Global, end - 11, 16, false, "runs past the end of buffer A " + rng + " by 5 bytes"},
		{"global at the end", Global, end, 1, false, "not inside any allocation (0 bytes past the end of buffer A " + rng + ")"},
		{"global null", Global, 0, 4, false, "not inside any allocation"},
		{"global misaligned", Global, tv.buf.Base + 2, 4, false, "misaligned address"},
		{"global misaligned 8", Global, tv.buf.Base + 4, 8, false, "misaligned address"},
		{"global misaligned vector", Global, tv.buf.Base + 8, 16, false, "misaligned address"},
		{"global misaligned 2", Global, tv.buf.Base + 1, 2, false, "misaligned address"},
		{"shared last", Shared, testShared - 4, 4, true, ""},
		{"shared last pair", Shared, testShared - 12, 8, true, ""},
		{"shared misaligned", Shared, testShared - 2, 4, false, "misaligned address"},
		{"shared last byte", Shared, testShared - 1, 1, true, ""},
		{"shared outside", Shared, testShared, 1, false, "outside shared memory (1020 bytes)"},
		{"shared over the end", Shared, testShared - 4, 8, false, "runs past the end of shared memory (1020 bytes)"},
		{"local last", Local, testLocal - 8, 8, true, ""},
		{"local outside", Local, testLocal, 4, false, "outside the thread's local memory (64 bytes)"},
		{"const last", Const, ConstBankSize - 4, 4, true, ""},
		{"const outside", Const, ConstBankSize, 4, false, "outside the constant bank (65536 bytes)"},
		{"param last", Param, testParams - 8, 8, true, ""},
		{"param outside", Param, testParams, 8, false, "outside the kernel parameters (4096 bytes)"},
		{"fparam last", FParam, testFParam - 4, 4, true, ""},
		{"fparam outside", FParam, testFParam, 4, false, "outside the function parameters (16 bytes)"},
		{"texture", Texture, 0, 4, false, "unsupported state space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const lane = 9
			a := &Access{Space: tt.space, Kind: Load, Size: tt.size, Mask: lanes(lane)}
			if tt.space != Texture {
				a.Mask |= lanes(3)
				a.Addr[3] = tv.base(tt.space) // lane 3 is fine
			}
			a.Addr[lane] = tt.addr
			dst := newDst()
			f := tv.Load(a, 1, false, dst)
			if tt.ok {
				assert.Nil(t, f)
				return
			}
			require.NotNil(t, f)
			assert.Equal(t, Fault{Lane: lane, Space: tt.space, Addr: tt.addr, Size: int(tt.size), Reason: tt.reason}, *f)
			assert.Equal(t, fmt.Sprintf("%s access of %d bytes at %#x: %s", tt.space, tt.size, tt.addr, tt.reason), f.Error())
			// Stores and read-modify-write users are refused the same way.
			a.Kind = Store
			assert.Equal(t, f, tv.Store(a, 1, dst))
			_, bf := tv.Bytes(tt.space, tt.addr, uint64(tt.size), lane)
			assert.Equal(t, f, bf)
		})
	}
}

func TestLocalMemoryIsPerLane(t *testing.T) {
	tv := newTestView(t)
	tv.local[5] = make([]byte, 8) // a lane with less local memory
	a := &Access{Space: Local, Kind: Store, Size: 4, Mask: ^uint32(0)}
	for l := range a.Addr {
		a.Addr[l] = 4
	}
	src := newDst()
	for l := 0; l < 32; l++ {
		src[0][l] = uint64(100 + l)
	}
	require.Nil(t, tv.Store(a, 1, src))
	for l := 0; l < 32; l++ {
		assert.Equal(t, uint32(100+l), binary.LittleEndian.Uint32(tv.local[l][4:]), "lane %d", l)
	}
	for l := range a.Addr {
		a.Addr[l] = 8
	}
	f := tv.Store(a, 1, src)
	require.NotNil(t, f)
	assert.Equal(t, 5, f.Lane)
	assert.Equal(t, "outside the thread's local memory (8 bytes)", f.Reason)
}

func TestResolveGeneric(t *testing.T) {
	tests := []struct {
		addr  uint64
		space Space
		off   uint64
	}{
		{SharedWindow, Shared, 0},
		{SharedWindow + 0x1234, Shared, 0x1234},
		{SharedWindow + WindowSize - 1, Shared, WindowSize - 1},
		{LocalWindow, Local, 0},
		{LocalWindow + 8, Local, 8},
		{LocalWindow + WindowSize - 1, Local, WindowSize - 1},
		{LocalWindow + WindowSize, Global, LocalWindow + WindowSize},
		{SharedWindow - 1, Global, SharedWindow - 1},
		{GlobalBase, Global, GlobalBase},
		{0, Global, 0},
	}
	for _, tt := range tests {
		s, off := ResolveGeneric(tt.addr)
		assert.Equal(t, tt.space, s, "%#x", tt.addr)
		assert.Equal(t, tt.off, off, "%#x", tt.addr)
	}
	// The windows never overlap device allocations.
	assert.Less(t, GlobalBase+DefaultMemoryLimit*2, SharedWindow)
}

func TestGenericAccess(t *testing.T) {
	tv := newTestView(t)
	tv.local[3][16] = 0x33
	tv.View.Shared[32] = 0x22
	tv.buf.Data[48] = 0x11
	a := &Access{Space: Generic, Kind: Load, Size: 1, Mask: lanes(0, 1, 3)}
	a.Addr[0] = tv.buf.Base + 48
	a.Addr[1] = SharedWindow + 32
	a.Addr[3] = LocalWindow + 16
	dst := newDst()
	require.Nil(t, tv.Load(a, 1, false, dst))
	assert.Equal(t, []uint64{0x11, 0x22, 0xdead_beef_dead_beef, 0x33}, dst[0][:4])

	// A fault through a generic address names the resolved space.
	a.Addr[1] = SharedWindow + testShared
	f := tv.Load(a, 1, false, dst)
	require.NotNil(t, f)
	assert.Equal(t, Fault{Lane: 1, Space: Shared, Addr: testShared, Size: 1, Reason: "outside shared memory (1020 bytes)"}, *f)
}

// TestInactiveLanesUntouched gives inactive lanes addresses that would
// fault and checks that neither path looks at them: no fault, no write,
// their destination registers unchanged.
func TestInactiveLanesUntouched(t *testing.T) {
	for _, s := range []Space{Global, Shared, Local} {
		for _, size := range []uint8{1, 2, 4, 8, 16} {
			t.Run(fmt.Sprintf("%s/%d", s, size), func(t *testing.T) {
				tv := newTestView(t)
				mask := lanes(0, 2, 5, 17, 30)
				a := &Access{Space: s, Size: size, Mask: mask}
				for l := range a.Addr {
					if mask&(1<<l) != 0 {
						a.Addr[l] = tv.base(s) + uint64(l)*uint64(size)
						if s == Local {
							a.Addr[l] = uint64(size)
						}
					} else {
						a.Addr[l] = tv.base(s) + 1<<40 + 1 // outside and misaligned
					}
				}
				nelem := 1
				if size == 16 {
					nelem = 2
				}
				src := newDst()
				for l := 0; l < 32; l++ {
					src[0][l], src[1][l] = uint64(l+1)*0x0101010101010101, ^uint64(l)
				}
				a.Kind = Store
				require.Nil(t, tv.Store(a, nelem, src))
				before := snapshot(tv)
				a.Kind = Load
				dst := newDst()
				require.Nil(t, tv.Load(a, nelem, false, dst))
				if (size == 4 || size == 8) && s != Local { // the fast paths
					fdst := new([32]uint64)
					for l := range fdst {
						fdst[l] = 0xdead_beef_dead_beef
					}
					require.True(t, tv.LoadScalar(a, fdst))
					a.Kind = Store
					require.True(t, tv.StoreScalar(a, fdst))
					for l := 0; l < 32; l++ {
						if mask&(1<<l) == 0 {
							assert.Equal(t, uint64(0xdead_beef_dead_beef), fdst[l], "fast path: inactive lane %d", l)
						}
					}
				}
				for l := 0; l < 32; l++ {
					if mask&(1<<l) == 0 {
						assert.Equal(t, uint64(0xdead_beef_dead_beef), dst[0][l], "inactive lane %d", l)
					}
				}
				assert.Equal(t, before, snapshot(tv), "a load (or a store of what was loaded) changed memory")
				// Only the active lanes' bytes were written by the store.
				written := 0
				for _, b := range before {
					for _, x := range b {
						if x != 0 {
							written++
						}
					}
				}
				assert.Equal(t, 5*int(size), written, "bytes written by 5 active lanes")
			})
		}
	}
}

// snapshot copies every byte a View can address.
func snapshot(tv *testView) [][]byte {
	out := [][]byte{append([]byte(nil), tv.buf.Data...), append([]byte(nil), tv.View.Shared...)}
	for _, l := range tv.local {
		out = append(out, append([]byte(nil), l...))
	}
	return out
}
