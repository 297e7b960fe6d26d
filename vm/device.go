package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
)

// Device is an emulated GPU's memory and loaded modules: the device API
// (cudaMalloc, cudaMemcpy, cuModuleLoad, cudaMemcpyToSymbol, launches).
type Device struct {
	Mem      *memspace.GlobalMemory
	modules  []*Module
	grids    uint64
	textures []*Texture
	surfaces []*Surface
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
	return d.Mem.CopyIn(dst, src)
}

// MemcpyDtoH copies device memory to host bytes.
func (d *Device) MemcpyDtoH(dst []byte, src uint64) error {
	return d.Mem.CopyOut(dst, src)
}
