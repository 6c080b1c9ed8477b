"""Licenses: the SPDX expression of every row, and the build's allow-list over expressions.

- :mod:`.scancode`: license notices in a text, found by ScanCode's licensedcode;
- :mod:`.resolve`: the license of a row (its file's header, a declared license, the tree's own)
  and of a tree (the first notice of its LICENSE file);
- :mod:`.expressions`: SPDX expressions (``license-expression``) and the allow-list rules.
"""
from kvdata.licenses.expressions import (DEFAULT_ALLOW, AllowDecision, LicenseExpressionError, allow_set, canonical,
                                         check_allowed, evaluate_allow, is_unknown, try_canonical)
from kvdata.licenses.resolve import (LICENSE_FILE_NAMES, LicenseFinding, TreeLicense, declared_expression,
                                     file_license, license_root, row_license, tree_license)

__all__ = [
    "DEFAULT_ALLOW", "AllowDecision", "LicenseExpressionError", "allow_set", "canonical", "check_allowed",
    "evaluate_allow", "is_unknown", "try_canonical", "LICENSE_FILE_NAMES", "LicenseFinding", "TreeLicense",
    "declared_expression", "file_license", "license_root", "row_license", "tree_license", "normalize_spdx",
]

#: The older name of :func:`declared_expression`.
normalize_spdx = declared_expression

