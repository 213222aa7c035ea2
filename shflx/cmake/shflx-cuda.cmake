# CMake toolchain file: a project's CUDA language (`project(... LANGUAGES CUDA)`, .cu sources) built
# for AMD GPUs by shflx. Print its path with `shflx launch --cmake-toolchain`; use it as
#   cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=<that path> -DCMAKE_CUDA_COMPILER=clang++ \
#         -DSHFLX_CUDA_ARCHITECTURES="gfx90a;gfx942"
#
# CMake's own CUDA support identifies the compiler by compiling CMakeCUDACompilerId.cu and then
# needs NVIDIA's toolkit (nvcc, libdevice, libcudart) for either compiler it knows (NVIDIA, Clang),
# and reads CMAKE_CUDA_ARCHITECTURES as sm numbers. None of that exists for an AMD build, so this
# file answers what identification would have found and gives CMake the rules it runs:
#   - CMAKE_CUDA_COMPILER is a HIP clang (the host half of each .cu and the link);
#   - each .cu compiles through `shflx launch --` (device code lowered by shflx, the CUDA runtime
#     API mapped onto the HIP runtime for host code, the code objects embedded in the object);
#   - executables and shared libraries link against the HIP runtime (clang's --hip-link);
#   - the AMD targets are SHFLX_CUDA_ARCHITECTURES (CMAKE_CUDA_ARCHITECTURES is OFF: CMake accepts
#     only NVIDIA sm numbers there, and a project's own sm numbers are ignored).
# Identification is skipped, CMake's compiler check (CMakeCUDACompilerABI.cu built and linked by
# these rules) is not.

get_property(_shflx_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
if(NOT CMAKE_CUDA_COMPILER)
  find_program(CMAKE_CUDA_COMPILER NAMES clang++ amdclang++ PATHS /opt/rocm/llvm/bin
               DOC "the HIP clang that compiles the host half of each .cu and links")
endif()
if(NOT CMAKE_CUDA_COMPILER AND NOT _shflx_in_try_compile)
  message(FATAL_ERROR "shflx: no HIP clang found; set CMAKE_CUDA_COMPILER to one (clang++ with HIP headers)")
endif()
set(SHFLX_CUDA_ARCHITECTURES "gfx90a" CACHE STRING "AMD targets of the CUDA code (gfx90a;gfx942;...)")
if(NOT SHFLX)
  find_program(SHFLX_PROGRAM shflx DOC "the shflx command")
  set(SHFLX "${SHFLX_PROGRAM}")
endif()
set(SHFLX "${SHFLX}" CACHE STRING "the shflx command (a list: python;-m;shflx also works)")
if(NOT SHFLX AND NOT _shflx_in_try_compile)
  message(FATAL_ERROR "shflx: the shflx command is not on PATH; set SHFLX to it")
endif()

# what identification would have found
set(CMAKE_CUDA_COMPILER_ID_RUN TRUE)
set(CMAKE_CUDA_COMPILER_ID "ShflxHIP")
set(CMAKE_CUDA_COMPILER_FRONTEND_VARIANT "GNU")
set(CMAKE_CUDA_ARCHITECTURES OFF CACHE STRING "unused for AMD: see SHFLX_CUDA_ARCHITECTURES")
# every compile and link of the CUDA language, try_compile projects included
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SHFLX SHFLX_CUDA_ARCHITECTURES CMAKE_CUDA_ARCHITECTURES)

string(REPLACE ";" "," _shflx_targets "${SHFLX_CUDA_ARCHITECTURES}")
string(REPLACE ";" " " _shflx_command "${SHFLX}")
set(CMAKE_CUDA_COMPILE_OBJECT "${_shflx_command} launch -- <CMAKE_CUDA_COMPILER> <DEFINES> <INCLUDES> <FLAGS> --offload-arch=${_shflx_targets} -x hip <CUDA_COMPILE_MODE> <SOURCE> -o <OBJECT>")
# what CMake's compiler modules set for a CUDA compiler (Compiler/Clang-CUDA.cmake's words)
set(_CMAKE_CUDA_WHOLE_FLAG "-c")
set(_CMAKE_COMPILE_AS_CUDA_FLAG "-x hip")
set(CMAKE_CUDA_LINK_EXECUTABLE "<CMAKE_CUDA_COMPILER> <FLAGS> <CMAKE_CUDA_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES> --hip-link")
set(CMAKE_CUDA_CREATE_SHARED_LIBRARY "<CMAKE_CUDA_COMPILER> <CMAKE_SHARED_LIBRARY_CUDA_FLAGS> <FLAGS> <LINK_FLAGS> -shared <SONAME_FLAG><TARGET_SONAME> -o <TARGET> <OBJECTS> <LINK_LIBRARIES> --hip-link")
set(CMAKE_DEPFILE_FLAGS_CUDA "-MD -MT <DEP_TARGET> -MF <DEP_FILE>")
set(CMAKE_CUDA_DEPFILE_FORMAT gcc)
set(CMAKE_CUDA_DEPENDS_USE_COMPILER TRUE)
set(CMAKE_INCLUDE_SYSTEM_FLAG_CUDA "-isystem ")
# C++ standards: the compiler's own default is not known here (clang 15: gnu++14, 16: gnu++17), so
# it is taken as the oldest and a requested standard is always written (-std=c++17, ...)
set(CMAKE_CUDA_STANDARD_COMPUTED_DEFAULT 03)
set(CMAKE_CUDA_EXTENSIONS_COMPUTED_DEFAULT OFF)
set(CMAKE_CUDA_STANDARD_DEFAULT 03)
set(CMAKE_CUDA_EXTENSIONS_DEFAULT OFF)
set(CMAKE_CUDA_COMPILE_FEATURES "")
foreach(_std 03 11 14 17 20)
  set(CMAKE_CUDA${_std}_STANDARD_COMPILE_OPTION "-std=c++${_std}")
  set(CMAKE_CUDA${_std}_EXTENSION_COMPILE_OPTION "-std=gnu++${_std}")
  set(CMAKE_CUDA${_std}_COMPILE_FEATURES cuda_std_${_std})
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_${_std})
endforeach()
set(CMAKE_CUDA_FLAGS_DEBUG_INIT "-g")
set(CMAKE_CUDA_FLAGS_RELEASE_INIT "-O3 -DNDEBUG")
set(CMAKE_CUDA_FLAGS_RELWITHDEBINFO_INIT "-O2 -g -DNDEBUG")
set(CMAKE_CUDA_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_CUDA_COMPILE_OPTIONS_PIC "-fPIC")
set(CMAKE_SHARED_LIBRARY_CUDA_FLAGS "-fPIC")
set(CMAKE_SHARED_LIBRARY_SONAME_CUDA_FLAG "-Wl,-soname,")
