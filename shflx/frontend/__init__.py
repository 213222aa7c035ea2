"""The compile front end: finding clang, the CUDA device prelude, turning .cu/.hip into AMDGPU IR."""
