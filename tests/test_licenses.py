"""kvdata.licenses: text detection, name normalisation, license files, the allow-list."""
from __future__ import annotations

import fsspec
import pytest

from kvdata.licenses import DEFAULT_ALLOW, check_allowed, detect_spdx_from_text, find_license_file, \
    normalize_spdx, resolve_allowed, resolve_license
from kvdata.schema import RejectReason

MIT = """MIT License

Copyright (c) 2024 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
"""
BSD_2 = """Copyright (c) 2020, A. Person
Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:
1. Redistributions of source code must retain the above copyright notice,
   this list of conditions and the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation.
"""
BSD_3 = BSD_2 + """3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.
"""
ISC = """ISC License
Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.
"""
APACHE = """                                 Apache License
                           Version 2.0, January 2004
                        http://www.apache.org/licenses/
"""
GPL3 = """                    GNU GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007
  The GNU General Public License is a free, copyleft license for
software and other kinds of works.
  13. Use with the GNU Affero General Public License.
  ... use the GNU Lesser General Public License instead of this License.
"""
LGPL21 = """GNU LESSER GENERAL PUBLIC LICENSE
Version 2.1, February 1999
"""
AGPL = """GNU AFFERO GENERAL PUBLIC LICENSE Version 3, 19 November 2007
The GNU Affero General Public License is a free, copyleft license for software
"""
GPL2 = """GNU GENERAL PUBLIC LICENSE
Version 2, June 1991
... use the GNU Library General Public License instead of this License.
"""


@pytest.mark.parametrize("text,spdx", [
    (MIT, "MIT"), (BSD_2, "BSD-2-Clause"), (BSD_3, "BSD-3-Clause"), (ISC, "ISC"), (APACHE, "Apache-2.0"),
    (GPL3, "GPL-3.0"), (LGPL21, "LGPL-2.1"), (AGPL, "AGPL-3.0"), (GPL2, "GPL-2.0"),
    ("Mozilla Public License Version 2.0\n==================", "MPL-2.0"),
    ("Boost Software License - Version 1.0 - August 17th, 2003", "BSL-1.0"),
    ("This is free and unencumbered software released into the public domain.\n", "Unlicense"),
    ("Creative Commons Legal Code\n\nCC0 1.0 Universal\n", "CC0-1.0"),
    ("This software is provided 'as-is', without any express or implied\nwarranty. ...\n"
     "2. Altered source versions must be plainly marked as such, and must not be\n", "Zlib"),
    ("// SPDX-License-Identifier: Apache-2.0\nint main() {}\n", "Apache-2.0"),
    ("/* SPDX-License-Identifier: MIT OR Apache-2.0 */", "MIT OR Apache-2.0"),
])
def test_detect_spdx_from_text(text, spdx):
    assert detect_spdx_from_text(text) == spdx


@pytest.mark.parametrize("text", ["", "All rights reserved. Do not copy.", "Some random README text"])
def test_detect_unknown_text_is_none(text):
    assert detect_spdx_from_text(text) is None


@pytest.mark.parametrize("name,spdx", [
    ("mit", "MIT"), ("MIT License", "MIT"), ("Apache License 2.0", "Apache-2.0"), ("apache-2.0", "Apache-2.0"),
    ("BSD 3-Clause", "BSD-3-Clause"), ("bsd-3-clause", "BSD-3-Clause"), ("BSD-2-Clause", "BSD-2-Clause"),
    (["MIT"], "MIT"), (["MIT", "mit"], "MIT"), (["MIT", "Apache-2.0"], "MIT AND Apache-2.0"),
    ("MIT OR Apache-2.0", "MIT OR Apache-2.0"), ("cc-by-4.0", "CC-BY-4.0"), ("GPL-3.0-only", "GPL-3.0"),
    ("lgpl-2.1", "LGPL-2.1"), ("bsl-1.0", "BSL-1.0"), ("Unlicense", "Unlicense"), ("cc0-1.0", "CC0-1.0"),
])
def test_normalize_spdx(name, spdx):
    assert normalize_spdx(name) == spdx


@pytest.mark.parametrize("name", [None, "", "Proprietary", "other", ["MIT", "Custom"], [], 42, "MIT OR Mystery"])
def test_normalize_unknown_is_none(name):
    assert normalize_spdx(name) is None


def test_find_license_file_prefers_license_and_ignores_case(tmp_path):
    fs = fsspec.filesystem("file")
    assert find_license_file(fs, str(tmp_path)) is None
    (tmp_path / "copying").write_text(GPL2)
    assert find_license_file(fs, str(tmp_path)).endswith("copying")
    (tmp_path / "LICENSE.md").write_text(MIT)
    assert find_license_file(fs, str(tmp_path)).endswith("LICENSE.md")
    (tmp_path / "LICENSE").mkdir()  # a directory named LICENSE is not a license file
    assert find_license_file(fs, str(tmp_path)).endswith("LICENSE.md")
    assert find_license_file(fs, str(tmp_path / "absent")) is None


def test_resolve_license(tmp_path):
    fs = fsspec.filesystem("file")
    root = str(tmp_path)
    assert resolve_license(fs, root) == (None, (RejectReason.MISSING_LICENSE, resolve_license(fs, root)[1][1]))
    spdx, problem = resolve_license(fs, root, declared="Apache License 2.0")
    assert (spdx, problem) == ("Apache-2.0", None)
    spdx, problem = resolve_license(fs, root, declared="Custom")
    assert spdx is None and problem[0] is RejectReason.UNKNOWN_LICENSE and "Custom" in problem[1]
    (tmp_path / "LICENSE").write_text(BSD_3)
    assert resolve_license(fs, root) == ("BSD-3-Clause", None)
    assert resolve_license(fs, root, declared="MIT") == ("MIT", None)  # declared wins
    assert resolve_license(fs, root, declared="Custom") == ("BSD-3-Clause", None)
    (tmp_path / "LICENSE").write_text("You may look but not touch.")
    spdx, problem = resolve_license(fs, root)
    assert spdx is None and problem[0] is RejectReason.UNKNOWN_LICENSE


def test_check_allowed_expressions():
    assert check_allowed("MIT") is None
    assert check_allowed("MIT AND Apache-2.0") is None
    assert check_allowed("MIT OR GPL-3.0") is None
    assert check_allowed("(GPL-3.0 OR MIT) AND BSD-3-Clause") is None
    reason, message = check_allowed("MIT AND GPL-3.0")
    assert reason is RejectReason.LICENSE_NOT_ALLOWED and "GPL-3.0" in message
    assert check_allowed("GPL-3.0")[0] is RejectReason.LICENSE_NOT_ALLOWED
    assert check_allowed("GPL-3.0", allow={"GPL-3.0"}) is None
    assert check_allowed("MIT", allow=["Apache-2.0"])[0] is RejectReason.LICENSE_NOT_ALLOWED
    assert check_allowed("")[0] is RejectReason.MISSING_LICENSE
    assert {"MIT", "Apache-2.0", "BSD-3-Clause", "MPL-2.0"} <= DEFAULT_ALLOW
    assert not {"GPL-3.0", "AGPL-3.0", "GPL-2.0"} & DEFAULT_ALLOW


def test_resolve_allowed(tmp_path):
    fs = fsspec.filesystem("file")
    (tmp_path / "LICENSE").write_text(GPL3)
    spdx, problem = resolve_allowed(fs, str(tmp_path))
    assert spdx is None and problem[0] is RejectReason.LICENSE_NOT_ALLOWED
    assert resolve_allowed(fs, str(tmp_path), allow={"GPL-3.0"}) == ("GPL-3.0", None)
