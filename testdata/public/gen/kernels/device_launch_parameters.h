// Forwarding header (ours): How_to_optimize_in_GPU includes this old toolkit
// header (it declares nothing the kernels need); use the toolkit's when it
// still ships one, else nothing.
#pragma once
#if __has_include_next(<device_launch_parameters.h>)
#include_next <device_launch_parameters.h>
#endif
