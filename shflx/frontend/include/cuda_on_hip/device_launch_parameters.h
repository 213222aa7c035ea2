// shflx: NVIDIA's device_launch_parameters.h for the host half of a .cu on HIP: part of the CUDA runtime API there.
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
