/*
 * Copyright (c) 2021-2023 Helios Compute Technologies Ltd. All rights reserved.
 *
 * HELIOS CONFIDENTIAL. This file is part of the Helios Compute SDK and is
 * subject to the Helios Compute SDK Evaluation License in the LICENSE file
 * distributed with it.
 */
#ifndef HX_RUNTIME_H
#define HX_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

typedef int hxError_t;
typedef struct hxStream_st *hxStream_t;

#define HX_SUCCESS 0
#define HX_ERROR_OUT_OF_MEMORY 2

hxError_t hxMalloc(void **ptr, size_t bytes);
hxError_t hxFree(void *ptr);
hxError_t hxMemcpyAsync(void *dst, const void *src, size_t bytes, hxStream_t s);
hxError_t hxStreamSynchronize(hxStream_t s);

#endif /* HX_RUNTIME_H */
