// Package npy reads and writes the header of NumPy's .npy files (format
// versions 1.0 to 3.0): the element type, the byte order and the shape in
// front of the raw array, so that a launch spec can take what NumPy and
// PyTorch users already have (numpy.save) wherever it takes a raw .bin file,
// and `ptxrun run` can write its outputs the same way.
//
// It does not convert between element types nor reorder Fortran-ordered
// arrays of more than one dimension: those are refused with a message.
package npy
