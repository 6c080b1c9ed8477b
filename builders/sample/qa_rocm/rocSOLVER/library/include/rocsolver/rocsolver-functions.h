/* **************************************************************************
 * kvdata sample: a small header written in the layout of an AMD LAPACK API
 * header. The wording below is original to this sample.
 * SPDX-License-Identifier: MIT
 * *************************************************************************/

#pragma once

#include "rocsolver-export.h"
#include "rocsolver-types.h"

/*! \file
    \brief Dense factorizations, solvers and eigensolvers of the sample library.
 ****************************************************************************/

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ===========================================================================
 *      LAPACK functions
 * ===========================================================================
 */

/*! @{
    \brief POTRF computes the Cholesky factorization of a real symmetric or complex
    Hermitian positive definite matrix A.

    \details
    The factor is triangular: \f$A = U^H U\f$ when the upper triangle is used and
    \f$A = L L^H\f$ when the lower triangle is used. A blocked algorithm is used for
    large matrices.

    @param[in]
    handle    rocblas_handle.
    @param[in]
    uplo      rocblas_fill.\n
              Which triangle of A holds the matrix on entry.
    @param[in]
    n         rocblas_int. n >= 0.\n
              Order of the matrix A.
    @param[inout]
    A         pointer to type. Array on the GPU of dimension lda*n.\n
              On entry the matrix to factor; on exit its triangular factor in the chosen
              triangle. The other triangle is left as it was.
    @param[in]
    lda       rocblas_int. lda >= n.\n
              Leading dimension of A.
    @param[out]
    info      pointer to a rocblas_int on the GPU.\n
              Zero on success. A positive value i means the leading minor of order i
              is not positive definite and the factorization stopped there.
    ********************************************************************/

ROCSOLVER_EXPORT rocblas_status rocsolver_spotrf(rocblas_handle    handle,
                                                 const rocblas_fill uplo,
                                                 const rocblas_int n,
                                                 float*            A,
                                                 const rocblas_int lda,
                                                 rocblas_int*      info);

ROCSOLVER_EXPORT rocblas_status rocsolver_dpotrf(rocblas_handle    handle,
                                                 const rocblas_fill uplo,
                                                 const rocblas_int n,
                                                 double*           A,
                                                 const rocblas_int lda,
                                                 rocblas_int*      info);

ROCSOLVER_EXPORT rocblas_status rocsolver_cpotrf(rocblas_handle         handle,
                                                 const rocblas_fill     uplo,
                                                 const rocblas_int      n,
                                                 rocblas_float_complex* A,
                                                 const rocblas_int      lda,
                                                 rocblas_int*           info);

ROCSOLVER_EXPORT rocblas_status rocsolver_zpotrf(rocblas_handle          handle,
                                                 const rocblas_fill      uplo,
                                                 const rocblas_int       n,
                                                 rocblas_double_complex* A,
                                                 const rocblas_int       lda,
                                                 rocblas_int*            info);
//! @}

/*! @{
    \brief GETRF computes the LU factorization of a general m-by-n matrix A
    with partial pivoting by row interchanges.

    \details
    The result has the form \f$A = P L U\f$ with P a permutation, L unit lower
    triangular (or trapezoidal when m > n) and U upper triangular (or trapezoidal
    when m < n).

    @param[in]
    handle    rocblas_handle.
    @param[in]
    m         rocblas_int. m >= 0.\n
              Rows of A.
    @param[in]
    n         rocblas_int. n >= 0.\n
              Columns of A.
    @param[inout]
    A         pointer to type. Array on the GPU of dimension lda*n.\n
              On entry the matrix to factor; on exit L below the diagonal (its unit
              diagonal is not stored) and U on and above it.
    @param[in]
    lda       rocblas_int. lda >= m.\n
              Leading dimension of A.
    @param[out]
    ipiv      pointer to rocblas_int. Array on the GPU of dimension min(m,n).\n
              One-based pivot indices: row i was swapped with row ipiv[i].
    @param[out]
    info      pointer to a rocblas_int on the GPU.\n
              Zero on success; a positive i means U(i,i) is exactly zero.
    ********************************************************************/

ROCSOLVER_EXPORT rocblas_status rocsolver_sgetrf(rocblas_handle    handle,
                                                 const rocblas_int m,
                                                 const rocblas_int n,
                                                 float*            A,
                                                 const rocblas_int lda,
                                                 rocblas_int*      ipiv,
                                                 rocblas_int*      info);

ROCSOLVER_EXPORT rocblas_status rocsolver_dgetrf(rocblas_handle    handle,
                                                 const rocblas_int m,
                                                 const rocblas_int n,
                                                 double*           A,
                                                 const rocblas_int lda,
                                                 rocblas_int*      ipiv,
                                                 rocblas_int*      info);

ROCSOLVER_EXPORT rocblas_status rocsolver_cgetrf(rocblas_handle         handle,
                                                 const rocblas_int      m,
                                                 const rocblas_int      n,
                                                 rocblas_float_complex* A,
                                                 const rocblas_int      lda,
                                                 rocblas_int*           ipiv,
                                                 rocblas_int*           info);

ROCSOLVER_EXPORT rocblas_status rocsolver_zgetrf(rocblas_handle          handle,
                                                 const rocblas_int       m,
                                                 const rocblas_int       n,
                                                 rocblas_double_complex* A,
                                                 const rocblas_int       lda,
                                                 rocblas_int*            ipiv,
                                                 rocblas_int*            info);
//! @}

/*! @{
    \brief GETRS solves a system of n linear equations with the LU factors
    computed by GETRF.

    \details
    It solves one of \f$A X = B\f$, \f$A^T X = B\f$ or \f$A^H X = B\f$, depending on trans.

    @param[in]
    handle    rocblas_handle.
    @param[in]
    trans     rocblas_operation.\n
              Which form of the system is solved.
    @param[in]
    n         rocblas_int. n >= 0.\n
              Order of A.
    @param[in]
    nrhs      rocblas_int. nrhs >= 0.\n
              Number of right-hand sides, the columns of B.
    @param[in]
    A         pointer to type. Array on the GPU of dimension lda*n.\n
              The factors L and U returned by GETRF.
    @param[in]
    lda       rocblas_int. lda >= n.\n
              Leading dimension of A.
    @param[in]
    ipiv      pointer to rocblas_int. Array on the GPU of dimension n.\n
              The pivot indices returned by GETRF.
    @param[inout]
    B         pointer to type. Array on the GPU of dimension ldb*nrhs.\n
              The right-hand sides on entry, the solution X on exit.
    @param[in]
    ldb       rocblas_int. ldb >= n.\n
              Leading dimension of B.
    ********************************************************************/

ROCSOLVER_EXPORT rocblas_status rocsolver_sgetrs(rocblas_handle          handle,
                                                 const rocblas_operation trans,
                                                 const rocblas_int       n,
                                                 const rocblas_int       nrhs,
                                                 float*                  A,
                                                 const rocblas_int       lda,
                                                 const rocblas_int*      ipiv,
                                                 float*                  B,
                                                 const rocblas_int       ldb);

ROCSOLVER_EXPORT rocblas_status rocsolver_dgetrs(rocblas_handle          handle,
                                                 const rocblas_operation trans,
                                                 const rocblas_int       n,
                                                 const rocblas_int       nrhs,
                                                 double*                 A,
                                                 const rocblas_int       lda,
                                                 const rocblas_int*      ipiv,
                                                 double*                 B,
                                                 const rocblas_int       ldb);
//! @}

/*! @{
    \brief GEQRF computes a QR factorization of a general m-by-n matrix A.

    \details
    The factorization has the form \f$A = Q \left[\begin{array}{c} R\\ 0 \end{array}\right]\f$
    where R is upper triangular and Q is the product of min(m,n) Householder reflectors
    kept in compact form below the diagonal of A.

    @param[in]
    handle    rocblas_handle.
    @param[in]
    m         rocblas_int. m >= 0.\n
              Rows of A.
    @param[in]
    n         rocblas_int. n >= 0.\n
              Columns of A.
    @param[inout]
    A         pointer to type. Array on the GPU of dimension lda*n.\n
              On entry the matrix to factor; on exit R on and above the diagonal and
              the Householder vectors below it.
    @param[in]
    lda       rocblas_int. lda >= m.\n
              Leading dimension of A.
    @param[out]
    ipiv      pointer to type. Array on the GPU of dimension min(m,n).\n
              The scalar factors of the Householder reflectors.
    ********************************************************************/

ROCSOLVER_EXPORT rocblas_status rocsolver_sgeqrf(rocblas_handle    handle,
                                                 const rocblas_int m,
                                                 const rocblas_int n,
                                                 float*            A,
                                                 const rocblas_int lda,
                                                 float*            ipiv);

ROCSOLVER_EXPORT rocblas_status rocsolver_dgeqrf(rocblas_handle    handle,
                                                 const rocblas_int m,
                                                 const rocblas_int n,
                                                 double*           A,
                                                 const rocblas_int lda,
                                                 double*           ipiv);
//! @}

/*! \brief GESVD computes the singular values and optionally the singular vectors
    of a general m-by-n matrix A.

    \details
    The decomposition is \f$A = U S V'\f$ with S diagonal and non-negative. This block
    uses the older style without a member group: it documents the declarations that
    follow it directly.

    @param[in]
    handle    rocblas_handle.
    @param[in]
    left_svect rocblas_svect.\n
              Whether and how many left singular vectors are computed.
    @param[in]
    right_svect rocblas_svect.\n
              Whether and how many right singular vectors are computed.
    @param[in]
    m         rocblas_int. m >= 0.\n
              Rows of A.
    @param[in]
    n         rocblas_int. n >= 0.\n
              Columns of A.
    @param[inout]
    A         pointer to type. Array on the GPU of dimension lda*n.\n
              The matrix on entry; its contents are destroyed on exit.
    @param[in]
    lda       rocblas_int. lda >= m.\n
              Leading dimension of A.
    @param[out]
    S         pointer to real type. Array on the GPU of dimension min(m,n).\n
              The singular values in decreasing order.
    @param[out]
    info      pointer to a rocblas_int on the GPU.\n
              Zero on success; a positive i counts superdiagonals that did not converge.
    ********************************************************************/

ROCSOLVER_EXPORT rocblas_status rocsolver_sgesvd(rocblas_handle      handle,
                                                 const rocblas_svect left_svect,
                                                 const rocblas_svect right_svect,
                                                 const rocblas_int   m,
                                                 const rocblas_int   n,
                                                 float*              A,
                                                 const rocblas_int   lda,
                                                 float*              S,
                                                 rocblas_int*        info);

ROCSOLVER_EXPORT rocblas_status rocsolver_dgesvd(rocblas_handle      handle,
                                                 const rocblas_svect left_svect,
                                                 const rocblas_svect right_svect,
                                                 const rocblas_int   m,
                                                 const rocblas_int   n,
                                                 double*             A,
                                                 const rocblas_int   lda,
                                                 double*             S,
                                                 rocblas_int*        info);

/*! @{
    \brief SYEVD computes the eigenvalues and optionally the eigenvectors of a real
    symmetric matrix A.

    \details
    Eigenvectors, when wanted, come from a divide-and-conquer method, which is usually
    faster than the QR iteration for large matrices.

    @param[in]
    handle    rocblas_handle.
    @param[in]
    evect     rocblas_evect.\n
              Whether eigenvectors are computed.
    @param[in]
    uplo      rocblas_fill.\n
              Which triangle of A is read.
    @param[in]
    n         rocblas_int. n >= 0.\n
              Order of A.
    @param[inout]
    A         pointer to type. Array on the GPU of dimension lda*n.\n
              The matrix on entry; the orthonormal eigenvectors on exit when they are wanted.
    @param[in]
    lda       rocblas_int. lda >= n.\n
              Leading dimension of A.
    @param[out]
    D         pointer to type. Array on the GPU of dimension n.\n
              The eigenvalues in increasing order.
    @param[out]
    E         pointer to type. Array on the GPU of dimension n.\n
              Workspace for the off-diagonal of the tridiagonal form.
    @param[out]
    info      pointer to a rocblas_int on the GPU.\n
              Zero on success; a positive i means the algorithm did not converge.
    ********************************************************************/

ROCSOLVER_EXPORT rocblas_status rocsolver_ssyevd(rocblas_handle      handle,
                                                 const rocblas_evect evect,
                                                 const rocblas_fill  uplo,
                                                 const rocblas_int   n,
                                                 float*              A,
                                                 const rocblas_int   lda,
                                                 float*              D,
                                                 float*              E,
                                                 rocblas_int*        info);

ROCSOLVER_EXPORT rocblas_status rocsolver_dsyevd(rocblas_handle      handle,
                                                 const rocblas_evect evect,
                                                 const rocblas_fill  uplo,
                                                 const rocblas_int   n,
                                                 double*             A,
                                                 const rocblas_int   lda,
                                                 double*             D,
                                                 double*             E,
                                                 rocblas_int*        info);
//! @}

#ifdef __cplusplus
}
#endif
