/************************************************************************
 * Derived from the BSD3-licensed
 * LAPACK routine (version 3.7.0) --
 *     Univ. of Tennessee, Univ. of California Berkeley,
 *     Univ. of Colorado Denver and NAG Ltd..
 *     December 2016
 * Copyright (C) 2019-2024 Advanced Micro Devices, Inc. All rights reserved.
 * ***********************************************************************/

#pragma once

#include "rocblas.hpp"

template <typename T>
__global__ void laswp_kernel(const rocblas_int n, T* A, const rocblas_int lda,
                             const rocblas_int k1, const rocblas_int k2,
                             const rocblas_int* ipiv, const rocblas_int incx)
{
    rocblas_int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if(tid >= n)
        return;
    for(rocblas_int i = k1; i <= k2; ++i)
    {
        rocblas_int exch = ipiv[i - 1];
        if(exch != i)
        {
            T tmp = A[(i - 1) + tid * lda];
            A[(i - 1) + tid * lda] = A[(exch - 1) + tid * lda];
            A[(exch - 1) + tid * lda] = tmp;
        }
    }
}
