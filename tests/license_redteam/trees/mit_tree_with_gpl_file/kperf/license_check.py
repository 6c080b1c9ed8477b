"""Dependency audit helpers used by ``kperf doctor``.

These helpers look at the metadata of installed plugins and warn when a
plugin declares a copyleft license, because kperf wheels are redistributed
inside vendor containers.
"""

import importlib.metadata as md

COPYLEFT_MARKERS = ("GPL", "AGPL", "LGPL", "GNU General Public License")


def check_gpl_license(dist_name: str) -> bool:
    """Return True if the distribution's License field mentions the GPL."""
    meta = md.metadata(dist_name)
    text = (meta.get("License") or "") + " ".join(meta.get_all("Classifier") or [])
    return any(marker in text for marker in COPYLEFT_MARKERS)


def audit_plugins(names):
    flagged = []
    for name in names:
        # not GPL compatible? then the vendor container cannot ship it
        if check_gpl_license(name):
            flagged.append(name)
    if flagged:
        print("warning: plugins under the GNU GPL v2 or v3: " + ", ".join(flagged))
    return flagged
