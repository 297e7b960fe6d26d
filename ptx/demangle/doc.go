// Package demangle turns the Itanium C++ ABI names that nvcc gives kernels
// and device functions (_Z12matmul_tiledPfPKfS1_j) back into the C++ a
// person wrote (matmul_tiled(float*, float const*, float const*, unsigned
// int)), printed the way GNU c++filt prints them.
//
// It covers what CUDA code produces: namespaces (anonymous ones included),
// classes, templates with type and literal arguments, argument packs,
// substitutions, template parameters, function and member pointers,
// arrays, CV and reference qualifiers, constructors, destructors and
// operators, local names, lambdas and unnamed types, ABI tags, the special
// names (vtables, guard variables, thunks) and vendor suffixes. Template
// arguments given as expressions are printed when they are a template
// parameter, a literal or an operator applied to those; other expressions
// are an error, and so is anything else it does not understand.
//
// It does not parse PTX, nor decide which name a user meant: callers match
// names (see Demangle's Options).
package demangle
