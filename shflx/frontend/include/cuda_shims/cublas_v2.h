// shflx: cuBLAS's host API for host code, which the device pass parses and never emits. NVIDIA's
// own cublas_v2.h where nvidia-cublas-cu12 is installed (its include directory is searched after this
// one), else shflx's declarations of its common part (shflx_cublas_host.h).
#pragma once
#if __has_include_next(<cublas_v2.h>)
#include_next <cublas_v2.h>
#else
// NVIDIA's include guard, which programs test to learn that cuBLAS was included (cudahandbook's
// chError_cuda.h defines its cublas() check macro under #ifdef CUBLAS_V2_H_)
#define CUBLAS_V2_H_
#include "../shflx_cublas_host.h"
#endif
