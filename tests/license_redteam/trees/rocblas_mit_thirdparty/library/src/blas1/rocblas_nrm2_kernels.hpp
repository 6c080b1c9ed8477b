#pragma once

#include "handle.hpp"
#include "reduction.hpp"

// Two-pass reduction for nrm2: each block computes a partial sum of squares,
// a second kernel reduces the partials and takes the square root.
template <int NB, typename T>
__global__ void nrm2_partial_kernel(rocblas_int n, const T* x, rocblas_int incx, T* workspace)
{
    __shared__ T shm[NB];
    rocblas_int tid = blockIdx.x * NB + threadIdx.x;
    T           v   = tid < n ? x[tid * incx] : T(0);
    shm[threadIdx.x] = v * v;
    __syncthreads();
    for(int s = NB / 2; s > 0; s >>= 1)
    {
        if(threadIdx.x < s)
            shm[threadIdx.x] += shm[threadIdx.x + s];
        __syncthreads();
    }
    if(threadIdx.x == 0)
        workspace[blockIdx.x] = shm[0];
}
