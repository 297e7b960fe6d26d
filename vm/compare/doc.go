// Package compare compares output buffers element by element, typed (u8 to
// u64, s8 to s64, f16, bf16, f32, f64), within a Tolerance (ULP distance,
// absolute or relative error, any NaN for any NaN), and describes the
// differences for a person (values with their bits) or a machine (JSON).
//
// It does not run anything or read files: package spec says which buffers a
// launch writes back, and scheduler/suite compares them with a GPU's.
package compare
