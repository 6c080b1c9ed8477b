"""Licenses: SPDX ids from LICENSE texts and metadata names, and the build's allow-list.

Every row of the corpus carries one SPDX id (or an ``AND``/``OR`` expression of them).
A builder gets it from :func:`resolve_license`: a license *declared* for the source (a
Source option or a record field) wins when it names a known license; otherwise the
LICENSE file at the root of the upstream tree is read and recognised by a few
distinctive phrases. Anything that cannot be pinned to an id is a reject, never a guess.

The phrase table below is written for this project: each license is recognised by
sentences that occur in its canonical text and in no other license of the table. The
order matters where texts contain each other (AGPL before GPL, LGPL before GPL,
BSD-3 before BSD-2, 0BSD/ISC before MIT).
"""
from __future__ import annotations

import re
from typing import Iterable, Optional, Union

from kvdata.schema import RejectReason

Problem = tuple[RejectReason, str]

# ----------------------------------------------------------------- the allow-list
#: Licenses whose code may go into a training corpus that is itself redistributed.
#: Permissive licenses (attribution at most) and file-level weak copyleft (MPL-2.0,
#: whose obligations attach to the modified files, which we ship unmodified with their
#: provenance). Strong/network copyleft (GPL, AGPL) and LGPL are left out because a
#: mixed corpus cannot honour their "same license for derived works" terms row by row;
#: a build that wants them passes its own allow-list.
DEFAULT_ALLOW: frozenset[str] = frozenset({
    "MIT", "MIT-0", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "0BSD", "ISC",
    "Unlicense", "CC0-1.0", "BSL-1.0", "Zlib", "MPL-2.0", "CC-BY-4.0", "PSF-2.0",
    "NCSA", "UPL-1.0",
})

# ----------------------------------------------------------------- text detection
# (spdx id, phrases that must ALL occur in the normalised text). First match wins.
_TEXT_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Full texts first, by their preambles: each GPL-family text names its siblings
    # ("use the GNU Lesser General Public License instead", "Use with the GNU Affero ...").
    ("AGPL-3.0", ("the gnu affero general public license is a free, copyleft license",)),
    ("GPL-3.0", ("the gnu general public license is a free, copyleft license for software",)),
    ("LGPL-3.0", ("this version of the gnu lesser general public license incorporates the terms",)),
    ("LGPL-2.1", ("gnu lesser general public license", "version 2.1, february 1999")),
    ("GPL-2.0", ("gnu general public license", "version 2, june 1991")),
    # Then the short notices placed in file headers / READMEs.
    ("AGPL-3.0", ("under the terms of the gnu affero general public license", "version 3")),
    ("LGPL-3.0", ("under the terms of the gnu lesser general public license", "version 3")),
    ("LGPL-2.1", ("under the terms of the gnu lesser general public license", "version 2.1")),
    ("GPL-3.0", ("under the terms of the gnu general public license", "version 3")),
    ("GPL-2.0", ("under the terms of the gnu general public license", "version 2")),
    ("MPL-2.0", ("mozilla public license", "2.0")),
    ("Apache-2.0", ("apache license", "version 2.0")),
    ("Apache-2.0", ("licensed under the apache license, version 2.0",)),
    ("BSL-1.0", ("boost software license", "version 1.0")),
    ("CC0-1.0", ("cc0 1.0 universal",)),
    ("CC0-1.0", ("creative commons", "cc0")),
    ("CC-BY-4.0", ("creative commons attribution 4.0 international",)),
    ("Unlicense", ("this is free and unencumbered software released into the public domain",)),
    ("NCSA", ("university of illinois/ncsa open source license",)),
    ("UPL-1.0", ("universal permissive license",)),
    ("PSF-2.0", ("python software foundation license",)),
    ("Zlib", ("this software is provided 'as-is', without any express or implied warranty",
              "altered source versions must be plainly marked as such")),
    ("BSD-3-Clause", ("redistributions of source code must retain the above copyright notice",
                      "redistributions in binary form must reproduce the above copyright notice",
                      "used to endorse or promote products derived from this software")),
    ("BSD-2-Clause", ("redistributions of source code must retain the above copyright notice",
                      "redistributions in binary form must reproduce the above copyright notice")),
    ("0BSD", ("permission to use, copy, modify, and/or distribute this software for any purpose "
              "with or without fee is hereby granted.",
              "the software is provided \"as is\" and the author disclaims all warranties")),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose "
             "with or without fee is hereby granted, provided that the above copyright notice "
             "and this permission notice appear in all copies",)),
    ("ISC", ("permission to use, copy, modify, and distribute this software for any purpose "
             "with or without fee is hereby granted, provided that the above copyright notice "
             "and this permission notice appear in all copies",)),
    ("MIT-0", ("permission is hereby granted, free of charge, to any person obtaining a copy",
               "to permit persons to whom the software is furnished to do so.")),
    ("MIT", ("permission is hereby granted, free of charge, to any person obtaining a copy",
             "the above copyright notice and this permission notice shall be included")),
)

_SPDX_LINE = re.compile(r"SPDX-License-Identifier:\s*([^\n\r*]+?)\s*(?:\*/|-->|$)", re.M)


def _normalise_text(text: str) -> str:
    """Lower case, one space for any run of whitespace, comment leaders removed, straight quotes."""
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    text = re.sub(r"^[ \t]*(#|//|\*|;)+", " ", text, flags=re.M)
    return re.sub(r"\s+", " ", text).strip().lower()


def _matches(rule_phrases: tuple[str, ...], text: str) -> bool:
    return all(p in text for p in rule_phrases)


def detect_spdx_from_text(text: str) -> Optional[str]:
    """The SPDX id of a LICENSE file's text, or None if it is not recognised.

    An ``SPDX-License-Identifier:`` line wins; otherwise the first rule whose phrases all
    occur. MIT-0 is MIT without the "shall be included" condition, so MIT is tested
    after it only in the sense that MIT-0 requires the *absence* of that condition.
    """
    if not text:
        return None
    tag = _SPDX_LINE.search(text)
    if tag:
        spdx = normalize_spdx(tag.group(1))
        if spdx:
            return spdx
    norm = _normalise_text(text)
    for spdx, phrases in _TEXT_RULES:
        if not _matches(phrases, norm):
            continue
        if spdx == "MIT-0" and "the above copyright notice and this permission notice shall be included" in norm:
            continue
        return spdx
    return None


# ----------------------------------------------------------------- metadata names
def _key(name: str) -> str:
    """A loose comparison key: lower case, only letters and digits."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


_CANONICAL = sorted(DEFAULT_ALLOW | {
    "GPL-2.0", "GPL-3.0", "LGPL-2.1", "LGPL-3.0", "AGPL-3.0", "CC-BY-SA-4.0", "CC-BY-NC-4.0",
    "EPL-2.0", "WTFPL", "Artistic-2.0",
})

# alias key -> SPDX id. Canonical ids are added below, each under its own key.
_ALIASES: dict[str, str] = {
    "mitlicense": "MIT", "expat": "MIT", "themitlicense": "MIT",
    "apache2": "Apache-2.0", "apache20": "Apache-2.0", "apachelicense20": "Apache-2.0",
    "apachelicenseversion20": "Apache-2.0", "apachev2": "Apache-2.0", "apache2license": "Apache-2.0",
    "asl20": "Apache-2.0", "apachesoftwarelicense": "Apache-2.0", "apache": "Apache-2.0",
    "bsd3clause": "BSD-3-Clause", "bsd3": "BSD-3-Clause", "bsd3clauselicense": "BSD-3-Clause",
    "newbsd": "BSD-3-Clause", "modifiedbsd": "BSD-3-Clause", "bsdnew": "BSD-3-Clause",
    "bsd3clausenewormodifiedlicense": "BSD-3-Clause",
    "bsd2clause": "BSD-2-Clause", "bsd2": "BSD-2-Clause", "simplifiedbsd": "BSD-2-Clause",
    "freebsd": "BSD-2-Clause", "bsd2clauselicense": "BSD-2-Clause",
    "bsd2clausesimplifiedlicense": "BSD-2-Clause",
    "isclicense": "ISC", "unlicense": "Unlicense", "theunlicense": "Unlicense",
    "cc0": "CC0-1.0", "cc010": "CC0-1.0", "publicdomaincc0": "CC0-1.0",
    "mpl20": "MPL-2.0", "mozillapubliclicense20": "MPL-2.0",
    "ccby40": "CC-BY-4.0", "creativecommonsattribution40": "CC-BY-4.0",
    "ccbysa40": "CC-BY-SA-4.0", "ccbync40": "CC-BY-NC-4.0",
    "bsl10": "BSL-1.0", "boost": "BSL-1.0", "boostsoftwarelicense10": "BSL-1.0",
    "zlib": "Zlib", "zliblicense": "Zlib", "psf": "PSF-2.0", "psf20": "PSF-2.0",
    "pythonsoftwarefoundationlicense": "PSF-2.0",
    "gpl2": "GPL-2.0", "gpl20": "GPL-2.0", "gplv2": "GPL-2.0", "gpl20only": "GPL-2.0",
    "gpl20orlater": "GPL-2.0", "gnugplv2": "GPL-2.0",
    "gpl3": "GPL-3.0", "gpl30": "GPL-3.0", "gplv3": "GPL-3.0", "gpl30only": "GPL-3.0",
    "gpl30orlater": "GPL-3.0", "gnugplv3": "GPL-3.0", "gnugeneralpubliclicensev30": "GPL-3.0",
    "lgpl21": "LGPL-2.1", "lgplv21": "LGPL-2.1", "lgpl21only": "LGPL-2.1", "lgpl21orlater": "LGPL-2.1",
    "lgpl3": "LGPL-3.0", "lgpl30": "LGPL-3.0", "lgplv3": "LGPL-3.0", "lgpl30only": "LGPL-3.0",
    "lgpl30orlater": "LGPL-3.0",
    "agpl3": "AGPL-3.0", "agpl30": "AGPL-3.0", "agplv3": "AGPL-3.0", "agpl30only": "AGPL-3.0",
    "agpl30orlater": "AGPL-3.0",
    "ncsa": "NCSA", "uiucncsa": "NCSA", "upl": "UPL-1.0", "upl10": "UPL-1.0",
    "mit0": "MIT-0", "0bsd": "0BSD", "zerobsd": "0BSD",
}
for _spdx in _CANONICAL:
    _ALIASES.setdefault(_key(_spdx), _spdx)

# "Apache License 2.0", "BSD 3-Clause License": drop a trailing/leading "license"/"licence".
_LICENSE_WORD = re.compile(r"^(the)?(.*?)(license|licence)?$")


def _normalize_one(name: str) -> Optional[str]:
    key = _key(name)
    if not key:
        return None
    if key in _ALIASES:
        return _ALIASES[key]
    stripped = _LICENSE_WORD.match(key).group(2).replace("licence", "license")
    if stripped in _ALIASES:
        return _ALIASES[stripped]
    stripped = stripped.replace("license", "")
    return _ALIASES.get(stripped)


def normalize_spdx(name: Union[str, Iterable[str], None]) -> Optional[str]:
    """An SPDX id (or expression) for a metadata license name, or None if unknown.

    Accepts ids, common aliases ("mit", "Apache License 2.0", "BSD 3-Clause"), SPDX
    expressions ("MIT OR Apache-2.0", "(MIT AND Zlib)") and lists; a list of several
    distinct licenses becomes an ``AND`` expression (all of them apply). Any unknown
    part makes the whole name unknown: a half-recognised expression is not an answer.
    """
    if name is None:
        return None
    if not isinstance(name, str):
        try:
            items = [n for n in name]
        except TypeError:
            return None
        parts = []
        for item in items:
            if not isinstance(item, str):
                return None
            spdx = normalize_spdx(item)
            if spdx is None:
                return None
            if spdx not in parts:
                parts.append(spdx)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else " AND ".join(parts)
    text = name.strip().strip("()").strip()
    if not text:
        return None
    for op in (" OR ", " AND "):
        if op in text or op.lower() in text:
            pieces = re.split(op, text, flags=re.I)
            spdx_parts = [_normalize_one(p.strip().strip("()")) for p in pieces]
            if any(p is None for p in spdx_parts):
                return None
            unique = list(dict.fromkeys(spdx_parts))
            return unique[0] if len(unique) == 1 else op.join(unique)
    return _normalize_one(text)


# ----------------------------------------------------------------- files
#: File names (case-insensitive) recognised as a tree's license, in order of preference.
LICENSE_FILE_NAMES: tuple[str, ...] = (
    "LICENSE", "LICENSE.txt", "LICENSE.md", "LICENSE.rst", "LICENCE", "LICENCE.txt",
    "LICENCE.md", "COPYING", "COPYING.txt", "COPYING.md", "LICENSE-MIT", "LICENSE-APACHE",
)


def find_license_file(fs, root: str) -> Optional[str]:
    """The path of the license file directly under ``root`` on ``fs``, or None."""
    try:
        entries = fs.ls(root, detail=False)
    except (OSError, FileNotFoundError, NotADirectoryError):
        return None
    by_name = {}
    for entry in entries:
        base = str(entry).rstrip("/").rsplit("/", 1)[-1]
        by_name.setdefault(base.lower(), str(entry))
    for wanted in LICENSE_FILE_NAMES:
        path = by_name.get(wanted.lower())
        if path is not None:
            try:
                if fs.isfile(path):
                    return path
            except OSError:
                continue
    return None


def resolve_license(fs, root: str, declared=None) -> tuple[Optional[str], Optional[Problem]]:
    """(SPDX id, None) for a tree, or (None, problem) when no id can be given.

    A ``declared`` license (a Source option or a record field) wins when it normalises;
    a declared name that does not normalise is still reported when the tree has no
    recognisable LICENSE file either, so the message names both.
    """
    if declared is not None and declared != "" and declared != []:
        spdx = normalize_spdx(declared)
        if spdx:
            return spdx, None
    path = find_license_file(fs, root)
    if path is None:
        if declared:
            return None, (RejectReason.UNKNOWN_LICENSE,
                          f"declared license {declared!r} is not a known SPDX name and {root} has no LICENSE file")
        return None, (RejectReason.MISSING_LICENSE, f"no license declared and no LICENSE file under {root}")
    try:
        with fs.open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        return None, (RejectReason.MISSING_LICENSE, f"{path}: cannot be read ({e})")
    spdx = detect_spdx_from_text(text)
    if spdx is None:
        extra = f" (declared {declared!r} is not known either)" if declared else ""
        return None, (RejectReason.UNKNOWN_LICENSE, f"{path}: license text not recognised{extra}")
    return spdx, None


# ----------------------------------------------------------------- allow-list check
def _split(expr: str, op: str) -> list[str]:
    return [p.strip().strip("()").strip() for p in re.split(rf"\s+{op}\s+", expr.strip().strip("()"), flags=re.I)]


def _allowed(expr: str, allow: frozenset[str]) -> bool:
    """``A OR B`` needs any part allowed, ``A AND B`` all parts; OR binds looser than AND."""
    ors = _split(expr, "OR")
    if len(ors) > 1:
        return any(_allowed(p, allow) for p in ors)
    ands = _split(expr, "AND")
    if len(ands) > 1:
        return all(_allowed(p, allow) for p in ands)
    return ands[0] in allow


def check_allowed(spdx: str, allow: Optional[Iterable[str]] = None) -> Optional[Problem]:
    """None when ``spdx`` (an id or an AND/OR expression) is allowed, else the problem."""
    allow_set = DEFAULT_ALLOW if allow is None else frozenset(allow)
    if not spdx or not isinstance(spdx, str):
        return RejectReason.MISSING_LICENSE, "no license"
    if _allowed(spdx, allow_set):
        return None
    return RejectReason.LICENSE_NOT_ALLOWED, f"license {spdx} is not in the allow-list"


def resolve_allowed(fs, root: str, declared=None,
                    allow: Optional[Iterable[str]] = None) -> tuple[Optional[str], Optional[Problem]]:
    """:func:`resolve_license` then :func:`check_allowed`: the one call a builder makes."""
    spdx, problem = resolve_license(fs, root, declared)
    if problem:
        return None, problem
    problem = check_allowed(spdx, allow)
    return (None, problem) if problem else (spdx, None)
