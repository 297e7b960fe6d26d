// How_to_optimize_in_GPU spmv/spmv.cu: My_spmv_csr_kernel (CSR, a vector of THREADS_PER_VECTOR lanes per row).
// Its main's cuSPARSE check uses CUSPARSE_MV_ALG_DEFAULT, which cuSPARSE 12 removed
// (deprecated since 11.2; the same value is CUSPARSE_SPMV_ALG_DEFAULT).
#if __CUDACC_VER_MAJOR__ >= 12
#define CUSPARSE_MV_ALG_DEFAULT CUSPARSE_SPMV_ALG_DEFAULT
#endif
#include "../../src/How_to_optimize_in_GPU/spmv/spmv.cu"
