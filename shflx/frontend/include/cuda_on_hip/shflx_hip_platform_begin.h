// shflx: HIP's platform macros again (shflx_cuda_on_hip.h undefines them for the program's own code)
// around a HIP header that a CUDA header of this directory includes; shflx_hip_platform_end.h
// undefines them after it. No include guard: used around each such #include.
#pragma pop_macro("__HIPCC__")
#pragma pop_macro("__HIP_PLATFORM_AMD__")
#pragma pop_macro("__HIP_PLATFORM_HCC__")
#pragma push_macro("__HIPCC__")
#pragma push_macro("__HIP_PLATFORM_AMD__")
#pragma push_macro("__HIP_PLATFORM_HCC__")
