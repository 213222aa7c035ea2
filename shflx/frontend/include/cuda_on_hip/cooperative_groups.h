// shflx: NVIDIA's cooperative_groups.h for the host half of a .cu on HIP: HIP's, whose names are
// CUDA's (namespace cooperative_groups). The host pass only parses the kernels; their code is shflx's.
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
#include "shflx_hip_platform_begin.h"
#include <hip/hip_cooperative_groups.h>
#include "shflx_hip_platform_end.h"
