// shflx: the host side of the CUDA runtime API, declarations only (nvcc includes cuda_runtime.h in
// every .cu). shflx compiles device code: host functions are parsed, never emitted, so their
// bodies and these declarations only need to type-check. Names, types and enumerator values follow
// the CUDA Runtime API reference (cuda_runtime_api.h, driver_types.h).
#pragma once
// nvcc's cuda_runtime.h brings the C library into every .cu (crt/common_functions.h includes
// string.h, time.h; math_functions.h math.h, stdlib.h): real files use EXIT_FAILURE, exit, memcpy,
// strlen without an include. Only where the host's C headers are usable (they need the
// compiler's stddef.h).
// math_functions.h also brings <math.h>, <cmath> and <cstdlib> (C++): host functions call expf,
// fabs, isfinite, abs as CUDA's __host__ __device__ math functions, and std::abs, std::exp reach
// the device overloads the layer declared above (the C++ headers' `using ::abs` takes in every
// declaration of the name made before them).
#if __has_include(<stddef.h>) && __has_include(<stdlib.h>)
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#if __has_include(<cmath>)
#include <cmath>
#include <cstdlib>
#endif
#endif
// cuda_runtime.h includes library_types.h (cudaDataType: CUDA_R_32F, ...)
#include "stubs/library_types.h"
// crt/common_functions.h also brings <new>: device code constructs objects in place (CUB's
// block_load.cuh does), for which CUDA declares placement new for the device too.
#if __has_include(<new>)
#include <new>
#endif
__device__ inline void *operator new(__SIZE_TYPE__, void *p) noexcept { return p; }
__device__ inline void *operator new[](__SIZE_TYPE__, void *p) noexcept { return p; }
__device__ inline void operator delete(void *, void *) noexcept {}
__device__ inline void operator delete[](void *, void *) noexcept {}
// The guards real headers define, which helpers test (cuda-samples' helper_cuda.h defines
// checkCudaErrors and getLastCudaError only under __DRIVER_TYPES_H__ / __CUDA_RUNTIME_H__).
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
typedef __SIZE_TYPE__ __shflx_size_t;
// Enumerators as CUDA 12.9's driver_types.h numbers them (nvidia-cuda-runtime-cu12).
enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4, cudaErrorProfilerDisabled = 5, cudaErrorProfilerNotInitialized = 6,
  cudaErrorProfilerAlreadyStarted = 7, cudaErrorProfilerAlreadyStopped = 8, cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12, cudaErrorInvalidSymbol = 13, cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidTexture = 18, cudaErrorInvalidTextureBinding = 19,
  cudaErrorInvalidChannelDescriptor = 20, cudaErrorInvalidMemcpyDirection = 21, cudaErrorAddressOfConstant = 22,
  cudaErrorTextureFetchFailed = 23, cudaErrorTextureNotBound = 24, cudaErrorSynchronizationError = 25,
  cudaErrorInvalidFilterSetting = 26, cudaErrorInvalidNormSetting = 27, cudaErrorMixedDeviceExecution = 28,
  cudaErrorNotYetImplemented = 31, cudaErrorMemoryValueTooLarge = 32, cudaErrorStubLibrary = 34,
  cudaErrorInsufficientDriver = 35, cudaErrorCallRequiresNewerDriver = 36, cudaErrorInvalidSurface = 37,
  cudaErrorDuplicateVariableName = 43, cudaErrorDuplicateTextureName = 44, cudaErrorDuplicateSurfaceName = 45,
  cudaErrorDevicesUnavailable = 46, cudaErrorIncompatibleDriverContext = 49, cudaErrorMissingConfiguration = 52,
  cudaErrorPriorLaunchFailure = 53, cudaErrorLaunchMaxDepthExceeded = 65, cudaErrorLaunchFileScopedTex = 66,
  cudaErrorLaunchFileScopedSurf = 67, cudaErrorSyncDepthExceeded = 68, cudaErrorLaunchPendingCountExceeded = 69,
  cudaErrorInvalidDeviceFunction = 98, cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101,
  cudaErrorDeviceNotLicensed = 102, cudaErrorSoftwareValidityNotEstablished = 103, cudaErrorStartupFailure =
  127, cudaErrorInvalidKernelImage = 200, cudaErrorDeviceUninitialized = 201, cudaErrorMapBufferObjectFailed =
  205, cudaErrorUnmapBufferObjectFailed = 206, cudaErrorArrayIsMapped = 207, cudaErrorAlreadyMapped = 208,
  cudaErrorNoKernelImageForDevice = 209, cudaErrorAlreadyAcquired = 210, cudaErrorNotMapped = 211,
  cudaErrorNotMappedAsArray = 212, cudaErrorNotMappedAsPointer = 213, cudaErrorECCUncorrectable = 214,
  cudaErrorUnsupportedLimit = 215, cudaErrorDeviceAlreadyInUse = 216, cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidPtx = 218, cudaErrorInvalidGraphicsContext = 219, cudaErrorNvlinkUncorrectable = 220,
  cudaErrorJitCompilerNotFound = 221, cudaErrorUnsupportedPtxVersion = 222, cudaErrorJitCompilationDisabled =
  223, cudaErrorUnsupportedExecAffinity = 224, cudaErrorUnsupportedDevSideSync = 225, cudaErrorContained = 226,
  cudaErrorInvalidSource = 300, cudaErrorFileNotFound = 301, cudaErrorSharedObjectSymbolNotFound = 302,
  cudaErrorSharedObjectInitFailed = 303, cudaErrorOperatingSystem = 304, cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401, cudaErrorLossyQuery = 402, cudaErrorSymbolNotFound = 500, cudaErrorNotReady =
  600, cudaErrorIllegalAddress = 700, cudaErrorLaunchOutOfResources = 701, cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchIncompatibleTexturing = 703, cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705, cudaErrorSetOnActiveProcess = 708, cudaErrorContextIsDestroyed = 709,
  cudaErrorAssert = 710, cudaErrorTooManyPeers = 711, cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713, cudaErrorHardwareStackError = 714, cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716, cudaErrorInvalidAddressSpace = 717, cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719, cudaErrorCooperativeLaunchTooLarge = 720, cudaErrorTensorMemoryLeak = 721,
  cudaErrorNotPermitted = 800, cudaErrorNotSupported = 801, cudaErrorSystemNotReady = 802,
  cudaErrorSystemDriverMismatch = 803, cudaErrorCompatNotSupportedOnDevice = 804, cudaErrorMpsConnectionFailed =
  805, cudaErrorMpsRpcFailure = 806, cudaErrorMpsServerNotReady = 807, cudaErrorMpsMaxClientsReached = 808,
  cudaErrorMpsMaxConnectionsReached = 809, cudaErrorMpsClientTerminated = 810, cudaErrorCdpNotSupported = 811,
  cudaErrorCdpVersionMismatch = 812, cudaErrorStreamCaptureUnsupported = 900, cudaErrorStreamCaptureInvalidated
  = 901, cudaErrorStreamCaptureMerge = 902, cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureUnjoined = 904, cudaErrorStreamCaptureIsolation = 905, cudaErrorStreamCaptureImplicit =
  906, cudaErrorCapturedEvent = 907, cudaErrorStreamCaptureWrongThread = 908, cudaErrorTimeout = 909,
  cudaErrorGraphExecUpdateFailure = 910, cudaErrorExternalDevice = 911, cudaErrorInvalidClusterSize = 912,
  cudaErrorFunctionNotLoaded = 913, cudaErrorInvalidResourceType = 914, cudaErrorInvalidResourceConfiguration =
  915, cudaErrorUnknown = 999, cudaErrorApiFailureBase = 10000
};
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
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6, cudaDevAttrMaxGridDimZ =
  7, cudaDevAttrMaxSharedMemoryPerBlock = 8, cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11, cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15, cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17, cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20, cudaDevAttrMaxTexture1DWidth = 21, cudaDevAttrMaxTexture2DWidth = 22,
  cudaDevAttrMaxTexture2DHeight = 23, cudaDevAttrMaxTexture3DWidth = 24, cudaDevAttrMaxTexture3DHeight = 25,
  cudaDevAttrMaxTexture3DDepth = 26, cudaDevAttrMaxTexture2DLayeredWidth = 27,
  cudaDevAttrMaxTexture2DLayeredHeight = 28, cudaDevAttrMaxTexture2DLayeredLayers = 29,
  cudaDevAttrSurfaceAlignment = 30, cudaDevAttrConcurrentKernels = 31, cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33, cudaDevAttrPciDeviceId = 34, cudaDevAttrTccDriver = 35, cudaDevAttrMemoryClockRate =
  36, cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38, cudaDevAttrMaxThreadsPerMultiProcessor
  = 39, cudaDevAttrAsyncEngineCount = 40, cudaDevAttrUnifiedAddressing = 41, cudaDevAttrMaxTexture1DLayeredWidth
  = 42, cudaDevAttrMaxTexture1DLayeredLayers = 43, cudaDevAttrMaxTexture2DGatherWidth = 45,
  cudaDevAttrMaxTexture2DGatherHeight = 46, cudaDevAttrMaxTexture3DWidthAlt = 47,
  cudaDevAttrMaxTexture3DHeightAlt = 48, cudaDevAttrMaxTexture3DDepthAlt = 49, cudaDevAttrPciDomainId = 50,
  cudaDevAttrTexturePitchAlignment = 51, cudaDevAttrMaxTextureCubemapWidth = 52,
  cudaDevAttrMaxTextureCubemapLayeredWidth = 53, cudaDevAttrMaxTextureCubemapLayeredLayers = 54,
  cudaDevAttrMaxSurface1DWidth = 55, cudaDevAttrMaxSurface2DWidth = 56, cudaDevAttrMaxSurface2DHeight = 57,
  cudaDevAttrMaxSurface3DWidth = 58, cudaDevAttrMaxSurface3DHeight = 59, cudaDevAttrMaxSurface3DDepth = 60,
  cudaDevAttrMaxSurface1DLayeredWidth = 61, cudaDevAttrMaxSurface1DLayeredLayers = 62,
  cudaDevAttrMaxSurface2DLayeredWidth = 63, cudaDevAttrMaxSurface2DLayeredHeight = 64,
  cudaDevAttrMaxSurface2DLayeredLayers = 65, cudaDevAttrMaxSurfaceCubemapWidth = 66,
  cudaDevAttrMaxSurfaceCubemapLayeredWidth = 67, cudaDevAttrMaxSurfaceCubemapLayeredLayers = 68,
  cudaDevAttrMaxTexture1DLinearWidth = 69, cudaDevAttrMaxTexture2DLinearWidth = 70,
  cudaDevAttrMaxTexture2DLinearHeight = 71, cudaDevAttrMaxTexture2DLinearPitch = 72,
  cudaDevAttrMaxTexture2DMipmappedWidth = 73, cudaDevAttrMaxTexture2DMipmappedHeight = 74,
  cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxTexture1DMipmappedWidth = 77, cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79, cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81, cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83, cudaDevAttrIsMultiGpuBoard = 84, cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86, cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88, cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90, cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrReserved92 = 92, cudaDevAttrReserved93 = 93, cudaDevAttrReserved94 = 94,
  cudaDevAttrCooperativeLaunch = 95, cudaDevAttrCooperativeMultiDeviceLaunch = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrCanFlushRemoteWrites = 98,
  cudaDevAttrHostRegisterSupported = 99, cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108, cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111, cudaDevAttrSparseCudaArraySupported = 112,
  cudaDevAttrHostRegisterReadOnlySupported = 113, cudaDevAttrTimelineSemaphoreInteropSupported = 114,
  cudaDevAttrMaxTimelineSemaphoreInteropSupported = 114, cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrGPUDirectRDMASupported = 116, cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering = 118, cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
  cudaDevAttrClusterLaunch = 120, cudaDevAttrDeferredMappingCudaArraySupported = 121, cudaDevAttrReserved122 =
  122, cudaDevAttrReserved123 = 123, cudaDevAttrReserved124 = 124, cudaDevAttrIpcEventSupport = 125,
  cudaDevAttrMemSyncDomainCount = 126, cudaDevAttrReserved127 = 127, cudaDevAttrReserved128 = 128,
  cudaDevAttrReserved129 = 129, cudaDevAttrNumaConfig = 130, cudaDevAttrNumaId = 131, cudaDevAttrReserved132 =
  132, cudaDevAttrMpsEnabled = 133, cudaDevAttrHostNumaId = 134, cudaDevAttrD3D12CigSupported = 135,
  cudaDevAttrVulkanCigSupported = 138, cudaDevAttrGpuPciDeviceId = 139, cudaDevAttrGpuPciSubsystemId = 140,
  cudaDevAttrReserved141 = 141, cudaDevAttrHostNumaMemoryPoolsSupported = 142,
  cudaDevAttrHostNumaMultinodeIpcSupported = 143, cudaDevAttrMax
};
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
                       cudaComputeModeExclusiveProcess = 3 };
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10, cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12, cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14, cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax
};
#ifndef CU_UUID_HAS_BEEN_DEFINED          // the guard cuda.h and driver_types.h share
#define CU_UUID_HAS_BEEN_DEFINED
struct CUuuid_st { char bytes[16]; };
typedef struct CUuuid_st CUuuid;
#endif
typedef struct CUuuid_st cudaUUID_t;
struct cudaDeviceProp {   // every field of CUDA 12.9's driver_types.h, in its order
  char name[256]; cudaUUID_t uuid; char luid[8]; unsigned int luidDeviceNodeMask; __shflx_size_t totalGlobalMem;
  __shflx_size_t sharedMemPerBlock; int regsPerBlock; int warpSize; __shflx_size_t memPitch; int maxThreadsPerBlock;
  int maxThreadsDim[3]; int maxGridSize[3]; int clockRate; __shflx_size_t totalConstMem; int major; int minor;
  __shflx_size_t textureAlignment; __shflx_size_t texturePitchAlignment; int deviceOverlap; int multiProcessorCount;
  int kernelExecTimeoutEnabled; int integrated; int canMapHostMemory; int computeMode; int maxTexture1D;
  int maxTexture1DMipmap; int maxTexture1DLinear; int maxTexture2D[2]; int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3]; int maxTexture2DGather[2]; int maxTexture3D[3]; int maxTexture3DAlt[3];
  int maxTextureCubemap; int maxTexture1DLayered[2]; int maxTexture2DLayered[3]; int maxTextureCubemapLayered[2];
  int maxSurface1D; int maxSurface2D[2]; int maxSurface3D[3]; int maxSurface1DLayered[2]; int maxSurface2DLayered[3];
  int maxSurfaceCubemap; int maxSurfaceCubemapLayered[2]; __shflx_size_t surfaceAlignment; int concurrentKernels;
  int ECCEnabled; int pciBusID; int pciDeviceID; int pciDomainID; int tccDriver; int asyncEngineCount;
  int unifiedAddressing; int memoryClockRate; int memoryBusWidth; int l2CacheSize; int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor; int streamPrioritiesSupported; int globalL1CacheSupported;
  int localL1CacheSupported; __shflx_size_t sharedMemPerMultiprocessor; int regsPerMultiprocessor; int managedMemory;
  int isMultiGpuBoard; int multiGpuBoardGroupID; int hostNativeAtomicSupported; int singleToDoublePrecisionPerfRatio;
  int pageableMemoryAccess; int concurrentManagedAccess; int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem; int cooperativeLaunch; int cooperativeMultiDeviceLaunch;
  __shflx_size_t sharedMemPerBlockOptin; int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost; int maxBlocksPerMultiProcessor; int accessPolicyMaxWindowSize;
  __shflx_size_t reservedSharedMemPerBlock; int hostRegisterSupported; int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported; int timelineSemaphoreInteropSupported; int memoryPoolsSupported;
  int gpuDirectRDMASupported; unsigned int gpuDirectRDMAFlushWritesOptions; int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes; int deferredMappingCudaArraySupported; int ipcEventSupported;
  int clusterLaunch; int unifiedFunctionPointers; int reserved[63];
};
struct cudaFuncAttributes { __shflx_size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
                            int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion; };
#define cudaHostAllocDefault 0
#define cudaHostAllocMapped 2
// cudaSetDeviceFlags's flags (driver_types.h)
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
__host__ cudaError_t cudaSetDeviceFlags(unsigned);
__host__ cudaError_t cudaGetDeviceFlags(unsigned *);
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
// More of cuda_runtime.h's C++ API: templates over the kernel's type that call the C functions
// (`T *` where CUDA writes `const T *`: clang cannot deduce a function type through the const)
__host__ cudaError_t cudaFuncSetCacheConfig(const void *, enum cudaFuncCache);
__host__ cudaError_t cudaFuncGetName(const char **, const void *);
__host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *, const void *, int, __shflx_size_t, unsigned);
__host__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(__shflx_size_t *, const void *, int, int);
template <class T> __host__ inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
  return cudaFuncGetAttributes(attr, (const void *)entry); }
template <class T> __host__ inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache c) {
  return cudaFuncSetCacheConfig((const void *)func, c); }
template <class T> __host__ inline cudaError_t cudaFuncGetName(const char **name, T *func) {
  return cudaFuncGetName(name, (const void *)func); }
template <class T> __host__ inline cudaError_t cudaLaunchKernel(T *func, dim3 g, dim3 b, void **args,
    __shflx_size_t sharedMem = 0, cudaStream_t stream = 0) { return cudaLaunchKernel((const void *)func, g, b, args, sharedMem, stream); }
template <class T> __host__ inline cudaError_t cudaMallocPitch(T **p, __shflx_size_t *pitch, __shflx_size_t w, __shflx_size_t h) {
  return cudaMallocPitch((void **)p, pitch, w, h); }
template <class T> __host__ inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, T f, int b,
    __shflx_size_t s, unsigned flags) { return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, (const void *)f, b, s, flags); }
template <class T> __host__ inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(__shflx_size_t *s, T f, int n, int b) {
  return cudaOccupancyAvailableDynamicSMemPerBlock(s, (const void *)f, n, b); }
template <class T> __host__ inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
    T func, __shflx_size_t dynamicSMemSize = 0, int blockSizeLimit = 0, unsigned flags = 0);
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

// ------------------------------------------------------------------ what CCCL's host code calls
// (CUB's dispatch and allocator, Thrust's CUDA backend): declarations as cuda_runtime_api.h and
// driver_types.h of CUDA 12.9 give them; cudaLaunchKernelEx is cuda_runtime.h's template.
#define CUDARTAPI                       // the calling convention of the runtime API: none on Linux
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1, cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3, cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5, cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7, cudaLaunchAttributePriority = 8, cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10, cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12, cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14
};
typedef enum cudaLaunchAttributeID cudaLaunchAttributeID;
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct { unsigned int x, y, z; } clusterDim;
  int programmaticStreamSerializationAllowed;
  struct { cudaEvent_t event; int flags; int triggerAtBlockStart; } programmaticEvent;
  int priority;
  struct { unsigned int x, y, z; } preferredClusterDim;
  struct { cudaEvent_t event; int flags; } launchCompletionEvent;
  unsigned int sharedMemCarveout;
};
typedef union cudaLaunchAttributeValue cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim, blockDim;
  __shflx_size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;
__host__ cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *, const void *, void **);
template <class... ExpTypes, class... ActTypes>
__host__ inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                                               ActTypes &&...args) {
  void *pArgs[] = {(void *)&args..., nullptr};
  return cudaLaunchKernelExC(config, (const void *)kernel, pArgs); }
__host__ cudaError_t cudaMemGetInfo(__shflx_size_t *, __shflx_size_t *);
__host__ cudaError_t cudaEventQuery(cudaEvent_t);
__host__ cudaError_t cudaStreamQuery(cudaStream_t);
// stream priorities, flags and device (CUDA Runtime API, "Stream Management"): libcu++'s
// cuda::stream_ref calls cudaStreamGetPriority (cuCollections)
__host__ cudaError_t cudaStreamGetPriority(cudaStream_t, int *);
__host__ cudaError_t cudaStreamGetFlags(cudaStream_t, unsigned *);
__host__ cudaError_t cudaStreamGetDevice(cudaStream_t, int *);
__host__ cudaError_t cudaStreamCreateWithPriority(cudaStream_t *, unsigned, int);
__host__ cudaError_t cudaDeviceGetStreamPriorityRange(int *, int *);
__host__ cudaError_t cudaMallocAsync(void **, __shflx_size_t, cudaStream_t);
template <class T> __host__ inline cudaError_t cudaMallocAsync(T **p, __shflx_size_t n, cudaStream_t s) {
  return cudaMallocAsync((void **)p, n, s); }
__host__ cudaError_t cudaFreeAsync(void *, cudaStream_t);
// Texture objects (driver_types.h, texture_types.h, channel_descriptor.h; the fields CUB's
// TexObjInputIterator sets): the host side only. Reading a texture in device code (tex1Dfetch) is
// not provided on AMD, which names it where a kernel does.
typedef unsigned long long cudaTextureObject_t;
typedef struct cudaArray *cudaArray_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
enum cudaChannelFormatKind { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1,
                             cudaChannelFormatKindFloat = 2, cudaChannelFormatKindNone = 3 };
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2,
                        cudaResourceTypePitch2D = 3 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2,
                              cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
struct cudaChannelFormatDesc { int x, y, z, w; enum cudaChannelFormatKind f; };
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; __shflx_size_t sizeInBytes; } linear;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; __shflx_size_t width, height, pitchInBytes; } pitch2D;
  } res;
};
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization, seamlessCubemap;
};
struct cudaResourceViewDesc;
__host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(int, int, int, int, enum cudaChannelFormatKind);
template <class T> __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc();
__host__ cudaError_t cudaCreateTextureObject(cudaTextureObject_t *, const struct cudaResourceDesc *,
                                             const struct cudaTextureDesc *, const struct cudaResourceViewDesc *);
__host__ cudaError_t cudaDestroyTextureObject(cudaTextureObject_t);
// Every texture and surface function of texture_indirect_functions.h / surface_indirect_functions.h
// (the value-returning and the pointer forms, any coordinates): named where device code calls one.
typedef unsigned long long cudaSurfaceObject_t;
#define __SHFLX_TEX(NAME)                                                                          \
  template <class T, class... A> __device__ T NAME(cudaTextureObject_t, A...)                      \
      __shflx_unsupported(#NAME " (texture reads are not provided by the CUDA layer for AMD)");    \
  template <class T, class... A> __device__ void NAME(T *, cudaTextureObject_t, A...)              \
      __shflx_unsupported(#NAME " (texture reads are not provided by the CUDA layer for AMD)");
__SHFLX_TEX(tex1Dfetch) __SHFLX_TEX(tex1D) __SHFLX_TEX(tex2D) __SHFLX_TEX(tex3D) __SHFLX_TEX(tex1DLayered)
__SHFLX_TEX(tex2DLayered) __SHFLX_TEX(texCubemap) __SHFLX_TEX(texCubemapLayered) __SHFLX_TEX(tex2Dgather)
__SHFLX_TEX(tex1DLod) __SHFLX_TEX(tex2DLod) __SHFLX_TEX(tex3DLod) __SHFLX_TEX(tex1DLayeredLod)
__SHFLX_TEX(tex2DLayeredLod) __SHFLX_TEX(texCubemapLod) __SHFLX_TEX(texCubemapLayeredLod) __SHFLX_TEX(tex1DGrad)
__SHFLX_TEX(tex2DGrad) __SHFLX_TEX(tex3DGrad) __SHFLX_TEX(tex1DLayeredGrad) __SHFLX_TEX(tex2DLayeredGrad)
__SHFLX_TEX(texCubemapGrad) __SHFLX_TEX(texCubemapLayeredGrad)
#undef __SHFLX_TEX
#define __SHFLX_SURF(NAME)                                                                         \
  template <class T, class... A> __device__ void NAME##write(T, cudaSurfaceObject_t, A...)         \
      __shflx_unsupported(#NAME "write (surfaces are not provided by the CUDA layer for AMD)");    \
  template <class T, class... A> __device__ T NAME##read(cudaSurfaceObject_t, A...)                \
      __shflx_unsupported(#NAME "read (surfaces are not provided by the CUDA layer for AMD)");     \
  template <class T, class... A> __device__ void NAME##read(T *, cudaSurfaceObject_t, A...)        \
      __shflx_unsupported(#NAME "read (surfaces are not provided by the CUDA layer for AMD)");
__SHFLX_SURF(surf1D) __SHFLX_SURF(surf2D) __SHFLX_SURF(surf3D) __SHFLX_SURF(surf1DLayered) __SHFLX_SURF(surf2DLayered)
__SHFLX_SURF(surfCubemap) __SHFLX_SURF(surfCubemapLayered)
#undef __SHFLX_SURF
