/* **************************************************************************
 * Derived from the MAGMA library (http://icl.utk.edu/magma/)
 * and the reference LAPACK dgetf2 algorithm; see LICENSE.md for the
 * third-party notices that accompany this project.
 *
 * Copyright (C) 2019-2024 Advanced Micro Devices, Inc. All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR AND CONTRIBUTORS ``AS IS'' AND
 * ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 * ARE DISCLAIMED.  IN NO EVENT SHALL THE AUTHOR OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS
 * OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
 * HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT
 * LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY
 * OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF
 * SUCH DAMAGE.
 * *************************************************************************/

#include "roclapack_getf2.hpp"

template <rocblas_int DIM, typename T>
__global__ void getf2_small_kernel(const rocblas_int m, T* A, const rocblas_int lda,
                                   rocblas_int* ipiv, rocblas_int* info)
{
    // one thread block factorizes one small panel held in registers
    T rA[DIM];
    for(int j = 0; j < DIM; ++j)
        rA[j] = A[threadIdx.x + j * lda];
    for(int k = 0; k < DIM; ++k)
    {
        // pivot search and row swap omitted for brevity
        T pivot = rA[k];
        if(pivot == 0 && *info == 0)
            *info = k + 1;
    }
}
