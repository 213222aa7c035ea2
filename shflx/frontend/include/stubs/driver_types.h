// shflx stub: the runtime's types (cudaError_t, cudaStream_t, ...) come from shflx_cuda_host.h,
// which the prelude includes; NVIDIA headers read beneath the layer (cublas_api.h) include this.
#pragma once
