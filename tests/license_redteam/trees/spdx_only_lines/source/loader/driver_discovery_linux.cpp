// SPDX-License-Identifier: GPL-2.0+
/*
 * Driver discovery on Linux: scans the DRM render nodes.
 * Copyright (C) 2020 Example Contributor
 */
#include <dirent.h>
#include <string>
#include <vector>

namespace loader {

std::vector<std::string> discoverRenderNodes() {
    std::vector<std::string> nodes;
    DIR *d = opendir("/dev/dri");
    if (!d)
        return nodes;
    while (struct dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name.rfind("renderD", 0) == 0)
            nodes.push_back("/dev/dri/" + name);
    }
    closedir(d);
    return nodes;
}

}  // namespace loader
