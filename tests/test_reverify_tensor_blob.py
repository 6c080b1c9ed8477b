"""Raw tensor blobs (how tensors cross from the sandboxed worker to the parent) and the chunked
comparison: round trips, forged blobs rejected, and the same verdicts as float64 ``allclose``."""
from __future__ import annotations

import json
import math
import os

import pytest
import torch

from kvdata.reverify import checks, tensor_blob
from kvdata.reverify.tensor_blob import Blob, BlobError, BlobWriter


def _blob_bytes(tree) -> bytearray:
    out = bytearray()
    tensor_blob.dump(tree, lambda view: out.extend(view))
    return out


def test_round_trip_keeps_values_dtypes_shapes_and_plain_values():
    tensors = [torch.randn(3, 5), torch.arange(7, dtype=torch.int64), torch.randn(2, 2, dtype=torch.complex64),
               torch.tensor([True, False]), torch.randn(4).to(torch.bfloat16), torch.empty(0, 3),
               torch.randn(6, 4).t()]                                  # non-contiguous
    tree = {"t": tensors, "n": 3, "f": 1.5, "inf": float("inf"), "s": "x", "none": None, "dt": torch.float16}
    back = tensor_blob.load(_blob_bytes(tree))
    for a, b in zip(tensors, back["t"]):
        assert type(b) is torch.Tensor and b.dtype == a.dtype and b.shape == a.shape
        assert torch.equal(a, b)
    assert back["n"] == 3 and back["f"] == 1.5 and math.isinf(back["inf"]) and back["s"] == "x"
    assert back["none"] is None and back["dt"] == "torch.float16"


def test_writer_snapshots_at_add_time():
    out = bytearray()
    w = BlobWriter(lambda view: out.extend(view))
    x = torch.ones(4)
    leaf = w.add(x)
    x.zero_()                                   # a candidate rewriting an output it already returned
    w.finish({"x": leaf})
    assert torch.equal(tensor_blob.load(out)["x"], torch.ones(4))


def _forged(entry: dict, tree, data: bytes, n_index=None) -> bytes:
    index = json.dumps({"tensors": [entry], "tree": tree}).encode()
    return data + index + tensor_blob.TRAILER.pack(len(index) if n_index is None else n_index, tensor_blob.MAGIC)


@pytest.mark.parametrize("forge", ["truncate", "magic", "offset", "nbytes", "dtype", "index_len", "ref"])
def test_forged_blobs_are_rejected(forge):
    raw = bytes(_blob_bytes({"A": [torch.randn(8)]}))
    good = dict(Blob(raw).entries[0])
    data = raw[:good["offset"] + good["nbytes"]]
    forged = {
        "truncate": raw[: len(raw) // 2],
        "magic": raw[:-1] + b"X",
        "offset": _forged(dict(good, offset=10 ** 9), {"A": [{"__tensor__": 0}]}, data),
        "nbytes": _forged(dict(good, nbytes=good["nbytes"] * 2), {"A": [{"__tensor__": 0}]}, data),
        "dtype": _forged(dict(good, dtype="not_a_dtype"), {"A": [{"__tensor__": 0}]}, data),
        "index_len": _forged(good, {"A": [{"__tensor__": 0}]}, data, n_index=10 ** 12),
        "ref": _forged(good, {"A": [{"__tensor__": 5}]}, data),
    }[forge]
    assert Blob(_forged(good, {"A": [{"__tensor__": 0}]}, data)).tree()["A"][0].shape == (8,)  # the forge kit works
    with pytest.raises(BlobError):
        Blob(forged).tree()


def test_open_blob_file_refuses_links_and_fifos(tmp_path):
    real = tmp_path / "real.blob"
    real.write_bytes(_blob_bytes({"x": torch.ones(2)}))
    assert torch.equal(Blob(tensor_blob.open_blob_file(real)).tree()["x"], torch.ones(2))
    link = tmp_path / "link.blob"
    link.symlink_to(real)
    with pytest.raises(OSError):
        tensor_blob.open_blob_file(link)
    fifo = tmp_path / "fifo.blob"
    os.mkfifo(fifo)
    with pytest.raises(BlobError):
        tensor_blob.open_blob_file(fifo)             # a planted FIFO must not block the parent


def test_fingerprints_tell_bitwise_changes():
    x = torch.randn(16)
    fp = tensor_blob.fingerprint([x, 3])
    assert tensor_blob.fingerprint([x.clone(), 3]) == fp
    y = x.clone()
    y[7] = -y[7]
    assert tensor_blob.fingerprint([y, 3]) != fp
    assert tensor_blob.fingerprint([x.double(), 3]) != fp
    blob = Blob(_blob_bytes({"inputs": [x.clone(), 3]}))
    assert tensor_blob.fingerprint_blob_node(blob, blob.raw_tree["inputs"], fp) == fp
    forged = Blob(_blob_bytes({"inputs": [torch.zeros(1 << 16), 3]}))
    assert tensor_blob.fingerprint_blob_node(forged, forged.raw_tree["inputs"], fp) != fp


def _legacy_allclose(c, r, atol, rtol) -> bool:
    cd = torch.view_as_real(c).double() if c.is_complex() else c.double()
    rd = torch.view_as_real(r).double() if r.is_complex() else r.double()
    return bool(torch.allclose(cd, rd, atol=atol, rtol=rtol, equal_nan=False))


@pytest.mark.parametrize("case", range(8))
def test_chunked_compare_agrees_with_float64_allclose(case, monkeypatch):
    monkeypatch.setattr(checks, "CHUNK_ELEMENTS", 1000)          # several chunks on a small tensor
    g = torch.Generator().manual_seed(case)
    r = torch.randn(50, 70, generator=g)
    c = r + torch.randn(50, 70, generator=g) * [0.0, 1e-5, 1e-2, 1e-3][case % 4]
    if case == 4:
        c[10, 3] = float("nan")
    if case == 5:
        r[49, 69] = c[49, 69] = float("inf")                     # inf == inf is close, like allclose
    if case == 6:
        r[0, 0] = float("inf")                                   # finite candidate vs inf reference: not close
    if case == 7:
        c, r = c.to(torch.complex64), r.to(torch.complex64)
    got = checks.compare_outputs([c], [r], 1e-3, 1e-4)
    assert got.ok == _legacy_allclose(c, r, 1e-3, 1e-4)
    if got.ok and math.isfinite(got.max_abs_err):
        assert got.max_abs_err == pytest.approx(float((c - r).abs().max()), rel=1e-5, abs=1e-12)


def test_degenerate_and_finite_checks_on_edge_values():
    def degenerate(t):
        return checks.check_degenerate_reference([checks.output_tolerances([t], 1e-3, 1e-4)])

    assert degenerate(torch.tensor([1e-5, float("inf")])) == []          # inf and NaN: never judged as tiny
    assert degenerate(torch.tensor([1e-5, float("nan")])) == []
    assert degenerate(torch.tensor([1e-5, 2e-5])) == ["degenerate"]
    assert degenerate(torch.tensor([0, 3], dtype=torch.int32)) == []      # integers are compared exactly
    assert degenerate(torch.zeros(3, dtype=torch.int32)) == ["degenerate"]  # all zero: nothing to tell apart
    assert degenerate(torch.zeros(3, dtype=torch.bool)) == ["degenerate"]
    assert checks.check_reference_finite([torch.tensor([1.0, float("nan")])]) == ["reference_nonfinite"]
    assert checks.check_reference_finite([torch.randn(5)]) == []
