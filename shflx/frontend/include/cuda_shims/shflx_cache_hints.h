/* The cache-hinted loads and stores CUDA documents for sm_NN, where clang's CUDA wrapper lacks them.

   CUDA C++ Programming Guide, "Load Functions Using Cache Hints" (__ldcg, __ldca, __ldcs, __ldlu,
   __ldcv) and "Store Functions Using Cache Hints" (__stwb, __stcg, __stcs, __stwt): T is char,
   signed char, short, int, long, long long, their unsigned forms, char2, char4, short2, short4,
   int2, int4, longlong2, uchar2, uchar4, ushort2, ushort4, uint2, uint4, ulonglong2, float,
   float2, float4, double, double2 (and __half, __half2, __nv_bfloat16, __nv_bfloat162, which
   cuda_fp16.h / cuda_bf16.h define themselves). NVIDIA's sm_32_intrinsics.h has them all; clang's
   wrapper does not include it and its __clang_cuda_intrinsics.h writes only __ldg, __ldcg, __ldcv,
   __ldcs and __stwt, for most of the types.

   Each is one PTX ld/st with the cache operator of its name (PTX ISA, "Cache Operators": ld .ca
   .cg .cs .lu .cv, st .wb .cg .cs .wt), as sm_32_intrinsics.hpp writes it. They are templates over
   a table of the documented types (__shflx_hint<T>, one specialization per row): a non-template
   overload of the same signature (clang's, NVIDIA's fp16/bf16 ones) is preferred over them, so the
   two never clash whatever a clang version provides; a type CUDA does not document has no row (an
   incomplete-type error, as nvcc's missing overload). The stored value's parameter is not deduced,
   so `__stcs(float_ptr, 0)` converts 0 as the documented `__stcs(float *, float)` does.
   Every asm is volatile with a "memory" clobber: the compiler neither drops nor reorders it across
   other memory accesses. Force-included after clang's wrapper (shflx_host_helpers.h). */
#pragma once
#if defined(__CUDA_ARCH__) && defined(__cplusplus)

template <class T> struct __shflx_hint;   /* the documented types: one specialization each */
template <class T> struct __shflx_hint_value { typedef T type; };

/* one scalar row: T, the PTX type, the asm constraint letter, the register's C type */
#define __SHFLX_HINT_LD1(OP, T, TY, C, R)                                                            \
  static __device__ __forceinline__ T OP(const T *__p) {                                           \
    R __r; asm volatile("ld.global." #OP "." TY " %0, [%1];" : "=" C(__r) : "l"(__p) : "memory");  \
    return (T)__r; }
#define __SHFLX_HINT_ST1(OP, T, TY, C, R)                                                            \
  static __device__ __forceinline__ void OP(T *__p, T __v) {                                       \
    R __r = (R)__v; asm volatile("st.global." #OP "." TY " [%0], %1;" :: "l"(__p), C(__r) : "memory"); }
#define __SHFLX_HINT_ROW1(T, TY, C, R)                                                               \
  template <> struct __shflx_hint<T> {                                                             \
    __SHFLX_HINT_LD1(ca, T, TY, C, R) __SHFLX_HINT_LD1(cg, T, TY, C, R)                            \
    __SHFLX_HINT_LD1(cs, T, TY, C, R) __SHFLX_HINT_LD1(lu, T, TY, C, R)                            \
    __SHFLX_HINT_LD1(cv, T, TY, C, R) __SHFLX_HINT_ST1(wb, T, TY, C, R)                            \
    __SHFLX_HINT_ST1(cg, T, TY, C, R) __SHFLX_HINT_ST1(cs, T, TY, C, R)                            \
    __SHFLX_HINT_ST1(wt, T, TY, C, R) };

/* two-element rows: registers of type R (a 32-bit one for 8-bit elements, as PTX allows a
   register wider than the instruction type for ld/st: PTX ISA, "Operand Size Exceeding
   Instruction-Type Size") */
#define __SHFLX_HINT_LD2(OP, T, TY, C, R)                                                            \
  static __device__ __forceinline__ T OP(const T *__p) {                                           \
    R __x, __y; asm volatile("ld.global." #OP ".v2." TY " {%0,%1}, [%2];"                          \
                             : "=" C(__x), "=" C(__y) : "l"(__p) : "memory");                      \
    T __r; __r.x = (decltype(__r.x))__x; __r.y = (decltype(__r.y))__y; return __r; }
#define __SHFLX_HINT_ST2(OP, T, TY, C, R)                                                            \
  static __device__ __forceinline__ void OP(T *__p, T __v) {                                       \
    R __x = (R)__v.x, __y = (R)__v.y;                                                              \
    asm volatile("st.global." #OP ".v2." TY " [%0], {%1,%2};" :: "l"(__p), C(__x), C(__y) : "memory"); }
#define __SHFLX_HINT_ROW2(T, TY, C, R)                                                               \
  template <> struct __shflx_hint<T> {                                                             \
    __SHFLX_HINT_LD2(ca, T, TY, C, R) __SHFLX_HINT_LD2(cg, T, TY, C, R)                            \
    __SHFLX_HINT_LD2(cs, T, TY, C, R) __SHFLX_HINT_LD2(lu, T, TY, C, R)                            \
    __SHFLX_HINT_LD2(cv, T, TY, C, R) __SHFLX_HINT_ST2(wb, T, TY, C, R)                            \
    __SHFLX_HINT_ST2(cg, T, TY, C, R) __SHFLX_HINT_ST2(cs, T, TY, C, R)                            \
    __SHFLX_HINT_ST2(wt, T, TY, C, R) };

#define __SHFLX_HINT_LD4(OP, T, TY, C, R)                                                            \
  static __device__ __forceinline__ T OP(const T *__p) {                                           \
    R __x, __y, __z, __w;                                                                          \
    asm volatile("ld.global." #OP ".v4." TY " {%0,%1,%2,%3}, [%4];"                                \
                 : "=" C(__x), "=" C(__y), "=" C(__z), "=" C(__w) : "l"(__p) : "memory");          \
    T __r; __r.x = (decltype(__r.x))__x; __r.y = (decltype(__r.y))__y;                             \
    __r.z = (decltype(__r.z))__z; __r.w = (decltype(__r.w))__w; return __r; }
#define __SHFLX_HINT_ST4(OP, T, TY, C, R)                                                            \
  static __device__ __forceinline__ void OP(T *__p, T __v) {                                       \
    R __x = (R)__v.x, __y = (R)__v.y, __z = (R)__v.z, __w = (R)__v.w;                              \
    asm volatile("st.global." #OP ".v4." TY " [%0], {%1,%2,%3,%4};"                                \
                 :: "l"(__p), C(__x), C(__y), C(__z), C(__w) : "memory"); }
#define __SHFLX_HINT_ROW4(T, TY, C, R)                                                               \
  template <> struct __shflx_hint<T> {                                                             \
    __SHFLX_HINT_LD4(ca, T, TY, C, R) __SHFLX_HINT_LD4(cg, T, TY, C, R)                            \
    __SHFLX_HINT_LD4(cs, T, TY, C, R) __SHFLX_HINT_LD4(lu, T, TY, C, R)                            \
    __SHFLX_HINT_LD4(cv, T, TY, C, R) __SHFLX_HINT_ST4(wb, T, TY, C, R)                            \
    __SHFLX_HINT_ST4(cg, T, TY, C, R) __SHFLX_HINT_ST4(cs, T, TY, C, R)                            \
    __SHFLX_HINT_ST4(wt, T, TY, C, R) };

static_assert(sizeof(long) == 8, "sm_NN device code is LP64 (long is 64-bit, as on the x86_64 Linux host)");
__SHFLX_HINT_ROW1(char, "s8", "r", unsigned int)
__SHFLX_HINT_ROW1(signed char, "s8", "r", unsigned int)
__SHFLX_HINT_ROW1(short, "s16", "h", unsigned short)
__SHFLX_HINT_ROW1(int, "s32", "r", unsigned int)
__SHFLX_HINT_ROW1(long, "s64", "l", unsigned long)
__SHFLX_HINT_ROW1(long long, "s64", "l", unsigned long long)
__SHFLX_HINT_ROW1(unsigned char, "u8", "r", unsigned int)
__SHFLX_HINT_ROW1(unsigned short, "u16", "h", unsigned short)
__SHFLX_HINT_ROW1(unsigned int, "u32", "r", unsigned int)
__SHFLX_HINT_ROW1(unsigned long, "u64", "l", unsigned long)
__SHFLX_HINT_ROW1(unsigned long long, "u64", "l", unsigned long long)
__SHFLX_HINT_ROW1(float, "f32", "f", float)
__SHFLX_HINT_ROW1(double, "f64", "d", double)
__SHFLX_HINT_ROW2(char2, "s8", "r", int)
__SHFLX_HINT_ROW4(char4, "s8", "r", int)
__SHFLX_HINT_ROW2(short2, "s16", "h", short)
__SHFLX_HINT_ROW4(short4, "s16", "h", short)
__SHFLX_HINT_ROW2(int2, "s32", "r", int)
__SHFLX_HINT_ROW4(int4, "s32", "r", int)
__SHFLX_HINT_ROW2(longlong2, "s64", "l", long long)
__SHFLX_HINT_ROW2(uchar2, "u8", "r", unsigned int)
__SHFLX_HINT_ROW4(uchar4, "u8", "r", unsigned int)
__SHFLX_HINT_ROW2(ushort2, "u16", "h", unsigned short)
__SHFLX_HINT_ROW4(ushort4, "u16", "h", unsigned short)
__SHFLX_HINT_ROW2(uint2, "u32", "r", unsigned int)
__SHFLX_HINT_ROW4(uint4, "u32", "r", unsigned int)
__SHFLX_HINT_ROW2(ulonglong2, "u64", "l", unsigned long long)
__SHFLX_HINT_ROW2(float2, "f32", "f", float)
__SHFLX_HINT_ROW4(float4, "f32", "f", float)
__SHFLX_HINT_ROW2(double2, "f64", "d", double)

#define __SHFLX_HINT_LOAD(NAME, OP)                                                                  \
  template <class T> __device__ __forceinline__ T NAME(const T *__p) { return __shflx_hint<T>::OP(__p); }
#define __SHFLX_HINT_STORE(NAME, OP)                                                                 \
  template <class T> __device__ __forceinline__ void NAME(T *__p, typename __shflx_hint_value<T>::type __v) { \
    __shflx_hint<T>::OP(__p, __v); }
__SHFLX_HINT_LOAD(__ldca, ca) __SHFLX_HINT_LOAD(__ldcg, cg) __SHFLX_HINT_LOAD(__ldcs, cs)
__SHFLX_HINT_LOAD(__ldlu, lu) __SHFLX_HINT_LOAD(__ldcv, cv)
__SHFLX_HINT_STORE(__stwb, wb) __SHFLX_HINT_STORE(__stcg, cg) __SHFLX_HINT_STORE(__stcs, cs)
__SHFLX_HINT_STORE(__stwt, wt)

#undef __SHFLX_HINT_LOAD
#undef __SHFLX_HINT_STORE
#undef __SHFLX_HINT_LD1
#undef __SHFLX_HINT_ST1
#undef __SHFLX_HINT_ROW1
#undef __SHFLX_HINT_LD2
#undef __SHFLX_HINT_ST2
#undef __SHFLX_HINT_ROW2
#undef __SHFLX_HINT_LD4
#undef __SHFLX_HINT_ST4
#undef __SHFLX_HINT_ROW4
#endif
