// shflx stub: profiler control is host-only (declarations; host code is parsed, never emitted)
#pragma once
__host__ cudaError_t cudaProfilerStart(void);
__host__ cudaError_t cudaProfilerStop(void);
