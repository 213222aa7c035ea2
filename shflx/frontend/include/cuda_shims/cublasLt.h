// shflx: cuBLASLt's host API for host code, which the device pass parses and never emits. NVIDIA's
// own cublasLt.h where nvidia-cublas-cu12 is installed (its include directory is searched after this
// one), else shflx's declarations of its common part (shflx_cublaslt_host.h).
#pragma once
#if __has_include_next(<cublasLt.h>)
#include_next <cublasLt.h>
#else
#include "../shflx_cublaslt_host.h"
#endif
