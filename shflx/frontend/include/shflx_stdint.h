// Fixed-width integer types from clang's predefined macros (no system headers are needed).
#pragma once
typedef __INT8_TYPE__ int8_t;     typedef __UINT8_TYPE__ uint8_t;
typedef __INT16_TYPE__ int16_t;   typedef __UINT16_TYPE__ uint16_t;
typedef __INT32_TYPE__ int32_t;   typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;   typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;     typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t; typedef __UINTPTR_TYPE__ uintptr_t;
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
