"""builders/base.py: the one option check, the unit-reading base and its per-process cache, on the real
builders and the bundled sample (no stand-ins), and the packaging of the builders package."""
from __future__ import annotations

import os
import pickle
import tomllib
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kvdata.builders import SOURCES, source_class
from kvdata.builders.base import Source, SourceOptionError, UnitSource
from kvdata.builders.hip_cudaagent import HipCudaAgentSource

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "builders" / "sample"


def sample_sources() -> list[Source]:
    """Every Source of the bundled sample, made the way the build makes them."""
    made = []
    for spec_file in sorted(SAMPLE.glob("*/sources.yaml")):
        for entry in yaml.safe_load(spec_file.read_text()):
            made.append(source_class(entry["kind"])(str(spec_file.parent / entry["path"]),
                                                    **(entry.get("options") or {})))
    return made


# ---------------------------------------------------------------- options
@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_every_source_declares_its_options_and_rejects_a_typo(kind, tmp_path):
    cls = source_class(kind)
    assert cls.options_known is not Source.options_known, f"{kind} does not declare options_known"
    assert {"name", "license"} <= cls.options_known
    with pytest.raises(SourceOptionError, match=r"'licence'.*did you mean 'license'"):
        cls(str(tmp_path), licence="MIT")
    cls(str(tmp_path), license="MIT", name="n")          # the known ones are accepted


@pytest.mark.parametrize("kind, options", [
    ("qa_rocm", {"library": "cublas"}),
    ("qa_rocm", {"docs": "perhaps"}),
    ("qa_rocm", {"retrieved": "last week"}),
    ("qa_rocm", {"boilerplate_repeats": -1}),
    ("triton_table", {"columns": ["kernel_code"]}),
    ("triton_table", {"columns": {"kernel": "k"}}),
    ("triton_table", {"require_reference": "sometimes"}),
    ("triton_kernelbook", {"batch_size": 0}),
    ("triton_kernelbook", {"kernelbench_aliases": "maybe"}),
    ("triton_kernelbench", {"kernel_prefix": ""}),
])
def test_bad_option_values_are_the_same_error(kind, options, tmp_path):
    with pytest.raises(SourceOptionError, match=kind):
        source_class(kind)(str(tmp_path), **options)


def test_option_error_is_a_value_error_and_stops_a_cli_build(tmp_path):
    from kvdata.cli import main

    assert issubclass(SourceOptionError, ValueError)
    result = CliRunner().invoke(main, ["build", "--out", str(tmp_path / "out"), "--quiet",
                                       "--source", f"qa_rocm={SAMPLE / 'qa_rocm' / 'rocBLAS'}",
                                       "--option", "qa_rocm.licence=MIT"])
    assert result.exit_code == 2 and "licence" in result.output and "did you mean 'license'" in result.output
    assert not (tmp_path / "out" / "accounting.json").exists()


def test_flags_read_yaml_and_text_booleans(tmp_path):
    qa = source_class("qa_rocm")
    for value, expected in ((True, True), (False, False), ("false", False), ("Yes", True), ("0", False), (1, True)):
        assert qa(str(tmp_path), docs=value).flag("docs") is expected


def test_a_source_class_must_know_name_and_its_defaults():
    with pytest.raises(TypeError, match="must include 'name'"):
        type("NoName", (Source,), {"kind": "x", "config": "qa", "options_known": frozenset({"license"}),
                                   "read": lambda self: iter(())})
    with pytest.raises(TypeError, match="option_defaults"):
        type("StrayDefault", (Source,), {"kind": "x", "config": "qa", "options_known": frozenset({"name"}),
                                         "option_defaults": {"colour": 1}, "read": lambda self: iter(())})


# ---------------------------------------------------------------- units, pickling, the per-process cache
def test_unit_sources_compose_to_read_before_and_after_pickling():
    """For every unit-reading Source of the sample: read() == map(unit_to_item, read_units()), also when
    the units are made into items by a pickled copy (what a build worker gets)."""
    unit_sources = [s for s in sample_sources() if isinstance(s, UnitSource)]
    assert {s.kind for s in unit_sources} == {"hip_gpumode", "hip2hip", "hip_cudaagent", "triton_github",
                                              "triton_kernelbook", "triton_kernelbench", "triton_table"}
    for source in unit_sources:
        items = list(source.read())
        assert len(items) >= 4, source.kind
        units = list(source.read_units())
        assert [source.unit_to_item(u) for u in units] == items, source.kind
        copy = pickle.loads(pickle.dumps(source))
        assert [copy.unit_to_item(pickle.loads(pickle.dumps(u))) for u in units] == items, source.kind


def test_the_per_process_cache_is_not_pickled():
    source = HipCudaAgentSource(str(SAMPLE / "hip_cudaagent"))
    items = list(source.read())
    fs, root = source.tree()
    assert source.tree()[0] is fs                           # opened once, then cached
    assert "tree" in source._process_cache()                # filled by reading
    state = source.__getstate__()
    assert all(not isinstance(v, tuple) or fs not in v for v in state.values())
    copy = pickle.loads(pickle.dumps(source))
    assert copy._process_cache() == {}                       # the copy starts with an empty cache
    assert copy.tree_license(fs, root) == source.tree_license(fs, root)   # the tree's license travels with it
    assert list(copy.read()) == items


def test_the_per_process_cache_does_not_survive_a_fork():
    """A forked child that inherited the object (not a pickled copy) makes its own cache entries."""
    source = HipCudaAgentSource(str(SAMPLE / "hip_cudaagent"))
    assert source.per_process("made_in", os.getpid) == os.getpid()
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:                                           # the child: report and leave at once
        try:
            os.write(write_end, str(source.per_process("made_in", os.getpid)).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    made_in_child = int(os.read(read_end, 64).decode())
    os.close(read_end)
    os.waitpid(child, 0)
    assert made_in_child == child
    assert source.per_process("made_in", os.getpid) == os.getpid()      # the parent's entry is untouched


# ---------------------------------------------------------------- packaging
def test_every_builders_package_is_installed():
    """Each folder with an __init__.py under a mapped package dir is in pyproject's package list, so a
    non-editable install ships it (kvdata.builders.qa_rocm is a package now)."""
    tool = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(tool["packages"])
    for package, folder in tool["package-dir"].items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            if "sample" in rel.parts or "__pycache__" in rel.parts:
                continue
            name = ".".join((package, *rel.parts)) if rel.parts else package
            assert name in listed, f"{name} ({init.parent}) is missing from pyproject's packages"
    assert "kvdata.builders.qa_rocm" in listed
