// shflx: sm_32_intrinsics.h, which real code includes by name (cudahandbook's SMs/testFunnelShift.cu).
// Everything it declares (__ldg, the cache-hint loads and stores, __funnelshift_l/lc/r/rc) is the CUDA
// layer's, force-included into every .cu (shflx_cuda.h), as nvcc's cuda_runtime.h includes it into every .cu.
#pragma once
