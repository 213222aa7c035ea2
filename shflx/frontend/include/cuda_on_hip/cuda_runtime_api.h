// shflx: NVIDIA's cuda_runtime_api.h for the host half of a .cu on HIP: part of the CUDA runtime API there.
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
