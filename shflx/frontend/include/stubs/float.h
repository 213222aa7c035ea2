// shflx stub: the CUDA device API comes from the force-included shflx_cuda.h
#pragma once
#include "../shflx_stdint.h"
