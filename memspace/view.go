package memspace

import (
	"encoding/binary"
	"math/bits"
)

// View is everything one warp can address: the device's global memory, its
// CTA's shared memory, its lanes' local memory, and the parameter and constant
// banks. A View belongs to one goroutine at a time.
type View struct {
	Global *GlobalMemory
	// hint is the allocation the warp's last global access reached, hint2
	// the one before (LoadScalar's full-warp path tries both: a kernel
	// reading two buffers in turn alternates between them).
	hint, hint2 *Allocation

	Shared []byte // the CTA's shared memory (static + dynamic)
	// SharedBase is the shared address of Shared[0]: the CTA's rank in
	// its cluster times 2^24 (cluster.go; 0 without clusters).
	SharedBase uint64
	// Cluster is the shared memory of the CTA's cluster by rank, which
	// shared::cluster addresses of other ranks reach (cluster.go); nil:
	// such addresses fault.
	Cluster *SharedCluster
	Local   *[32][]byte // per-lane local memory of the warp

	ConstBase uint64 // global address of the module's constant bank
	ConstSize uint64
	ParamBase uint64 // global address of the kernel parameter buffer
	ParamSize uint64

	FParam       []byte // the current call frame's function parameters, lane-major
	FParamStride int    // bytes per lane in FParam
}

// Load performs a load of nelem elements of a.Size/nelem bytes for each lane
// in a.Mask and writes them zero- or sign-extended to 64 bits into dst[e][lane].
func (v *View) Load(a *Access, nelem int, signed bool, dst *[MaxElems][]uint64) *Fault {
	esz := uint64(a.Size) / uint64(nelem)
	for m := a.Mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		b, f := v.bytes(a.Space, a.Addr[l], uint64(a.Size), l, false)
		if f != nil {
			return f
		}
		for e := 0; e < nelem; e++ {
			dst[e][l] = decode(b[uint64(e)*esz:], esz, signed)
		}
	}
	return nil
}

// Store writes nelem elements of a.Size/nelem bytes for each lane in a.Mask,
// taking the low bytes of src[e][lane]. An element whose src[e] is nil is
// not written (the sink `_` of a 256-bit store); the access is still checked
// as a whole.
func (v *View) Store(a *Access, nelem int, src *[MaxElems][]uint64) *Fault {
	esz := uint64(a.Size) / uint64(nelem)
	for m := a.Mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		b, f := v.bytes(a.Space, a.Addr[l], uint64(a.Size), l, true)
		if f != nil {
			return f
		}
		for e := 0; e < nelem; e++ {
			if src[e] != nil {
				PutUint(b[uint64(e)*esz:], esz, src[e][l])
			}
		}
	}
	return nil
}

// Bytes returns the n bytes at addr in space for lane l, for reading and
// writing (atomics and other read-modify-write users).
func (v *View) Bytes(s Space, addr, n uint64, l int) ([]byte, *Fault) {
	return v.bytes(s, addr, n, l, true)
}

// Read returns the n bytes at addr in space for lane l, for reading only
// (asynchronous copies read their source this way).
func (v *View) Read(s Space, addr, n uint64, l int) ([]byte, *Fault) {
	return v.bytes(s, addr, n, l, false)
}

// bytes returns the n bytes at addr in space for lane l; write says they
// will be written (a sparse allocation's page is allocated then).
func (v *View) bytes(s Space, addr, n uint64, l int, write bool) ([]byte, *Fault) {
	if n > 1 && addr&(n-1) != 0 && bits.OnesCount64(n) == 1 {
		return nil, &Fault{Lane: l, Space: s, Addr: addr, Size: int(n), Reason: "misaligned address"}
	}
	return v.span(s, addr, n, l, write)
}

// Span returns the n bytes at addr in space for lane l, for reading and
// writing, without Bytes' natural-alignment check (a bulk copy's block
// needs only 16-byte alignment, which its caller checks).
func (v *View) Span(s Space, addr, n uint64, l int, write bool) ([]byte, *Fault) {
	return v.span(s, addr, n, l, write)
}

func (v *View) span(s Space, addr, n uint64, l int, write bool) ([]byte, *Fault) {
	if s == Generic {
		s, addr = ResolveGeneric(addr)
	}
	switch s {
	case Global:
		if write {
			b, a, err := v.Global.SliceW(addr, n, &v.hint)
			switch {
			case err != nil:
				return nil, &Fault{Lane: l, Space: Global, Addr: addr, Size: int(n), Reason: err.Error()}
			case a != nil:
				return b, nil
			}
		} else if b, ok := v.Global.Slice(addr, n, &v.hint); ok {
			return b, nil
		}
		return nil, &Fault{Lane: l, Space: Global, Addr: addr, Size: int(n), Reason: v.Global.Describe(addr, n)}
	case Shared:
		if o := addr - v.SharedBase; o < uint64(len(v.Shared)) && o+n <= uint64(len(v.Shared)) {
			return v.Shared[o : o+n], nil
		}
		if addr>>ClusterSlotBits != v.SharedBase>>ClusterSlotBits {
			return v.clusterBytes(addr, n, l)
		}
		return nil, &Fault{Lane: l, Space: Shared, Addr: addr, Size: int(n), Reason: outOf("shared memory", addr-v.SharedBase, n, uint64(len(v.Shared)))}
	case Local:
		lm := v.Local[l]
		if addr < uint64(len(lm)) && addr+n <= uint64(len(lm)) {
			return lm[addr : addr+n], nil
		}
		return nil, &Fault{Lane: l, Space: Local, Addr: addr, Size: int(n), Reason: outOf("the thread's local memory", addr, n, uint64(len(lm)))}
	case Const:
		if addr < v.ConstSize && addr+n <= v.ConstSize {
			if b, ok := v.Global.Slice(v.ConstBase+addr, n, &v.hint); ok {
				return b, nil
			}
		}
		return nil, &Fault{Lane: l, Space: Const, Addr: addr, Size: int(n), Reason: outOf("the constant bank", addr, n, v.ConstSize)}
	case Param:
		if addr < v.ParamSize && addr+n <= v.ParamSize {
			if b, ok := v.Global.Slice(v.ParamBase+addr, n, &v.hint); ok {
				return b, nil
			}
		}
		return nil, &Fault{Lane: l, Space: Param, Addr: addr, Size: int(n), Reason: outOf("the kernel parameters", addr, n, v.ParamSize)}
	case FParam:
		st := uint64(v.FParamStride)
		if addr < st && addr+n <= st {
			o := uint64(l)*st + addr
			return v.FParam[o : o+n], nil
		}
		return nil, &Fault{Lane: l, Space: FParam, Addr: addr, Size: int(n), Reason: outOf("the function parameters", addr, n, st)}
	}
	return nil, &Fault{Lane: l, Space: s, Addr: addr, Size: int(n), Reason: "unsupported state space"}
}

func outOf(what string, addr, n, size uint64) string {
	if addr >= size {
		return "outside " + what + " (" + itoa(size) + " bytes)"
	}
	return "runs past the end of " + what + " (" + itoa(size) + " bytes)"
}

func itoa(x uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			return string(b[i:])
		}
	}
}

func decode(b []byte, n uint64, signed bool) uint64 {
	switch n {
	case 1:
		if signed {
			return uint64(int64(int8(b[0])))
		}
		return uint64(b[0])
	case 2:
		v := binary.LittleEndian.Uint16(b)
		if signed {
			return uint64(int64(int16(v)))
		}
		return uint64(v)
	case 4:
		v := binary.LittleEndian.Uint32(b)
		if signed {
			return uint64(int64(int32(v)))
		}
		return uint64(v)
	default:
		return binary.LittleEndian.Uint64(b)
	}
}

// PutUint writes the low n bytes (1, 2, 4, else 8) of v to b, little
// endian, as device memory holds them.
func PutUint(b []byte, n uint64, v uint64) {
	switch n {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}
