// shflx: NVIDIA's cuda_fp16.h for the host half of a .cu on HIP: HIP's __half, under CUDA's names.
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
#include <hip/hip_fp16.h>
