// shflx: the common part of cuBLAS's host API (cublas_api.h of CUDA 12), declarations only, for
// host code that the device pass parses and never emits: the handle, status, operation and mode
// types with their enumerator values, handle and stream management, and the BLAS-3 gemm family
// with a few BLAS-1/2 routines, in real types (no cuComplex). Used where nvidia-cublas-cu12 is not
// installed (its own headers are used where it is); tests/test_host_declarations.py checks every
// declaration here against NVIDIA's header. Written from the cuBLAS documentation's signatures.
#pragma once
#include <library_types.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>          // cublas_api.h brings both 16-bit float types
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
               CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
               CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14,
               CUBLAS_STATUS_NOT_SUPPORTED = 15, CUBLAS_STATUS_LICENSE_ERROR = 16 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_HERMITAN = 2,
               CUBLAS_OP_CONJG = 3 } cublasOperation_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum { CUBLAS_GEMM_DFALT = -1, CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
               CUBLAS_GEMM_DFALT_TENSOR_OP = 99 } cublasGemmAlgo_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2,
               CUBLAS_TF32_TENSOR_OP_MATH = 3, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16 } cublasMath_t;
typedef enum { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65, CUBLAS_COMPUTE_32F = 68,
               CUBLAS_COMPUTE_32F_PEDANTIC = 69, CUBLAS_COMPUTE_32F_FAST_16F = 74, CUBLAS_COMPUTE_32F_FAST_16BF = 75,
               CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_64F_PEDANTIC = 71,
               CUBLAS_COMPUTE_32I = 72, CUBLAS_COMPUTE_32I_PEDANTIC = 73 } cublasComputeType_t;
typedef struct cublasContext *cublasHandle_t;
extern "C" {
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *stream);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, __SIZE_TYPE__ bytes);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
#define __SHFLX_GEMM_ARGS(T) cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, \
  int k, const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *C, int ldc
cublasStatus_t cublasSgemm_v2(__SHFLX_GEMM_ARGS(float));
cublasStatus_t cublasDgemm_v2(__SHFLX_GEMM_ARGS(double));
cublasStatus_t cublasHgemm(__SHFLX_GEMM_ARGS(__half));
#define __SHFLX_GEMM_STRIDED_ARGS(T) cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
  int m, int n, int k, const T *alpha, const T *A, int lda, long long strideA, const T *B, int ldb,            \
  long long strideB, const T *beta, T *C, int ldc, long long strideC, int batchCount
cublasStatus_t cublasSgemmStridedBatched(__SHFLX_GEMM_STRIDED_ARGS(float));
cublasStatus_t cublasDgemmStridedBatched(__SHFLX_GEMM_STRIDED_ARGS(double));
cublasStatus_t cublasHgemmStridedBatched(__SHFLX_GEMM_STRIDED_ARGS(__half));
#define __SHFLX_GEMM_BATCHED_ARGS(T) cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
  int m, int n, int k, const T *alpha, const T *const Aarray[], int lda, const T *const Barray[], int ldb,     \
  const T *beta, T *const Carray[], int ldc, int batchCount
cublasStatus_t cublasSgemmBatched(__SHFLX_GEMM_BATCHED_ARGS(float));
cublasStatus_t cublasDgemmBatched(__SHFLX_GEMM_BATCHED_ARGS(double));
#define __SHFLX_GEMM_EX_ARGS(COMPUTE) cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,  \
  int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,             \
  cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc, COMPUTE computeType,      \
  cublasGemmAlgo_t algo
#define __SHFLX_GEMM_STRIDED_EX_ARGS(COMPUTE) cublasHandle_t handle, cublasOperation_t transa,                    \
  cublasOperation_t transb, int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda,  \
  long long strideA, const void *B, cudaDataType Btype, int ldb, long long strideB, const void *beta, void *C,   \
  cudaDataType Ctype, int ldc, long long strideC, int batchCount, COMPUTE computeType, cublasGemmAlgo_t algo
#define __SHFLX_GEMM_BATCHED_EX_ARGS(COMPUTE) cublasHandle_t handle, cublasOperation_t transa,                    \
  cublasOperation_t transb, int m, int n, int k, const void *alpha, const void *const Aarray[], cudaDataType Atype, \
  int lda, const void *const Barray[], cudaDataType Btype, int ldb, const void *beta, void *const Carray[],      \
  cudaDataType Ctype, int ldc, int batchCount, COMPUTE computeType, cublasGemmAlgo_t algo
cublasStatus_t cublasGemmEx(__SHFLX_GEMM_EX_ARGS(cublasComputeType_t));
cublasStatus_t cublasGemmStridedBatchedEx(__SHFLX_GEMM_STRIDED_EX_ARGS(cublasComputeType_t));
cublasStatus_t cublasGemmBatchedEx(__SHFLX_GEMM_BATCHED_EX_ARGS(cublasComputeType_t));
#define __SHFLX_GEAM_ARGS(T) cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, \
  const T *alpha, const T *A, int lda, const T *beta, const T *B, int ldb, T *C, int ldc
cublasStatus_t cublasSgeam(__SHFLX_GEAM_ARGS(float));
cublasStatus_t cublasDgeam(__SHFLX_GEAM_ARGS(double));
#define __SHFLX_GEMV_ARGS(T) cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T *alpha, const T *A, \
  int lda, const T *x, int incx, const T *beta, T *y, int incy
cublasStatus_t cublasSgemv_v2(__SHFLX_GEMV_ARGS(float));
cublasStatus_t cublasDgemv_v2(__SHFLX_GEMV_ARGS(double));
cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float *alpha, const float *x, int incx, float *y, int incy);
cublasStatus_t cublasDaxpy_v2(cublasHandle_t handle, int n, const double *alpha, const double *x, int incx, double *y,
                              int incy);
cublasStatus_t cublasSscal_v2(cublasHandle_t handle, int n, const float *alpha, float *x, int incx);
cublasStatus_t cublasDscal_v2(cublasHandle_t handle, int n, const double *alpha, double *x, int incx);
cublasStatus_t cublasScopy_v2(cublasHandle_t handle, int n, const float *x, int incx, float *y, int incy);
cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float *x, int incx, const float *y, int incy,
                             float *result);
cublasStatus_t cublasDdot_v2(cublasHandle_t handle, int n, const double *x, int incx, const double *y, int incy,
                             double *result);
cublasStatus_t cublasSnrm2_v2(cublasHandle_t handle, int n, const float *x, int incx, float *result);
cublasStatus_t cublasDnrm2_v2(cublasHandle_t handle, int n, const double *x, int incx, double *result);
}
#if defined(__cplusplus)
// cublas_api.h's C++ overloads for code written before CUDA 11, whose computeType is a cudaDataType
// (CUDA_R_32F, ...): NVIDIA's migrate it to a cublasComputeType_t (cublasMigrateComputeType)
cublasStatus_t cublasGemmEx(__SHFLX_GEMM_EX_ARGS(cudaDataType));
cublasStatus_t cublasGemmStridedBatchedEx(__SHFLX_GEMM_STRIDED_EX_ARGS(cudaDataType));
cublasStatus_t cublasGemmBatchedEx(__SHFLX_GEMM_BATCHED_EX_ARGS(cudaDataType));
#endif
#undef __SHFLX_GEMM_ARGS
#undef __SHFLX_GEMM_STRIDED_ARGS
#undef __SHFLX_GEMM_BATCHED_ARGS
#undef __SHFLX_GEAM_ARGS
#undef __SHFLX_GEMV_ARGS
// cublas_v2.h's names for the _v2 entry points
#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasGetVersion cublasGetVersion_v2
#define cublasSetStream cublasSetStream_v2
#define cublasGetStream cublasGetStream_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#define cublasGetPointerMode cublasGetPointerMode_v2
#define cublasSetWorkspace cublasSetWorkspace_v2
#define cublasSgemm cublasSgemm_v2
#define cublasDgemm cublasDgemm_v2
#define cublasSgemv cublasSgemv_v2
#define cublasDgemv cublasDgemv_v2
#define cublasSaxpy cublasSaxpy_v2
#define cublasDaxpy cublasDaxpy_v2
#define cublasSscal cublasSscal_v2
#define cublasDscal cublasDscal_v2
#define cublasScopy cublasScopy_v2
#define cublasSdot cublasSdot_v2
#define cublasDdot cublasDdot_v2
#define cublasSnrm2 cublasSnrm2_v2
#define cublasDnrm2 cublasDnrm2_v2
