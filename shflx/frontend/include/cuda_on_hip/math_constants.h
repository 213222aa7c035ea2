// shflx: math_constants.h for the host half of a .cu on HIP: NVIDIA's own (macros only),
// read from the CUDA runtime wheel as the device pass reads it (../stubs/math_constants.h).
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
#include "../stubs/math_constants.h"
