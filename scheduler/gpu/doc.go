// Package gpu holds the GPU profiles as data: one JSON file per GPU,
// embedded in the binary (profiles/h100.json, the H100 SXM5 the corpora
// were recorded on; profiles/gf100.json, the Fermi GF100 of the source
// texts), or a file of the user's (Load). A Profile gives the SM count and
// clock, what one SM holds (warps, blocks, registers and their allocation
// unit, shared memory, barriers: what occupancy divides by), the limits of
// a launch, the memory hierarchy (a memspace/hier Config) and a section for
// the timing model.
//
// It does not compute occupancy (package occupancy), run anything or model
// the hierarchy (memspace/hier); it imports only memspace/hier.
package gpu
