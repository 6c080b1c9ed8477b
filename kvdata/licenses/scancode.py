"""License notices in a text, found by ScanCode's licensedcode (``scancode-toolkit-mini``).

:func:`find_notices` returns the license notices of a text in order, each an SPDX expression
with its lines. Not every ScanCode match is a notice:

- kept: full license texts and notices, ``SPDX-License-Identifier`` lines, and license
  references or tags whose rule ScanCode itself rates fully relevant ("Licensed under the
  MIT License");
- dropped: license *clues*, low-relevance references (the bare word "GPL" in a comment or a
  function name), and partial matches covering less than ``MIN_COVERAGE`` of their rule (a
  disclaimer paragraph that resembles some license's);
- pointers ("See LICENSE for details") are kept as ``pointer`` notices: they say the tree's
  license applies, and name no license themselves;
- text ScanCode sees as license-like but cannot identify becomes a notice whose expression
  holds a ``LicenseRef-scancode-unknown...`` id (``unknown``), which the caller rejects.

ScanCode's index takes seconds and ~1.4 GB to load, so it is loaded only when a text that
needs it arrives, and in a build with worker processes only once, by the build's license
service (:mod:`kvdata.licenses.service`), which the other processes ask. Results are cached by
a hash of the text, in memory and, when a cache folder is configured, in a SQLite store shared
by the build's processes and later builds (``KVDATA_CACHE``, default ``~/.cache/kvdata``), so a
rebuild of the same trees never loads the index.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import re
import threading
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

import xxhash

log = logging.getLogger(__name__)

MIN_COVERAGE = 80.0          # percent of a rule's text a match must cover to count as that license
REFERENCE_MIN_TOKENS = 5     # a fully relevant reference this long is a statement ("use ... governed by the NVIDIA EULA")
SHORT_MATCH_TOKENS = 20      # a match of a less-than-fully-relevant rule shorter than this is a mention
UNKNOWN_SPDX = "LicenseRef-scancode-unknown"
POINTER_SPDX = "LicenseRef-scancode-unknown-license-reference"
_UNKNOWN_REFERENCE = "unknown-license-reference"     # ScanCode's key for "see LICENSE"-style pointers
_MEMO_MAX = 50_000


@dataclass(frozen=True)
class Notice:
    """One license notice in a text: its SPDX expression, first and last line (1-based), and kind.

    ``kind``: ``license`` (an identified license), ``pointer`` (a reference to another file,
    no license of its own) or ``unknown`` (license-like text ScanCode could not identify).
    """

    expression: str
    start_line: int
    end_line: int
    kind: str


def scancode_version() -> str:
    from importlib.metadata import version

    return version("scancode-toolkit-mini")


@functools.lru_cache(maxsize=1)
def _index():
    """ScanCode's license index, loaded once per process (a ~400 MB pickle of millions of objects).

    The cyclic garbage collector is off while it loads: each collection the unpickling would trigger
    walks every object unpickled so far, which more than doubles the load time. (Afterwards the index
    sits in the oldest generation, which is collected only when it has grown by a quarter.)"""
    import gc
    import time

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # typecode's libmagic notice
        from licensedcode.cache import get_index

        started, enabled = time.perf_counter(), gc.isenabled()
        gc.disable()
        try:
            index = get_index()
        finally:
            if enabled:
                gc.enable()
        log.info("ScanCode license index loaded in %.1f s (process %d)", time.perf_counter() - started, os.getpid())
        return index


def _rule_keys(rule) -> list[str]:
    return [k for k in re.findall(r"[\w.+-]+", rule.license_expression) if k not in ("AND", "OR", "WITH")]


def _classify(match, db, on_spdx_line: bool = False) -> Optional[str]:
    """``license``, ``pointer``, ``unknown``, ``unstated`` or None (not a notice) for one ScanCode match.

    ``unstated``: text in ScanCode's "Unstated License" category (a warranty disclaimer, a
    license intro): not a license by itself. ``on_spdx_line``: the match lies on an
    ``SPDX-License-Identifier:`` line, a statement whatever rule matched it (ScanCode matches
    ``SPDX-License-Identifier: GPL-2.0`` by the hash of a short rule rated 99, which would otherwise
    read as a mention).
    """
    rule = match.rule
    keys = _rule_keys(rule)
    if match.matcher == "1-spdx-id" or (on_spdx_line and not rule.is_license_clue):
        return "unknown" if any(k.startswith("unknown") for k in keys) else "license"
    if match.matcher.startswith(("5-undetected", "6-unknown")):
        return "unknown"
    if keys == [_UNKNOWN_REFERENCE] and rule.is_license_reference:
        return "pointer"                                   # "see LICENSE for details"
    if rule.is_license_clue or (rule.is_license_reference
                                and (rule.relevance < 100 or match.len() < REFERENCE_MIN_TOKENS)):
        return None        # a mention: "the GPL", "BSD-3-Clause notices", a function named check_gpl_license
    if keys == [_UNKNOWN_REFERENCE] or rule.is_license_intro:
        return "unstated"
    if match.coverage() < MIN_COVERAGE:
        return None
    if rule.relevance < 100 and match.len() < SHORT_MATCH_TOKENS:
        return None
    if all(db[k].category == "Unstated License" if k in db else k.startswith("unknown") for k in keys):
        return "unknown" if any(k.startswith("unknown") for k in keys) else "unstated"
    return "license"


def _detect(text: str, header: bool) -> tuple[Notice, ...]:
    """The notices of ``text``, each matching stage cached (loads the index on a cache miss).

    Exact matching first (hashes, SPDX lines, rule texts found whole): it answers for most
    notices in microseconds. ScanCode's approximate matching, which finds edited notices and
    unknown license text, costs seconds on a page of prose that merely uses the word
    "license"; it runs only when exact matching found no license and the text reads like a
    grant (``_GRANT_WORDS``).

    A file's header (``header``: its leading comment block, :func:`leading_comments`) is matched
    without its bare copyright lines, so files whose notices differ only in years and holders
    share one cached result.
    """
    if header:
        text = without_copyright_lines(text)
        if not text.strip():
            return ()
    notices = _notices(text, approximate=False)
    if any(n.kind == "license" for n in notices) or not _GRANT_WORDS.search(text):
        return notices
    return _notices(text, approximate=True)


def without_copyright_lines(text: str) -> str:
    """``text`` without the lines that are only a copyright statement (they name no license)."""
    if not _COPYRIGHT_WORD.search(text):
        return text
    return "\n".join(line for line in text.split("\n") if not _COPYRIGHT_LINE.match(line))


#: an ``SPDX-License-Identifier:`` tag (REUSE / SPDX spec; the case of the tag varies in the wild)
SPDX_TAG = re.compile(r"spdx-license-identifier\s*:", re.I)
_GRANT_WORDS = re.compile(r"permission|redistribut|licensed under|terms of|warrant|provided .as is|"
                          r"free software|spdx-license|use, copy|rights reserved", re.I)
_COPYRIGHT_WORD = re.compile(r"copyright|\(c\)|©", re.I)
# a line that is only a copyright statement: no words of a grant, so dropping it changes no match
_COPYRIGHT_LINE = re.compile(r"^[\s/*#;!-]*(copyright|\(c\)|©)(?!.*(licen[cs]|permission|spdx|terms|warrant))", re.I)
_COMMENT_START = re.compile(r'^\s*(//|/\*|\*|#|--|;|\.\. |"""|\'\'\'|<!--|%|rem\b)', re.I)


def starts_with_comment(text: str) -> bool:
    """Whether the first non-blank line of ``text`` is a comment: a file whose first line is code
    has no leading comment block (:func:`leading_comments` would return ``""``)."""
    return _COMMENT_START.match(text) is not None


def leading_comments(text: str, max_lines: int = 200) -> str:
    """The comment block a file starts with that reads like a grant: where its own notice is.

    Comment blocks are C and C++ ``//`` runs and ``/* */`` blocks, ``#`` runs (Python, shell,
    and preprocessor lines such as an include guard), a leading docstring, reST ``..``
    comments. The first block with words of a grant in it is returned (a license header, not
    the API documentation after it); all leading blocks when none has. Stops at the first
    line of code.
    """
    blocks, current, in_block, closer = [], [], False, ""
    for line in text.split("\n", max_lines)[:max_lines]:
        stripped = line.strip()
        if in_block:
            current.append(line)
            if closer in stripped:
                in_block = False
                blocks.append(current)
                current = []
            continue
        if not stripped:
            if current:
                blocks.append(current)
                current = []
            continue
        if stripped.startswith("/*"):
            if current:
                blocks.append(current)
                current = []
            in_block, closer = "*/" not in stripped[2:], "*/"
            current.append(line)
            if not in_block:
                blocks.append(current)
                current = []
            continue
        if stripped.startswith(('"""', "\'\'\'")):
            quote = stripped[:3]
            in_block, closer = quote not in stripped[3:], quote
            current.append(line)
            if not in_block:
                blocks.append(current)
                current = []
            continue
        if (_COMMENT_START.match(line) or stripped.startswith(".. ")
                or (current and line[:1].isspace() and current[0].lstrip().startswith(".."))):
            current.append(line)
            continue
        break
    if current:
        blocks.append(current)
    for block in blocks:
        joined = "\n".join(block)
        if _GRANT_WORDS.search(joined):
            return joined
    return "\n".join("\n".join(b) for b in blocks)


def _notices(text: str, approximate: bool) -> tuple[Notice, ...]:
    """ScanCode's notices of ``text``, cached by its hash (in memory and in the store)."""
    key = xxhash.xxh3_128_digest(text.encode("utf-8", "surrogatepass")) + (b"a" if approximate else b"x")
    hit = _memo.get(key)
    if hit is not None:
        return hit
    store = _store()
    skey = key.hex()
    if store is not None:
        found = store.get_many([skey]).get(skey)
        if found is not None:
            notices = tuple(Notice(**n) for n in json.loads(found))
            _remember(key, notices)
            return notices
    from kvdata.licenses.service import MatchRequest, ask

    notices = ask(MatchRequest(text, approximate))
    if store is not None:
        store.put_many({skey: json.dumps([asdict(n) for n in notices])})
    _remember(key, notices)
    return notices


def match_text(text: str, approximate: bool) -> tuple[Notice, ...]:
    """ScanCode's notices of ``text``, uncached: loads the index in this process on first use.

    Callers go through :func:`find_notices` (cached, and answered by the build's license service
    when this process is attached to one, :mod:`kvdata.licenses.service`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # typecode's libmagic notice, on first import
        from licensedcode.cache import get_licenses_db
        from licensedcode.detection import LicenseDetection, group_matches

        matches = _index().match(query_string=text, unknown_licenses=approximate, approximate=approximate)
        db = get_licenses_db()
    tag_lines = {n for n, line in enumerate(text.split("\n"), start=1) if SPDX_TAG.search(line)}
    classified = [(m, _classify(m, db, any(n in tag_lines for n in range(m.start_line, m.end_line + 1))))
                  for m in matches]
    classified = [(m, k) for m, k in classified if k is not None]
    kind_of = {id(m): k for m, k in classified}
    notices = []
    for group in group_matches([m for m, _ in classified]):
        kinds = {kind_of[id(m)] for m in group}
        start, end = min(m.start_line for m in group), max(m.end_line for m in group)
        licensed = [m for m in group if kind_of[id(m)] == "license"]
        if licensed:
            detection = LicenseDetection.from_matches(matches=licensed)
            spdx = detection.license_expression_spdx if detection is not None else None
            if spdx:
                notices.append(Notice(spdx, start, end, "license"))
                continue
        if "unknown" in kinds:
            notices.append(Notice(UNKNOWN_SPDX, start, end, "unknown"))
        elif "pointer" in kinds:
            notices.append(Notice(POINTER_SPDX, start, end, "pointer"))
    return tuple(notices)


# ----------------------------------------------------------------- the caches
_memo: dict[bytes, tuple[Notice, ...]] = {}
_memo_lock = threading.Lock()


def _store():
    """The persistent cache (``KeyValueStore``) for this ScanCode version, or None when disabled."""
    root = os.environ.get("KVDATA_CACHE", str(Path.home() / ".cache" / "kvdata"))
    if os.environ.get("KVDATA_LICENSE_CACHE", "1") == "0":
        return None
    return _open_store(root, os.getpid())


@functools.lru_cache(maxsize=4)
def _open_store(root: str, pid: int):
    from kvdata.kv_store import KeyValueStore

    try:
        # keyed by ScanCode's version and this module's text: a change of either rules starts afresh
        rules = xxhash.xxh3_64_hexdigest(Path(__file__).read_bytes())[:8]
        return KeyValueStore(Path(root) / "licenses", f"scancode-{scancode_version()}-{rules}.sqlite")
    except Exception:  # noqa: BLE001 - an unwritable cache folder costs speed, not results
        return None


def find_notices(text: str, header: bool = False) -> tuple[Notice, ...]:
    """The license notices of ``text`` in order (see the module docstring).

    ``header``: ``text`` is a source file's leading comment block (:func:`leading_comments`, what
    :func:`kvdata.licenses.file_license` passes), not a license file: it is matched without its
    bare copyright lines, so files that differ only in their years share one result.
    """
    return _detect(text, header)


def _remember(key: bytes, notices: tuple[Notice, ...]) -> None:
    with _memo_lock:
        if len(_memo) >= _MEMO_MAX:
            _memo.clear()
        _memo[key] = notices


def license_of_name(name: str) -> Optional[str]:
    """The SPDX expression a license *name* stands for ("Apache License 2.0", "BSD 3-Clause",
    "The MIT License"), when ScanCode matches all of it to one license; else None."""
    key = b"name:" + xxhash.xxh3_128_digest(name.encode("utf-8", "surrogatepass"))
    if key in _names:
        return _names[key]
    store = _store()
    if store is not None:
        found = store.get_many([key.hex()]).get(key.hex())
        if found is not None:
            _names[key] = json.loads(found)
            return _names[key]
    from kvdata.licenses.service import NameRequest, ask

    spdx = ask(NameRequest(name))
    _names[key] = spdx
    if store is not None:
        store.put_many({key.hex(): json.dumps(spdx)})
    return spdx


_names: dict[bytes, Optional[str]] = {}


def match_name(name: str) -> Optional[str]:
    """:func:`license_of_name` uncached: loads the index in this process on first use."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # imported only on a cache miss: ~0.6 s per process
        from licensedcode.detection import LicenseDetection

        matches = [m for m in _index().match(query_string=name)
                   if m.coverage() >= 100 and not m.rule.is_license_clue and not m.matcher.startswith("6-")]
    spdx = None
    if matches:
        covered = sum(m.len() for m in matches)
        words = len(re.findall(r"\w+", name))
        detection = LicenseDetection.from_matches(matches=matches)
        if detection is not None and covered >= max(1, words - 1):   # "license" may be left unmatched
            spdx = detection.license_expression_spdx or None
    if spdx and "unknown" in spdx:
        spdx = None
    return spdx
