// shflx: see shflx_hip_platform_begin.h. No include guard.
#undef __HIPCC__
#undef __HIP_PLATFORM_AMD__
#undef __HIP_PLATFORM_HCC__
