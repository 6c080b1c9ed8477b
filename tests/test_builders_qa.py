"""qa_rocm: QA mined from rocBLAS/rocSOLVER-style trees (fixtures written here + the bundled sample)."""
from __future__ import annotations

import collections
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from kvdata.builders import source_class
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
                        "rocblas", "MIT", index)
    made_up = source._item(Entry("purpose", "q?", "an invented answer", "rocblas_x", 2, 2), "h.h", "h.h:2",
                           "rocblas", "MIT", index)
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
    with pytest.raises(ValueError):
        QaRocmSource(str(solver), library="cublas")
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
    assert [(r.source, r.reason) for r in rejects] == [("qa_rocblas", RejectReason.NO_DECLARATION)]
    table = pa.Table.from_pylist(rows, schema=arrow_schema("qa"))
    assert table.num_rows == sum(kinds.values())
    assert set(table.column("library").to_pylist()) == {"rocblas", "rocsolver"}
    assert set(table.column("license").to_pylist()) == {"MIT"}
