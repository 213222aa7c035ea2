#pragma once
// The host entry points of the four device files; main.cpp sees only these.
void run_reduce(int *data, int n);
void run_scan(int *data, int n);
void run_transpose(int *data, int n);
int run_cuda_runtime(int n);    // runtime.cu: CUDA runtime host code; 0 when the sums agree
