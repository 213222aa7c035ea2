// Fixed-width integer types: <stdint.h> (clang's serves where the C library's is not installed).
#pragma once
// The fixed-width names are <stdint.h>'s own (the C library's, else clang's), declared once: a file's
// `typedef unsigned long long uint64_t;` then meets one declaration to read as nvcc reads it
// (frontend/own_typedefs.py).
#include <stdint.h>
typedef __SIZE_TYPE__ size_t;     typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t; typedef __UINTPTR_TYPE__ uintptr_t;
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
