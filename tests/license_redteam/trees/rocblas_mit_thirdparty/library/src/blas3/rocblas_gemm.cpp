/* ************************************************************************
 * Copyright (C) 2018-2024 Advanced Micro Devices, Inc. All rights reserved.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
 * THE SOFTWARE.
 *
 * ************************************************************************ */
#include "rocblas_gemm.hpp"
#include "handle.hpp"

template <int DIM_M, int DIM_N, typename T>
__global__ void gemm_tile_kernel(int m, int n, int k, T alpha,
                                 const T* A, int lda, const T* B, int ldb,
                                 T beta, T* C, int ldc)
{
    int row = blockIdx.x * DIM_M + threadIdx.x;
    int col = blockIdx.y * DIM_N + threadIdx.y;
    if(row >= m || col >= n)
        return;
    T acc = 0;
    for(int p = 0; p < k; ++p)
        acc += A[row + p * lda] * B[p + col * ldb];
    C[row + col * ldc] = alpha * acc + beta * C[row + col * ldc];
}
