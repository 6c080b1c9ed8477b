#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (C) 2019-2024 Intel Corporation
"""Generate the DDI dispatch table header from the API spec YAML."""

import argparse
import sys


def emit_table(names, out):
    out.write("typedef struct _ze_dditable_t {\n")
    for n in names:
        out.write(f"    ze_pfn{n}_t pfn{n};\n")
    out.write("} ze_dditable_t;\n")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="+")
    args = p.parse_args(argv)
    emit_table(args.names, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
