package vm

import (
	"fmt"

	"github.com/ptxvm/ptxvm/memspace"
)

// Device is an emulated GPU's memory and loaded modules: the device API
// (cudaMalloc, cudaMemcpy, cuModuleLoad, cudaMemcpyToSymbol, launches).
type Device struct {
	Mem      *memspace.GlobalMemory
	modules  []*Module
	grids    uint64
	textures []*Texture
}

// NewDevice returns a device with empty memory.
func NewDevice() *Device {
	return &Device{Mem: memspace.NewGlobalMemory()}
}

// Malloc allocates n bytes of device memory (zeroed), aligned to 256 bytes.
func (d *Device) Malloc(n uint64, name string) (uint64, error) {
	a, err := d.Mem.Malloc(n, name)
	if err != nil {
		return 0, err
	}
	return a.Base, nil
}

// Free releases an allocation.
func (d *Device) Free(addr uint64) error { return d.Mem.Free(addr) }

// MemcpyHtoD copies host bytes to device memory.
func (d *Device) MemcpyHtoD(dst uint64, src []byte) error {
	a := d.Mem.Find(dst, uint64(len(src)))
	if a == nil {
		return fmt.Errorf("copy of %d bytes to device address %#x: %s", len(src), dst, d.Mem.Describe(dst, uint64(len(src))))
	}
	copy(a.Data[dst-a.Base:], src)
	return nil
}

// MemcpyDtoH copies device memory to host bytes.
func (d *Device) MemcpyDtoH(dst []byte, src uint64) error {
	a := d.Mem.Find(src, uint64(len(dst)))
	if a == nil {
		return fmt.Errorf("copy of %d bytes from device address %#x: %s", len(dst), src, d.Mem.Describe(src, uint64(len(dst))))
	}
	copy(dst, a.Data[src-a.Base:])
	return nil
}
