#pragma once
// The host entry points of the three device files; main.cpp sees only these.
void run_reduce(int *data, int n);
void run_scan(int *data, int n);
void run_transpose(int *data, int n);
