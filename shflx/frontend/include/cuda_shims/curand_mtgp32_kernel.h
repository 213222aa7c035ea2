/* Searched after every other include directory (-idirafter), so a real cuRAND header wins.
   clang's __clang_cuda_runtime_wrapper.h includes curand_mtgp32_kernel.h unconditionally (to
   patch its redeclarations of threadIdx/blockDim); nvcc does not include it at all, and the
   cuRAND wheel is not part of shflx[cuda]. Without cuRAND, this empty file stands in for it. */
