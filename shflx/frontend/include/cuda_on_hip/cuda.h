// shflx: NVIDIA's cuda.h (the CUDA driver API) for the host half of a .cu on HIP. Every driver API
// name is renamed to HIPIFY's HIP equivalent (shflx_cuda_driver_names.h, generated from HIPIFY's
// driver table) or, where HIP has none, declared so that a use is one error, as cuda_runtime.h does
// for the runtime API (whose names come first: a name both tables have is the runtime header's).
// CUDA_VERSION is the device pass's (the launcher defines it for both passes).
#pragma once
#pragma clang system_header
#include "cuda_runtime.h"
#include "shflx_cuda_driver_names.h"
