/* ************************************************************************
 * kvdata sample: a small header written in the layout of an AMD BLAS API
 * header. The wording below is original to this sample.
 * SPDX-License-Identifier: MIT
 * ************************************************************************ */

#ifndef KVDATA_SAMPLE_ROCBLAS_FUNCTIONS_H
#define KVDATA_SAMPLE_ROCBLAS_FUNCTIONS_H
#include "rocblas-export.h"
#include "rocblas-types.h"

/*! \file
 *  \brief Level 1, 2 and 3 routines of the sample library.
 */

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Tells whether a scalar argument lives in host or device memory.
 *  A type, not a function group: the miner skips it.
 */
typedef enum sample_pointer_mode_
{
    sample_pointer_mode_host   = 0,
    sample_pointer_mode_device = 1
} sample_pointer_mode;

/*
 * ===========================================================================
 *    level 1
 * ===========================================================================
 */

/*! @{
    \brief <b> BLAS Level 1 API </b>

    \details
    scal multiplies every entry of the vector x by the scalar alpha, in place:

        x := alpha * x

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    n         [rocblas_int]
              how many entries of x are scaled.
    @param[in]
    alpha     scalar multiplier, read from host or device memory depending on the pointer mode.
    @param[inout]
    x         device pointer to the vector that is overwritten.
    @param[in]
    incx      [rocblas_int]
              distance between two consecutive entries of x.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_sscal(
    rocblas_handle handle, rocblas_int n, const float* alpha, float* x, rocblas_int incx);

ROCBLAS_EXPORT rocblas_status rocblas_dscal(
    rocblas_handle handle, rocblas_int n, const double* alpha, double* x, rocblas_int incx);

ROCBLAS_EXPORT rocblas_status rocblas_cscal(rocblas_handle               handle,
                                            rocblas_int                  n,
                                            const rocblas_float_complex* alpha,
                                            rocblas_float_complex*       x,
                                            rocblas_int                  incx);

ROCBLAS_EXPORT rocblas_status rocblas_zscal(rocblas_handle                handle,
                                            rocblas_int                   n,
                                            const rocblas_double_complex* alpha,
                                            rocblas_double_complex*       x,
                                            rocblas_int                   incx);
//! @}

/*! @{
    \brief <b> BLAS Level 1 API </b>

    \details
    axpy adds a scaled copy of x to y:

        y := alpha * x + y

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    n         [rocblas_int]
              number of entries taken from x and y.
    @param[in]
    alpha     scalar that multiplies x before the sum.
    @param[in]
    x         device pointer to the vector that is read.
    @param[in]
    incx      [rocblas_int]
              distance between two consecutive entries of x.
    @param[inout]
    y         device pointer to the vector that receives the sum.
    @param[in]
    incy      [rocblas_int]
              distance between two consecutive entries of y.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_saxpy(rocblas_handle handle,
                                            rocblas_int    n,
                                            const float*   alpha,
                                            const float*   x,
                                            rocblas_int    incx,
                                            float*         y,
                                            rocblas_int    incy);

ROCBLAS_EXPORT rocblas_status rocblas_daxpy(rocblas_handle handle,
                                            rocblas_int    n,
                                            const double*  alpha,
                                            const double*  x,
                                            rocblas_int    incx,
                                            double*        y,
                                            rocblas_int    incy);

ROCBLAS_EXPORT rocblas_status rocblas_caxpy(rocblas_handle               handle,
                                            rocblas_int                  n,
                                            const rocblas_float_complex* alpha,
                                            const rocblas_float_complex* x,
                                            rocblas_int                  incx,
                                            rocblas_float_complex*       y,
                                            rocblas_int                  incy);

ROCBLAS_EXPORT rocblas_status rocblas_zaxpy(rocblas_handle                handle,
                                            rocblas_int                   n,
                                            const rocblas_double_complex* alpha,
                                            const rocblas_double_complex* x,
                                            rocblas_int                   incx,
                                            rocblas_double_complex*       y,
                                            rocblas_int                   incy);
//! @}

/*! @{
    \brief <b> BLAS Level 1 API </b>

    \details
    dot forms the inner product of two vectors; the u variants use x as it is and
    the c variants take the complex conjugate of x first:

        result := x * y       (dot, dotu)
        result := conj(x) * y (dotc)

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    n         [rocblas_int]
              length of both vectors.
    @param[in]
    x         device pointer to the first vector.
    @param[in]
    incx      [rocblas_int]
              distance between two consecutive entries of x.
    @param[in]
    y         device pointer to the second vector.
    @param[in]
    incy      [rocblas_int]
              distance between two consecutive entries of y.
    @param[inout]
    result    where the scalar product is written, in host or device memory.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_sdot(rocblas_handle handle,
                                           rocblas_int    n,
                                           const float*   x,
                                           rocblas_int    incx,
                                           const float*   y,
                                           rocblas_int    incy,
                                           float*         result);

ROCBLAS_EXPORT rocblas_status rocblas_ddot(rocblas_handle handle,
                                           rocblas_int    n,
                                           const double*  x,
                                           rocblas_int    incx,
                                           const double*  y,
                                           rocblas_int    incy,
                                           double*        result);

ROCBLAS_EXPORT rocblas_status rocblas_cdotu(rocblas_handle               handle,
                                            rocblas_int                  n,
                                            const rocblas_float_complex* x,
                                            rocblas_int                  incx,
                                            const rocblas_float_complex* y,
                                            rocblas_int                  incy,
                                            rocblas_float_complex*       result);

ROCBLAS_EXPORT rocblas_status rocblas_zdotc(rocblas_handle                handle,
                                            rocblas_int                   n,
                                            const rocblas_double_complex* x,
                                            rocblas_int                   incx,
                                            const rocblas_double_complex* y,
                                            rocblas_int                   incy,
                                            rocblas_double_complex*       result);
//! @}

/*! @{
    \brief <b> BLAS Level 1 API </b>

    \details
    nrm2 returns the Euclidean length of a vector, \f$ \sqrt{\sum_i |x_i|^2} \f$,
    computed so that intermediate squares do not overflow.

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    n         [rocblas_int]
              number of entries of x.
    @param[in]
    x         device pointer to the vector.
    @param[in]
    incx      [rocblas_int]
              distance between two consecutive entries of x.
    @param[inout]
    result    where the norm is written, in host or device memory.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_snrm2(
    rocblas_handle handle, rocblas_int n, const float* x, rocblas_int incx, float* result);

ROCBLAS_EXPORT rocblas_status rocblas_dnrm2(
    rocblas_handle handle, rocblas_int n, const double* x, rocblas_int incx, double* result);
//! @}

/*! @{
    \brief <b> BLAS Level 1 API </b>

    \details
    rotg builds a Givens plane rotation. This group lost its declarations on purpose:
    the sample shows how the miner accounts for a group that declares nothing.

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    ********************************************************************/
//! @}

/*
 * ===========================================================================
 *    level 2
 * ===========================================================================
 */

/*! @{
    \brief <b> BLAS Level 2 API </b>

    \details
    gemv multiplies a general m by n matrix with a vector and accumulates:

        y := alpha*op( A )*x + beta*y

    where op( A ) is A, its transpose or its conjugate transpose.

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    trans     [rocblas_operation]
              which of A, A transposed or A conjugate-transposed is applied.
    @param[in]
    m         [rocblas_int]
              rows of A.
    @param[in]
    n         [rocblas_int]
              columns of A.
    @param[in]
    alpha     scalar applied to the product.
    @param[in]
    A         device pointer to the matrix, stored column by column.
    @param[in]
    lda       [rocblas_int]
              leading dimension of A; at least max(1, m).
    @param[in]
    x         device pointer to the input vector.
    @param[in]
    incx      [rocblas_int]
              distance between two consecutive entries of x.
    @param[in]
    beta      scalar applied to y before the sum.
    @param[inout]
    y         device pointer to the vector that is updated.
    @param[in]
    incy      [rocblas_int]
              distance between two consecutive entries of y.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_sgemv(rocblas_handle    handle,
                                            rocblas_operation trans,
                                            rocblas_int       m,
                                            rocblas_int       n,
                                            const float*      alpha,
                                            const float*      A,
                                            rocblas_int       lda,
                                            const float*      x,
                                            rocblas_int       incx,
                                            const float*      beta,
                                            float*            y,
                                            rocblas_int       incy);

ROCBLAS_EXPORT rocblas_status rocblas_dgemv(rocblas_handle    handle,
                                            rocblas_operation trans,
                                            rocblas_int       m,
                                            rocblas_int       n,
                                            const double*     alpha,
                                            const double*     A,
                                            rocblas_int       lda,
                                            const double*     x,
                                            rocblas_int       incx,
                                            const double*     beta,
                                            double*           y,
                                            rocblas_int       incy);
//! @}

/*! @{
    \brief <b> BLAS Level 2 API </b>

    \details
    ger adds the scaled outer product of two vectors to a general matrix:

        A := A + alpha*x*y**T

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    m         [rocblas_int]
              rows of A and length of x.
    @param[in]
    n         [rocblas_int]
              columns of A and length of y.
    @param[in]
    alpha     scalar applied to the outer product.
    @param[in]
    x         device pointer to the column vector.
    @param[in]
    incx      [rocblas_int]
              distance between two consecutive entries of x.
    @param[in]
    y         device pointer to the row vector.
    @param[in]
    incy      [rocblas_int]
              distance between two consecutive entries of y.
    @param[inout]
    A         device pointer to the matrix that is updated.
    @param[in]
    lda       [rocblas_int]
              leading dimension of A; at least max(1, m).

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_sger(rocblas_handle handle,
                                           rocblas_int    m,
                                           rocblas_int    n,
                                           const float*   alpha,
                                           const float*   x,
                                           rocblas_int    incx,
                                           const float*   y,
                                           rocblas_int    incy,
                                           float*         A,
                                           rocblas_int    lda);

ROCBLAS_EXPORT rocblas_status rocblas_dger(rocblas_handle handle,
                                           rocblas_int    m,
                                           rocblas_int    n,
                                           const double*  alpha,
                                           const double*  x,
                                           rocblas_int    incx,
                                           const double*  y,
                                           rocblas_int    incy,
                                           double*        A,
                                           rocblas_int    lda);
//! @}

/*
 * ===========================================================================
 *    level 3
 * ===========================================================================
 */

/*! @{
    \brief <b> BLAS Level 3 API </b>

    \details
    gemm computes a scaled product of two general matrices and adds it to a scaled C:

        C = alpha*op( A )*op( B ) + beta*C,

    where op( X ) is X, its transpose or its conjugate transpose, op( A ) is m by k,
    op( B ) is k by n and C is m by n.

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    transA    [rocblas_operation]
              which form of op( A ) is used.
    @param[in]
    transB    [rocblas_operation]
              which form of op( B ) is used.
    @param[in]
    m         [rocblas_int]
              rows of op( A ) and of C.
    @param[in]
    n         [rocblas_int]
              columns of op( B ) and of C.
    @param[in]
    k         [rocblas_int]
              columns of op( A ) and rows of op( B ).
    @param[in]
    alpha     scalar applied to the product.
    @param[in]
    A         device pointer to the first factor.
    @param[in]
    lda       [rocblas_int]
              leading dimension of A.
    @param[in]
    B         device pointer to the second factor.
    @param[in]
    ldb       [rocblas_int]
              leading dimension of B.
    @param[in]
    beta      scalar applied to C before the sum; when it is zero C need not be set.
    @param[inout]
    C         device pointer to the matrix that is overwritten.
    @param[in]
    ldc       [rocblas_int]
              leading dimension of C.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_sgemm(rocblas_handle    handle,
                                            rocblas_operation transA,
                                            rocblas_operation transB,
                                            rocblas_int       m,
                                            rocblas_int       n,
                                            rocblas_int       k,
                                            const float*      alpha,
                                            const float*      A,
                                            rocblas_int       lda,
                                            const float*      B,
                                            rocblas_int       ldb,
                                            const float*      beta,
                                            float*            C,
                                            rocblas_int       ldc);

ROCBLAS_EXPORT rocblas_status rocblas_dgemm(rocblas_handle    handle,
                                            rocblas_operation transA,
                                            rocblas_operation transB,
                                            rocblas_int       m,
                                            rocblas_int       n,
                                            rocblas_int       k,
                                            const double*     alpha,
                                            const double*     A,
                                            rocblas_int       lda,
                                            const double*     B,
                                            rocblas_int       ldb,
                                            const double*     beta,
                                            double*           C,
                                            rocblas_int       ldc);

ROCBLAS_EXPORT rocblas_status rocblas_cgemm(rocblas_handle               handle,
                                            rocblas_operation            transA,
                                            rocblas_operation            transB,
                                            rocblas_int                  m,
                                            rocblas_int                  n,
                                            rocblas_int                  k,
                                            const rocblas_float_complex* alpha,
                                            const rocblas_float_complex* A,
                                            rocblas_int                  lda,
                                            const rocblas_float_complex* B,
                                            rocblas_int                  ldb,
                                            const rocblas_float_complex* beta,
                                            rocblas_float_complex*       C,
                                            rocblas_int                  ldc);

ROCBLAS_EXPORT rocblas_status rocblas_zgemm(rocblas_handle                handle,
                                            rocblas_operation             transA,
                                            rocblas_operation             transB,
                                            rocblas_int                   m,
                                            rocblas_int                   n,
                                            rocblas_int                   k,
                                            const rocblas_double_complex* alpha,
                                            const rocblas_double_complex* A,
                                            rocblas_int                   lda,
                                            const rocblas_double_complex* B,
                                            rocblas_int                   ldb,
                                            const rocblas_double_complex* beta,
                                            rocblas_double_complex*       C,
                                            rocblas_int                   ldc);
//! @}

/*! @{
    \brief <b> BLAS Level 3 API </b>

    \details
    trsm solves a triangular system with many right-hand sides, overwriting B with X:

        op( A )*X = alpha*B   (side = rocblas_side_left)
        X*op( A ) = alpha*B   (side = rocblas_side_right)

    A is triangular; nothing checks it for singularity.

    @param[in]
    handle    [rocblas_handle]
              library context that owns the stream the work is queued on.
    @param[in]
    side      [rocblas_side]
              whether op( A ) multiplies X from the left or from the right.
    @param[in]
    uplo      [rocblas_fill]
              whether the upper or the lower triangle of A is referenced.
    @param[in]
    transA    [rocblas_operation]
              which form of op( A ) is used.
    @param[in]
    diag      [rocblas_diagonal]
              whether A has a unit diagonal that is not read.
    @param[in]
    m         [rocblas_int]
              rows of B.
    @param[in]
    n         [rocblas_int]
              columns of B.
    @param[in]
    alpha     scalar applied to B; when it is zero A is not read and B is set to zero.
    @param[in]
    A         device pointer to the triangular matrix.
    @param[in]
    lda       [rocblas_int]
              leading dimension of A.
    @param[inout]
    B         device pointer to the right-hand sides on entry and the solution on exit.
    @param[in]
    ldb       [rocblas_int]
              leading dimension of B.

    ********************************************************************/

ROCBLAS_EXPORT rocblas_status rocblas_strsm(rocblas_handle    handle,
                                            rocblas_side      side,
                                            rocblas_fill      uplo,
                                            rocblas_operation transA,
                                            rocblas_diagonal  diag,
                                            rocblas_int       m,
                                            rocblas_int       n,
                                            const float*      alpha,
                                            const float*      A,
                                            rocblas_int       lda,
                                            float*            B,
                                            rocblas_int       ldb);

ROCBLAS_EXPORT rocblas_status rocblas_dtrsm(rocblas_handle    handle,
                                            rocblas_side      side,
                                            rocblas_fill      uplo,
                                            rocblas_operation transA,
                                            rocblas_diagonal  diag,
                                            rocblas_int       m,
                                            rocblas_int       n,
                                            const double*     alpha,
                                            const double*     A,
                                            rocblas_int       lda,
                                            double*           B,
                                            rocblas_int       ldb);
//! @}

#ifdef __cplusplus
}
#endif

#endif /* KVDATA_SAMPLE_ROCBLAS_FUNCTIONS_H */
