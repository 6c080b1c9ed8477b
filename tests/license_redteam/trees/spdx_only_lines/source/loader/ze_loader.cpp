// Copyright (C) 2019-2024 Intel Corporation
// SPDX-License-Identifier: MIT

#include "ze_loader.h"

#include <cstdlib>
#include <string>

namespace loader {

static bool debug_trace_enabled() {
    const char *v = std::getenv("ZEL_ENABLE_LOADER_LOGGING");
    return v != nullptr && std::string(v) == "1";
}

}  // namespace loader

extern "C" int zelLoaderGetVersion(zel_version_t *version) {
    if (version == nullptr)
        return 1;
    version->major = 1;
    version->minor = 17;
    version->patch = 0;
    (void)loader::debug_trace_enabled();
    return 0;
}
