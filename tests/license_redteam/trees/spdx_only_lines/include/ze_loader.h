/*
 *
 * Copyright (C) 2019-2024 Intel Corporation
 *
 * SPDX-License-Identifier: MIT
 *
 */
#ifndef _ZE_LOADER_H
#define _ZE_LOADER_H

#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct _zel_version {
    int major;
    int minor;
    int patch;
} zel_version_t;

int zelLoaderGetVersion(zel_version_t *version);
int zelLoaderTranslateHandle(int handleType, void *handleIn, void **handleOut);

#if defined(__cplusplus)
}
#endif
#endif /* _ZE_LOADER_H */
