// shflx: the host side of the CUDA runtime API, declarations only (nvcc includes cuda_runtime.h in
// every .cu). shflx compiles device code: host functions are parsed, never emitted, so their
// bodies and these declarations only need to type-check. Names, types and enumerator values follow
// the CUDA Runtime API reference (cuda_runtime_api.h, driver_types.h).
#pragma once
// nvcc's cuda_runtime.h brings the C library into every .cu (crt/common_functions.h includes
// string.h, time.h; math_functions.h math.h, stdlib.h): real files use EXIT_FAILURE, exit, memcpy,
// strlen without an include. Only where the host's C headers are usable (they need the
// compiler's stddef.h).
#if __has_include(<stddef.h>) && __has_include(<stdlib.h>)
#include <stdlib.h>
#include <string.h>
#include <time.h>
#endif
// The guards real headers define, which helpers test (cuda-samples' helper_cuda.h defines
// checkCudaErrors and getLastCudaError only under __DRIVER_TYPES_H__ / __CUDA_RUNTIME_H__).
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
typedef __SIZE_TYPE__ __shflx_size_t;
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorInitializationError = 3, cudaErrorInvalidDevice = 101, cudaErrorNotReady = 600,
                 cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1,
                             cudaStreamCaptureModeRelaxed = 2 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
                     cudaFuncCachePreferEqual = 3 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1,
                           cudaSharedMemBankSizeEightByte = 2 };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrClockRate = 13, cudaDevAttrMultiProcessorCount = 16,
                      cudaDevAttrIntegrated = 18, cudaDevAttrComputeMode = 20,
                      cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
                      cudaDevAttrCooperativeLaunch = 95 };
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
                       cudaComputeModeExclusiveProcess = 3 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
struct cudaDeviceProp {
  char name[256]; __shflx_size_t totalGlobalMem, sharedMemPerBlock; int regsPerBlock, warpSize;
  __shflx_size_t memPitch; int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  __shflx_size_t totalConstMem; int major, minor; __shflx_size_t textureAlignment; int deviceOverlap,
  multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode,
  concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, memoryClockRate, memoryBusWidth, l2CacheSize,
  maxThreadsPerMultiProcessor, unifiedAddressing, managedMemory, cooperativeLaunch,
  cooperativeMultiDeviceLaunch, concurrentManagedAccess, pageableMemoryAccess;
  __shflx_size_t sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
};
struct cudaFuncAttributes { __shflx_size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
                            int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion; };
#define cudaHostAllocDefault 0
#define cudaHostAllocMapped 2
#define cudaStreamNonBlocking 1
#define cudaEventDisableTiming 2
#define cudaMemAttachGlobal 1
#define cudaCpuDeviceId (-1)
__host__ cudaError_t cudaMalloc(void **, __shflx_size_t);
template <class T> __host__ inline cudaError_t cudaMalloc(T **p, __shflx_size_t n) { return cudaMalloc((void **)p, n); }
__host__ cudaError_t cudaMallocManaged(void **, __shflx_size_t, unsigned = cudaMemAttachGlobal);
template <class T> __host__ inline cudaError_t cudaMallocManaged(T **p, __shflx_size_t n, unsigned f = cudaMemAttachGlobal) {
  return cudaMallocManaged((void **)p, n, f); }
__host__ cudaError_t cudaMallocHost(void **, __shflx_size_t);
template <class T> __host__ inline cudaError_t cudaMallocHost(T **p, __shflx_size_t n) { return cudaMallocHost((void **)p, n); }
__host__ cudaError_t cudaHostAlloc(void **, __shflx_size_t, unsigned);
template <class T> __host__ inline cudaError_t cudaHostAlloc(T **p, __shflx_size_t n, unsigned f) {
  return cudaHostAlloc((void **)p, n, f); }
__host__ cudaError_t cudaMallocPitch(void **, __shflx_size_t *, __shflx_size_t, __shflx_size_t);
__host__ cudaError_t cudaFree(void *);
__host__ cudaError_t cudaFreeHost(void *);
__host__ cudaError_t cudaMemcpy(void *, const void *, __shflx_size_t, cudaMemcpyKind);
__host__ cudaError_t cudaMemcpyAsync(void *, const void *, __shflx_size_t, cudaMemcpyKind, cudaStream_t = 0);
__host__ cudaError_t cudaMemcpy2D(void *, __shflx_size_t, const void *, __shflx_size_t, __shflx_size_t,
                                  __shflx_size_t, cudaMemcpyKind);
__host__ cudaError_t cudaMemcpyToSymbol(const void *, const void *, __shflx_size_t, __shflx_size_t = 0,
                                        cudaMemcpyKind = cudaMemcpyHostToDevice);
template <class T> __host__ inline cudaError_t cudaMemcpyToSymbol(const T &s, const void *p, __shflx_size_t n,
    __shflx_size_t o = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice) { return cudaMemcpyToSymbol((const void *)&s, p, n, o, k); }
__host__ cudaError_t cudaMemcpyFromSymbol(void *, const void *, __shflx_size_t, __shflx_size_t = 0,
                                          cudaMemcpyKind = cudaMemcpyDeviceToHost);
template <class T> __host__ inline cudaError_t cudaMemcpyFromSymbol(void *p, const T &s, __shflx_size_t n,
    __shflx_size_t o = 0, cudaMemcpyKind k = cudaMemcpyDeviceToHost) { return cudaMemcpyFromSymbol(p, (const void *)&s, n, o, k); }
__host__ cudaError_t cudaMemcpyToSymbolAsync(const void *, const void *, __shflx_size_t, __shflx_size_t = 0,
                                             cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = 0);
template <class T> __host__ inline cudaError_t cudaMemcpyToSymbolAsync(const T &s, const void *p, __shflx_size_t n,
    __shflx_size_t o = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice, cudaStream_t st = 0) {
  return cudaMemcpyToSymbolAsync((const void *)&s, p, n, o, k, st); }
__host__ cudaError_t cudaMemcpyFromSymbolAsync(void *, const void *, __shflx_size_t, __shflx_size_t = 0,
                                               cudaMemcpyKind = cudaMemcpyDeviceToHost, cudaStream_t = 0);
template <class T> __host__ inline cudaError_t cudaMemcpyFromSymbolAsync(void *p, const T &s, __shflx_size_t n,
    __shflx_size_t o = 0, cudaMemcpyKind k = cudaMemcpyDeviceToHost, cudaStream_t st = 0) {
  return cudaMemcpyFromSymbolAsync(p, (const void *)&s, n, o, k, st); }
#define cudaHostRegisterDefault 0
#define cudaHostRegisterPortable 1
#define cudaHostRegisterMapped 2
#define cudaHostRegisterIoMemory 4
#define cudaHostRegisterReadOnly 8
__host__ cudaError_t cudaHostRegister(void *, __shflx_size_t, unsigned);
__host__ cudaError_t cudaHostUnregister(void *);
__host__ cudaError_t cudaHostGetDevicePointer(void **, void *, unsigned);
template <class T> __host__ inline cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned f) {
  return cudaHostGetDevicePointer((void **)d, h, f); }
__host__ cudaError_t cudaMemset(void *, int, __shflx_size_t);
__host__ cudaError_t cudaMemsetAsync(void *, int, __shflx_size_t, cudaStream_t = 0);
__host__ cudaError_t cudaMemPrefetchAsync(const void *, __shflx_size_t, int, cudaStream_t = 0);
__host__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaDeviceReset(void);
__host__ cudaError_t cudaGetLastError(void);
__host__ cudaError_t cudaPeekAtLastError(void);
__host__ const char *cudaGetErrorString(cudaError_t);
__host__ const char *cudaGetErrorName(cudaError_t);
__host__ cudaError_t cudaGetDeviceCount(int *);
__host__ cudaError_t cudaGetDevice(int *);
__host__ cudaError_t cudaSetDevice(int);
__host__ cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int);
__host__ cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr, int);
__host__ cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache);
__host__ cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig);
__host__ cudaError_t cudaDeviceCanAccessPeer(int *, int, int);
__host__ cudaError_t cudaDeviceEnablePeerAccess(int, unsigned);
__host__ cudaError_t cudaStreamCreate(cudaStream_t *);
__host__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *, unsigned);
__host__ cudaError_t cudaStreamDestroy(cudaStream_t);
__host__ cudaError_t cudaStreamSynchronize(cudaStream_t);
__host__ cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0);
__host__ cudaError_t cudaStreamBeginCapture(cudaStream_t, cudaStreamCaptureMode);
__host__ cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t *);
__host__ cudaError_t cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t, unsigned long long = 0);
__host__ cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
__host__ cudaError_t cudaGraphDestroy(cudaGraph_t);
__host__ cudaError_t cudaGraphExecDestroy(cudaGraphExec_t);
__host__ cudaError_t cudaEventCreate(cudaEvent_t *);
__host__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned);
__host__ cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t);
__host__ cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t);
__host__ cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *, const void *);
__host__ cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int);
template <class T> __host__ inline cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v) {
  return cudaFuncSetAttribute((const void *)f, a, v); }
__host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *, const void *, int, __shflx_size_t);
template <class T> __host__ inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T f, int b, __shflx_size_t s) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, (const void *)f, b, s); }
__host__ cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, __shflx_size_t, cudaStream_t);
__host__ cudaError_t cudaLaunchCooperativeKernel(const void *, dim3, dim3, void **, __shflx_size_t = 0, cudaStream_t = 0);
template <class T> __host__ inline cudaError_t cudaLaunchCooperativeKernel(T *f, dim3 g, dim3 b, void **a,
    __shflx_size_t s = 0, cudaStream_t st = 0) { return cudaLaunchCooperativeKernel((const void *)f, g, b, a, s, st); }
template <class T> __host__ inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
    __shflx_size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
__host__ cudaError_t cudaGetSymbolAddress(void **, const void *);
template <class T> __host__ inline cudaError_t cudaGetSymbolAddress(void **p, const T &s) { return cudaGetSymbolAddress(p, (const void *)&s); }
__host__ cudaError_t cudaGetSymbolSize(__shflx_size_t *, const void *);
template <class T> __host__ inline cudaError_t cudaGetSymbolSize(__shflx_size_t *n, const T &s) { return cudaGetSymbolSize(n, (const void *)&s); }
#define CUDART_CB
#define cudaHostAllocPortable 1
#define cudaHostAllocWriteCombined 4
#define cudaStreamDefault 0
#define cudaEventDefault 0
#define cudaEventBlockingSync 1
#define cudaMemAttachHost 2
// Unified memory hints (CUDA 12: the cudaMemLocation forms are cuda_runtime.h's templates over the
// _v2 functions; CUDA 13 names them without _v2)
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,
                        cudaMemAdviseSetPreferredLocation = 3, cudaMemAdviseUnsetPreferredLocation = 4,
                        cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6 };
enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1, cudaMemLocationTypeHost = 2,
                           cudaMemLocationTypeHostNuma = 3, cudaMemLocationTypeHostNumaCurrent = 4 };
struct cudaMemLocation { enum cudaMemLocationType type; int id; };
__host__ cudaError_t cudaMemAdvise(const void *, __shflx_size_t, enum cudaMemoryAdvise, int);
__host__ cudaError_t cudaMemAdvise_v2(const void *, __shflx_size_t, enum cudaMemoryAdvise, struct cudaMemLocation);
__host__ cudaError_t cudaMemPrefetchAsync_v2(const void *, __shflx_size_t, struct cudaMemLocation, unsigned, cudaStream_t = 0);
template <class T> __host__ inline cudaError_t cudaMemAdvise(T *p, __shflx_size_t n, enum cudaMemoryAdvise a, struct cudaMemLocation l) {
  return cudaMemAdvise_v2((const void *)p, n, a, l); }
template <class T> __host__ inline cudaError_t cudaMemPrefetchAsync(T *p, __shflx_size_t n, struct cudaMemLocation l,
    unsigned f, cudaStream_t s = 0) { return cudaMemPrefetchAsync_v2((const void *)p, n, l, f, s); }
// 3-D copies and CUDA graphs (driver_types.h, cuda_runtime_api.h; the CUDA 11 forms of
// cudaGraphInstantiate and cudaGraphExecUpdate are cuda_runtime.h's inline overloads)
typedef struct cudaArray *cudaArray_t;
struct cudaExtent { __shflx_size_t width, height, depth; };
struct cudaPos { __shflx_size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; __shflx_size_t pitch, xsize, ysize; };
struct cudaMemcpy3DParms { cudaArray_t srcArray; struct cudaPos srcPos; struct cudaPitchedPtr srcPtr;
                           cudaArray_t dstArray; struct cudaPos dstPos; struct cudaPitchedPtr dstPtr;
                           struct cudaExtent extent; enum cudaMemcpyKind kind; };
__host__ inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, __shflx_size_t p, __shflx_size_t xsz, __shflx_size_t ysz) {
  return cudaPitchedPtr{d, p, xsz, ysz}; }
__host__ inline struct cudaPos make_cudaPos(__shflx_size_t x, __shflx_size_t y, __shflx_size_t z) { return cudaPos{x, y, z}; }
__host__ inline struct cudaExtent make_cudaExtent(__shflx_size_t w, __shflx_size_t h, __shflx_size_t d) {
  return cudaExtent{w, h, d}; }
__host__ cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *);
__host__ cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *, cudaStream_t = 0);
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef void (*cudaHostFn_t)(void *);
struct cudaKernelNodeParams { void *func; dim3 gridDim, blockDim; unsigned sharedMemBytes; void **kernelParams, **extra; };
struct cudaMemsetParams { void *dst; __shflx_size_t pitch; unsigned value, elementSize; __shflx_size_t width, height; };
struct cudaHostNodeParams { cudaHostFn_t fn; void *userData; };
enum cudaGraphExecUpdateResult { cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1,
    cudaGraphExecUpdateErrorTopologyChanged = 2, cudaGraphExecUpdateErrorNodeTypeChanged = 3,
    cudaGraphExecUpdateErrorFunctionChanged = 4, cudaGraphExecUpdateErrorParametersChanged = 5,
    cudaGraphExecUpdateErrorNotSupported = 6, cudaGraphExecUpdateErrorUnsupportedFunctionChange = 7,
    cudaGraphExecUpdateErrorAttributesChanged = 8 };
typedef struct cudaGraphExecUpdateResultInfo_st { enum cudaGraphExecUpdateResult result; cudaGraphNode_t errorNode,
    errorFromNode; } cudaGraphExecUpdateResultInfo;
enum cudaGraphInstantiateFlags { cudaGraphInstantiateFlagAutoFreeOnLaunch = 1, cudaGraphInstantiateFlagUpload = 2,
                                 cudaGraphInstantiateFlagDeviceLaunch = 4, cudaGraphInstantiateFlagUseNodePriority = 8 };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1,
                               cudaStreamCaptureStatusInvalidated = 2 };
__host__ cudaError_t cudaGraphCreate(cudaGraph_t *, unsigned);
__host__ cudaError_t cudaGraphClone(cudaGraph_t *, cudaGraph_t);
__host__ cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, __shflx_size_t,
                                            const struct cudaKernelNodeParams *);
__host__ cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, __shflx_size_t,
                                            const struct cudaMemcpy3DParms *);
__host__ cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, __shflx_size_t,
                                            const struct cudaMemsetParams *);
__host__ cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, __shflx_size_t,
                                          const struct cudaHostNodeParams *);
__host__ cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, __shflx_size_t);
__host__ cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *, cudaGraph_t, const cudaGraphNode_t *, __shflx_size_t,
                                                cudaGraph_t);
__host__ cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *, __shflx_size_t);
__host__ cudaError_t cudaGraphGetNodes(cudaGraph_t, cudaGraphNode_t *, __shflx_size_t *);
__host__ cudaError_t cudaGraphGetRootNodes(cudaGraph_t, cudaGraphNode_t *, __shflx_size_t *);
__host__ cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *, cudaGraphNode_t, cudaGraph_t);
__host__ cudaError_t cudaGraphDestroyNode(cudaGraphNode_t);
__host__ cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t, struct cudaKernelNodeParams *);
__host__ cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t, const struct cudaKernelNodeParams *);
__host__ cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t, cudaGraphNode_t, const struct cudaKernelNodeParams *);
__host__ cudaError_t cudaGraphExecUpdate(cudaGraphExec_t, cudaGraph_t, cudaGraphExecUpdateResultInfo *);
__host__ inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t *error_node,
                                                enum cudaGraphExecUpdateResult *result) {
  cudaGraphExecUpdateResultInfo info;
  cudaError_t status = cudaGraphExecUpdate(e, g, &info);
  if (error_node) *error_node = info.errorNode;
  if (result) *result = info.result;
  return status; }
__host__ cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *, cudaGraph_t, unsigned long long = 0);
__host__ inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *, char *,
                                                 __shflx_size_t) { return cudaGraphInstantiate(e, g, 0); }
__host__ cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t);
__host__ cudaError_t cudaStreamIsCapturing(cudaStream_t, enum cudaStreamCaptureStatus *);
__host__ cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void *);
__host__ cudaError_t cudaDriverGetVersion(int *);
__host__ cudaError_t cudaRuntimeGetVersion(int *);
// `kernel<<<grid, block, shmem, stream>>>(...)` calls one of these (clang's launch ABI: HIP mode for
// AMD targets, CUDA mode for NVIDIA ones)
extern "C" __host__ int hipConfigureCall(dim3 gridDim, dim3 blockDim, __shflx_size_t sharedMem = 0,
                                          cudaStream_t stream = 0);
extern "C" __host__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, __shflx_size_t sharedMem = 0,
                                                         cudaStream_t stream = 0);
extern "C" __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, __shflx_size_t sharedMem = 0,
                                                  cudaStream_t stream = 0);
