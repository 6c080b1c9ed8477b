"""qa_rocm: QA mined from rocBLAS/rocSOLVER-style trees (fixtures written here + the bundled sample)."""
from __future__ import annotations

import collections
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from kvdata.builders import source_class
from kvdata.builders.base import SourceOptionError
from kvdata.builders.qa_rocm import (KINDS, Entry, LineIndex, QaRocmSource, family_stem, group_label,
                                     is_grounded)
from kvdata.schema import QARecord, Reject, RejectReason, arrow_schema

MIT = "SPDX-License-Identifier: MIT\n\nA short MIT notice for a test fixture.\n"

# A header in the upstream layout, written for this test. What it must yield:
#   vscale group (@{, 2 decls, 2 params) : purpose 1, parameter 2, signature 2, precisions 1
#   type doc block before a typedef     : nothing (not a function group)
#   old-style block before one decl     : purpose 1, parameter 1, signature 1 (next decl is another family)
#   undocumented-family declaration     : nothing (no doc block)
#   empty @{ group                      : 1 Reject NO_DECLARATION
#   solve group with an empty @param    : purpose 1, parameter 1 + 1 Reject MISSING_FIELD, signature 3, precisions 1
#   unterminated comment at the end     : 1 Reject MALFORMED
HEADER = r"""/* fixture header */
#include "rocblas-export.h"

/*! @{
    \brief <b> Level 1 </b>

    \details
    vscale multiplies the vector \p x by \f$\alpha\f$:

        x := alpha * x

    @param[in]
    n         [rocblas_int]
              number of entries.
    @param[inout]
    x         device pointer to the vector &lt;overwritten&gt;.
    ********************************************************************/
ROCBLAS_EXPORT rocblas_status rocblas_svscale(rocblas_int n, float* x);

ROCBLAS_EXPORT rocblas_status rocblas_dvscale(rocblas_int n,
                                              double*     x);
//! @}

/*! \brief A mode flag, documented but not a function. */
typedef enum fixture_mode_ { fixture_mode_a = 0 } fixture_mode;

/*! \brief HANDLE_SIZE returns the bytes a handle needs.
    See \ref rocblas_create_thing.

    @param[out]
    size      pointer to size_t.\n
              The size in bytes.
 ******************************************************************************/
ROCBLAS_EXPORT rocblas_status rocblas_handle_size(size_t* size);
ROCBLAS_EXPORT rocblas_status rocblas_create_thing(void);

/*! @{
    \brief An empty group.
    @param[in]
    n         nothing declares me.
*/
//! @}

/*! @{
    \brief SOLVE solves a tiny system.
    \details
    @param[in]
    n         rocblas_int. n >= 0.\n
              The order.
    @param[in]
    lda
    ********/
ROCBLAS_EXPORT rocblas_status rocblas_ssolve(rocblas_int n, float* A, rocblas_int lda);
ROCBLAS_EXPORT rocblas_status rocblas_dsolve(rocblas_int n, double* A, rocblas_int lda);
ROCBLAS_EXPORT rocblas_status rocblas_csolve(rocblas_int n, rocblas_float_complex* A, rocblas_int lda);
//! @}

/*! @{ \brief this block never ends
ROCBLAS_EXPORT rocblas_status rocblas_lost(void);
"""

DOCS = """\
.. _fixture-page:

**************
Fixture page
**************

The page intro, with ``inline code`` and a :ref:`link <fixture-page>`.

Vector scaling
==============

.. doxygenfunction:: rocblas_svscale
   :outline:
.. doxygenfunction:: rocblas_dvscale

Only structure
==============

.. toctree::
   :maxdepth: 1
"""

EXPECTED_KINDS = {"purpose": 3, "parameter": 4, "signature": 6, "precisions": 2, "rst": 1, "rst_functions": 1}
EXPECTED_REJECTS = {RejectReason.NO_DECLARATION: 1, RejectReason.MISSING_FIELD: 1, RejectReason.MALFORMED: 1}


def write_tree(root: Path, header: str = HEADER, docs: str | None = DOCS, license_text: str | None = MIT,
               header_path: str = "library/include/internal/rocblas-functions.h") -> Path:
    (root / header_path).parent.mkdir(parents=True, exist_ok=True)
    (root / header_path).write_text(header)
    if docs is not None:
        (root / "docs/reference").mkdir(parents=True, exist_ok=True)
        (root / "docs/reference/page.rst").write_text(docs)
    if license_text is not None:
        (root / "LICENSE").write_text(license_text)
    return root


def read_all(path, **options) -> tuple[list[QARecord], list[Reject]]:
    items = list(QaRocmSource(str(path), **options).read())
    records = [i for i in items if isinstance(i, QARecord)]
    rejects = [i for i in items if isinstance(i, Reject)]
    assert len(records) + len(rejects) == len(items)
    return records, rejects


@pytest.fixture
def fixture_tree(tmp_path) -> Path:
    return write_tree(tmp_path / "rocBLAS")


# ---------------------------------------------------------------- counts
def test_fixture_counts_per_kind(fixture_tree):
    records, rejects = read_all(fixture_tree)
    assert dict(collections.Counter(r.kind for r in records)) == EXPECTED_KINDS
    assert dict(collections.Counter(r.reason for r in rejects)) == EXPECTED_REJECTS


def test_fixture_rejects_say_what_and_where(fixture_tree):
    _, rejects = read_all(fixture_tree)
    by_message = {r.message: r for r in rejects}
    empty_group = next(r for m, r in by_message.items() if "declares no exported function" in m)
    empty_param = next(r for m, r in by_message.items() if "lda" in m and "no description" in m)
    unterminated = next(r for m, r in by_message.items() if "never closed" in m)
    header = (fixture_tree / "library/include/internal/rocblas-functions.h").read_text().split("\n")
    for reject in (empty_group, empty_param, unterminated):
        path, line = reject.ref.rsplit(":", 1)
        assert path == "library/include/internal/rocblas-functions.h"
        assert header[int(line) - 1].lstrip().startswith("/*!")
        assert reject.config == "qa" and reject.source == "qa_rocm"
    assert empty_param.id is not None          # an entry-level reject names the row it would have been
    assert empty_group.id is None


def test_fixture_answers(fixture_tree):
    records, _ = read_all(fixture_tree)
    by_question = {r.question: r for r in records}
    purpose = by_question["What does rocblas_<type>vscale do in rocBLAS?"]
    assert "x := alpha * x" in purpose.answer and "$\\alpha$" in purpose.answer
    assert "<b>" not in purpose.answer and "\\p" not in purpose.answer
    param_x = by_question["In rocBLAS, what does the parameter `x` of rocblas_<type>vscale specify?"]
    assert param_x.answer == "[inout] device pointer to the vector <overwritten>."
    old_style = by_question["What does rocblas_handle_size do in rocBLAS?"]
    assert "rocblas_create_thing" in old_style.answer and "\\ref" not in old_style.answer
    precisions = {r.symbol: r.answer for r in records if r.kind == "precisions"}
    assert precisions == {"rocblas_svscale": "rocblas_svscale, rocblas_dvscale",
                          "rocblas_ssolve": "rocblas_ssolve, rocblas_dsolve, rocblas_csolve"}
    signature = by_question["What is the C declaration of rocblas_dvscale in rocBLAS?"]
    assert signature.answer == "rocblas_status rocblas_dvscale(rocblas_int n, double* x)"
    functions = next(r for r in records if r.kind == "rst_functions")
    assert functions.answer == "rocblas_svscale, rocblas_dvscale"
    assert functions.question.endswith('section "Vector scaling" of the rocBLAS documentation page "Fixture page"?')
    prose = next(r for r in records if r.kind == "rst")
    assert prose.answer == "The page intro, with inline code and a link."


# ---------------------------------------------------------------- grounding
def test_every_line_range_holds_its_answer(fixture_tree, sample_dir):
    for root in (fixture_tree, sample_dir / "qa_rocm" / "rocBLAS", sample_dir / "qa_rocm" / "rocSOLVER"):
        records, _ = read_all(root)
        assert records
        for r in records:
            lines = (Path(root) / r.provenance.path).read_text().split("\n")
            p = r.provenance
            assert 1 <= p.line_start <= p.line_end <= len(lines)
            span = "\n".join(lines[p.line_start - 1:p.line_end])
            assert is_grounded(r.answer, span), (r.kind, r.question)
            if r.kind == "signature":
                assert r.symbol in lines[p.line_start - 1]
            if r.kind == "parameter":          # the range starts at the @param line
                assert "@param" in lines[p.line_start - 1]


def test_is_grounded_checks_order_and_presence():
    source = "    @param[in]\n    lda  [rocblas_int]\n         leading dimension of A."
    assert is_grounded("[in] [rocblas_int] leading dimension of A.", source)
    assert is_grounded("in rocblas_int\n\nleading   dimension", source)
    assert not is_grounded("leading dimension of B.", source)       # a token that is not there
    assert not is_grounded("dimension leading", source)              # out of order
    assert not is_grounded("  ...  ", source)                        # nothing to ground


def test_ungrounded_entry_becomes_reject(fixture_tree):
    source = QaRocmSource(str(fixture_tree))
    index = LineIndex("line one\nthe real text\nline three")
    kept = source._item(Entry("purpose", "q?", "the real text", "rocblas_x", 2, 2), "h.h", "h.h:2",
                        "rocblas", {"license": "MIT"}, index)
    made_up = source._item(Entry("purpose", "q?", "an invented answer", "rocblas_x", 2, 2), "h.h", "h.h:2",
                           "rocblas", {"license": "MIT"}, index)
    assert isinstance(kept, QARecord)
    assert isinstance(made_up, Reject) and made_up.reason == RejectReason.UNGROUNDED
    assert made_up.id == QARecord("rocblas", "rocblas", "purpose", "q?", "an invented answer", "rocblas_x",
                                  "MIT", kept.provenance).id


# ---------------------------------------------------------------- malformed input
def test_missing_license_rejects_every_unit(tmp_path):
    records, rejects = read_all(write_tree(tmp_path / "rocBLAS", license_text=None))
    assert records == []
    # 3 usable groups + 2 rst sections lose their license; the 2 malformed units keep their own reason.
    assert dict(collections.Counter(r.reason for r in rejects)) == {
        RejectReason.MISSING_LICENSE: 5, RejectReason.NO_DECLARATION: 1, RejectReason.MALFORMED: 1}


def test_declared_license_overrides_missing_file(tmp_path):
    records, _ = read_all(write_tree(tmp_path / "rocBLAS", license_text=None), license="MIT")
    assert records and {r.license for r in records} == {"MIT"}


def test_bad_encoding_file_is_rejected_alone(tmp_path):
    root = write_tree(tmp_path / "rocBLAS")
    (root / "library/include/internal/broken.h").write_bytes(b"/*! \\brief caf\xe9 */\n")
    records, rejects = read_all(root)
    reasons = {r.ref: r.reason for r in rejects}
    assert reasons["library/include/internal/broken.h"] == RejectReason.BAD_ENCODING
    assert dict(collections.Counter(r.kind for r in records)) == EXPECTED_KINDS


def test_unclosed_member_group_is_rejected(tmp_path):
    header = HEADER.replace("//! @}\n\n/*! \\brief A mode flag", "\n/*! \\brief A mode flag", 1)
    records, rejects = read_all(write_tree(tmp_path / "rocBLAS", header=header))
    assert any("not closed with @}" in r.message for r in rejects)
    assert not any(r.symbol == "rocblas_svscale" and r.kind != "rst_functions" for r in records)


def test_missing_tree_and_tree_without_headers(tmp_path):
    _, rejects = read_all(tmp_path / "nowhere")
    assert [r.reason for r in rejects] == [RejectReason.MISSING_FILE]
    (tmp_path / "empty").mkdir()
    _, rejects = read_all(tmp_path / "empty")
    assert [r.reason for r in rejects] == [RejectReason.MISSING_FILE]


# ---------------------------------------------------------------- ids, library, provenance
def test_ids_unique_and_stable(fixture_tree, sample_dir):
    for root in (fixture_tree, sample_dir / "qa_rocm" / "rocBLAS", sample_dir / "qa_rocm" / "rocSOLVER"):
        first, _ = read_all(root)
        again, _ = read_all(root)
        ids = [r.id for r in first]
        assert len(ids) == len(set(ids))
        assert ids == [r.id for r in again]


def test_library_repo_and_options(tmp_path):
    solver = write_tree(tmp_path / "some-tree", header=HEADER.replace("ROCBLAS_EXPORT", "ROCSOLVER_EXPORT"),
                        header_path="library/include/solver.h")
    records, _ = read_all(solver)
    assert {r.library for r in records} == {"rocsolver"}
    assert {r.kind for r in records} >= {"rst", "rst_functions"}      # the docs take the headers' library
    assert {r.provenance.repo for r in records} == {"ROCm/rocSOLVER"}
    assert all("rocSOLVER" in r.question for r in records)
    records, _ = read_all(solver, library="rocblas", repo="me/fork", commit="abc123", subset="qa")
    assert {(r.library, r.provenance.repo, r.provenance.commit, r.subset) for r in records} == {
        ("rocblas", "me/fork", "abc123", "qa")}
    with pytest.raises(SourceOptionError, match="cublas"):
        QaRocmSource(str(solver), library="cublas")
    with pytest.raises(SourceOptionError, match="licence"):         # a typo is not silently ignored
        QaRocmSource(str(solver), licence="MIT")
    records, _ = read_all(solver, docs="false")
    assert not {r.kind for r in records} & {"rst", "rst_functions"}


def test_reads_through_fsspec_url(fixture_tree):
    import fsspec

    mem = fsspec.filesystem("memory")
    for path in fixture_tree.rglob("*"):
        if path.is_file():
            mem.pipe(f"/qa-fixture/rocBLAS/{path.relative_to(fixture_tree).as_posix()}", path.read_bytes())
    try:
        records, rejects = read_all("memory://qa-fixture/rocBLAS")
        assert dict(collections.Counter(r.kind for r in records)) == EXPECTED_KINDS
        assert {r.provenance.path for r in records} == {"library/include/internal/rocblas-functions.h",
                                                         "docs/reference/page.rst"}
    finally:
        mem.rm("/qa-fixture", recursive=True)


def test_family_labels():
    assert family_stem("rocsolver_sgetrf") == "rocsolver_<type>getrf"
    assert family_stem("rocblas_isamax") == "rocblas_i<type>amax"
    assert family_stem("rocblas_gemm_ex") == "rocblas_gemm_ex"
    assert group_label(["rocblas_sdot", "rocblas_ddot", "rocblas_cdotu"]) == "rocblas_<type>dot"
    assert group_label(["rocblas_create_handle"]) == "rocblas_create_handle"


# ---------------------------------------------------------------- the bundled sample
def test_sample_builds_with_one_reject_and_every_kind(sample_dir):
    entries = yaml.safe_load((sample_dir / "qa_rocm" / "sources.yaml").read_text())
    assert {e["kind"] for e in entries} == {"qa_rocm"}
    kinds, rejects, rows = collections.Counter(), [], []
    for e in entries:
        source = source_class(e["kind"])(str(sample_dir / "qa_rocm" / e["path"]), **(e.get("options") or {}))
        for item in source.read():
            if isinstance(item, Reject):
                rejects.append(item)
            else:
                kinds[item.kind] += 1
                rows.append(item.to_row())
    assert set(kinds) == set(KINDS)
    assert collections.Counter((r.source, r.reason) for r in rejects) == {
        ("qa_rocblas", RejectReason.NO_DECLARATION): 1,
        ("qa_rocblas", RejectReason.BOILERPLATE): 15,    # handle x8, incx x6, incy x4: the first of each kept
        ("qa_rocsolver", RejectReason.BOILERPLATE): 6}   # `[in] rocblas_handle.`: nothing but its type
    table = pa.Table.from_pylist(rows, schema=arrow_schema("qa"))
    assert table.num_rows == sum(kinds.values())
    assert set(table.column("library").to_pylist()) == {"rocblas", "rocsolver"}
    assert set(table.column("license").to_pylist()) == {"MIT"}


# ---------------------------------------------------------------- boilerplate parameter entries
# Five groups written for this test. Per parameter, what the boilerplate rule must do:
#   handle  `rocblas_handle.` in all five          : nothing beyond its type -> 5 rejects
#   n       `[rocblas_int] number of entries.` x4,
#           plus one markup/case variant (dot)      : one text x5 > 3 -> first (scal) kept, 4 rejects
#   x       a different text in each group          : 5 kept
#   incx    `[rocblas_int] stride of x.` x3          : 3 <= 3 -> all kept
#           `rocblas_int.` x2 (swap, dot)           : its type only -> 2 rejects
BOILER_GROUP = r"""/*! @{
    \brief NAME does task K.
    @param[in]
    handle    rocblas_handle.
    @param[in]
    n         N_TEXT
    @param[inout]
    x         device pointer to the vector that NAME works on.
    @param[in]
    incx      INCX_TEXT
*/
ROCBLAS_EXPORT rocblas_status rocblas_sNAME(rocblas_handle handle, rocblas_int n, float* x, rocblas_int incx);
ROCBLAS_EXPORT rocblas_status rocblas_dNAME(rocblas_handle handle, rocblas_int n, double* x, rocblas_int incx);
//! @}
"""
BOILER_NAMES = ("scal", "axpy", "copy", "swap", "dot")


def boiler_header() -> str:
    parts = ["#include \"rocblas-export.h\"\n"]
    for k, name in enumerate(BOILER_NAMES):
        n_text = "[rocblas_int]  Number of entries" if name == "dot" else "[rocblas_int] number of entries."
        incx_text = "[rocblas_int] stride of x." if k < 3 else "rocblas_int."
        parts.append(BOILER_GROUP.replace("NAME", name).replace("K", str(k)).replace("N_TEXT", n_text)
                     .replace("INCX_TEXT", incx_text))
    return "\n".join(parts)


def _parameter_of(record_or_reject_question: str) -> str:
    return record_or_reject_question.split("`")[1]


def test_boilerplate_parameters_are_rejected_with_a_reason(tmp_path):
    root = write_tree(tmp_path / "rocBLAS", header=boiler_header(), docs=None)
    raw, raw_rejects = read_all(root, boilerplate=False)
    records, rejects = read_all(root)
    assert raw_rejects == []
    # every input record is still accounted for once: a boilerplate row becomes exactly one reject
    assert len(records) + len(rejects) == len(raw)
    assert {r.reason for r in rejects} == {RejectReason.BOILERPLATE}
    kept = collections.Counter(_parameter_of(r.question) for r in records if r.kind == "parameter")
    assert kept == {"n": 1, "x": 5, "incx": 3}
    # the other kinds are untouched
    assert [r for r in records if r.kind != "parameter"] == [r for r in raw if r.kind != "parameter"]
    # a reject carries the id the row would have had
    raw_by_id = {r.id: r for r in raw}
    assert {r.id for r in rejects} == set(raw_by_id) - {r.id for r in records}
    by_parameter = collections.defaultdict(list)
    for reject in rejects:
        by_parameter[_parameter_of(raw_by_id[reject.id].question)].append(reject)
    assert {p: len(v) for p, v in by_parameter.items()} == {"handle": 5, "n": 4, "incx": 2}
    for reject in by_parameter["handle"] + by_parameter["incx"]:
        assert "says nothing beyond its type" in reject.message
        p = raw_by_id[reject.id].provenance
        assert reject.ref == f"{p.path}:{p.line_start}-{p.line_end}"
    (first_n,) = [r for r in records if r.kind == "parameter" and _parameter_of(r.question) == "n"]
    assert "rocblas_<type>scal" in first_n.question      # the first in file order is the one kept
    where = f"{first_n.provenance.path}:{first_n.provenance.line_start}-{first_n.provenance.line_end}"
    for reject in by_parameter["n"]:
        assert first_n.id in reject.message and where in reject.message and "5 rows" in reject.message
    # the markup/case variant of dot counts as the same text
    assert any("rocblas_<type>dot" in m for m in (r.message for r in by_parameter["n"]))


def test_boilerplate_threshold_and_switch(tmp_path):
    root = write_tree(tmp_path / "rocBLAS", header=boiler_header(), docs=None)
    parameters = lambda records: sum(r.kind == "parameter" for r in records)      # noqa: E731
    assert parameters(read_all(root, boilerplate=False)[0]) == 20
    assert parameters(read_all(root, boilerplate_repeats=5)[0]) == 13     # n x5 <= 5: only type-only go
    assert parameters(read_all(root, boilerplate_repeats=2)[0]) == 7      # incx x3 > 2 collapses too
    assert parameters(read_all(root, boilerplate="false")[0]) == 20
    for bad in ({"boilerplate_repeats": 0}, {"boilerplate_repeats": "3"}, {"boilerplate": "sometimes"}):
        with pytest.raises(SourceOptionError):
            QaRocmSource(str(root), **bad)


def test_kept_rows_stay_grounded_after_the_boilerplate_rule(tmp_path, sample_dir):
    for root in (write_tree(tmp_path / "rocBLAS", header=boiler_header()), sample_dir / "qa_rocm" / "rocSOLVER"):
        records, _ = read_all(root)
        for r in records:
            lines = (Path(root) / r.provenance.path).read_text().split("\n")
            assert is_grounded(r.answer, "\n".join(lines[r.provenance.line_start - 1:r.provenance.line_end]))


def test_type_only_rule_reads_the_declared_type():
    from kvdata.builders.qa_rocm.boilerplate import is_type_only

    def entry(name, description, *types):
        return Entry("parameter", "q?", f"[in] {description}", "s", 1, 1, parameter=name,
                     description=description, declared_types=types)

    assert is_type_only(entry("handle", "rocblas_handle.", "rocblas_handle"))
    assert is_type_only(entry("n", "[rocblas_int] n", "rocblas_int", "int64_t"))
    assert is_type_only(entry("n", "the rocblas_int.", "rocblas_int"))
    assert not is_type_only(entry("n", "rocblas_int. n >= 0.", "rocblas_int"))
    assert not is_type_only(entry("handle", "rocblas_handle.", "rocblas_int"))   # not its declared type
    assert not is_type_only(entry("handle", "handle to the library context", "rocblas_handle"))


def test_parameter_types_of_a_declaration():
    from kvdata.builders.qa_rocm.doxygen import Declaration, parameter_types

    decl = Declaration("rocblas_sgemm_batched", "rocblas_status rocblas_sgemm_batched(rocblas_handle handle, "
                       "rocblas_operation transA, const float* alpha, const float* const A[], rocblas_int lda, "
                       "void (*callback)(int, int), int flags = 0)", 0, 0, 1, 1)
    assert parameter_types(decl) == {"handle": "rocblas_handle", "transA": "rocblas_operation",
                                     "alpha": "const float*", "A": "const float* const []",
                                     "lda": "rocblas_int", "callback": "void (*)(int, int)", "flags": "int"}


# ---------------------------------------------------------------- real trees (the mirrors, when present)
MIRRORS = Path("/work/.mirror")


def export_tree(repo: str, into: Path) -> Path:
    """``git archive`` of an upstream mirror's headers, docs and license into ``into`` (skip if absent)."""
    import subprocess

    git_dir = MIRRORS / f"ROCm+{repo}" / "repo"
    if not git_dir.is_dir():
        pytest.skip(f"no mirror of ROCm/{repo} at {git_dir}")
    into.mkdir(parents=True)
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", "HEAD", "library/include", "docs",
                              "LICENSE.md"], capture_output=True, check=False)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    if not list(into.glob("library/include/**/*.h")):
        pytest.skip(f"the mirror of ROCm/{repo} has no library/include headers")
    return into


@pytest.mark.parametrize("repo", ["rocBLAS", "rocSOLVER"])
def test_real_tree_boilerplate_is_collapsed(tmp_path, repo):
    """On the upstream tree: no type-only parameter row and no parameter text more than 3 times survive,
    every boilerplate reject replaces one row, and every kept row is grounded in its lines on disk."""
    from kvdata.builders.qa_rocm.boilerplate import repeat_key
    from kvdata.builders.qa_rocm.text import content_tokens

    root = export_tree(repo, tmp_path / repo)
    raw, raw_rejects = read_all(root, boilerplate=False)
    records, rejects = read_all(root)
    boilerplate = [r for r in rejects if r.reason == RejectReason.BOILERPLATE]
    assert len(records) + len(rejects) == len(raw) + len(raw_rejects)
    assert len(boilerplate) == len(raw) - len(records) > 500
    assert {r.id for r in boilerplate} <= {r.id for r in raw}
    parameters = [r for r in records if r.kind == "parameter"]
    assert parameters and not any(r.answer in ("[in] rocblas_handle.", "[in] [rocblas_int]") for r in parameters)
    texts = collections.Counter((_parameter_of(r.question), " ".join(content_tokens(r.answer))) for r in parameters)
    assert max(texts.values()) <= 3
    assert repeat_key(Entry("parameter", "", "[in] [rocblas_int] n.", "", 1, 1, parameter="n")) == \
        ("n", "in rocblas_int n")
    files: dict[str, list[str]] = {}
    for r in records:
        if r.provenance.path not in files:
            files[r.provenance.path] = (root / r.provenance.path).read_text().split("\n")
        lines = files[r.provenance.path]
        assert is_grounded(r.answer, "\n".join(lines[r.provenance.line_start - 1:r.provenance.line_end]))
