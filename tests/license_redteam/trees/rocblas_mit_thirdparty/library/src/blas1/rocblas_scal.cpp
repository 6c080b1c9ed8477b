/* ************************************************************************
 * Copyright AMD. All rights reserved.
 * ************************************************************************ */
#include "rocblas_scal.hpp"
#include "logging.hpp"

template <typename T, typename U>
__global__ void scal_kernel(rocblas_int n, U alpha, T* x, rocblas_int incx)
{
    ptrdiff_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if(tid < n)
        x[tid * incx] *= alpha;
}

extern "C" rocblas_status rocblas_sscal(rocblas_handle handle,
                                        rocblas_int    n,
                                        const float*   alpha,
                                        float*         x,
                                        rocblas_int    incx)
{
    if(!handle)
        return rocblas_status_invalid_handle;
    if(n <= 0 || incx <= 0)
        return rocblas_status_success;
    dim3 grid((n - 1) / 256 + 1), threads(256);
    hipLaunchKernelGGL(scal_kernel, grid, threads, 0, handle->get_stream(), n, *alpha, x, incx);
    return rocblas_status_success;
}
