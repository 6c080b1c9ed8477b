"""discover.py finds the torch reference in every layout a training row or benchmark item comes in.

The fixtures under tests/behavioural/ are written here (trusted), so they are executed in this process; the
sandbox workers load the same module by path.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DISCOVER = REPO / "audit" / "discover.py"
FIXTURES = Path(__file__).resolve().parent / "behavioural"
LAYOUTS = FIXTURES / "layouts"


def _load_discover():
    spec = importlib.util.spec_from_file_location("kv_discover_under_test", DISCOVER)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up while building the class
    spec.loader.exec_module(module)
    return module


discover = _load_discover()


def refs_of(code: str, name: str = "kv_discover_fixture"):
    try:
        return discover.find_references(discover.load_code(code, name))
    finally:
        discover.unload(name)


def names(code: str) -> list[str]:
    return [r.name for r in refs_of(code)]


def test_loads_standalone_without_kvdata():
    """Workers run ``python -I`` and load discover.py by path: it must need nothing but stdlib and torch."""
    script = (f"import importlib.util, sys\n"
              f"spec = importlib.util.spec_from_file_location('d', {str(DISCOVER)!r})\n"
              f"m = importlib.util.module_from_spec(spec); sys.modules['d'] = m; spec.loader.exec_module(m)\n"
              f"mod = m.load_code('import torch\\nclass Model(torch.nn.Module):\\n    def forward(self, x):\\n"
              f"        return x\\n', 'k')\n"
              f"print([r.name for r in m.find_references(mod)], any(k.startswith('kvdata') for k in sys.modules))\n")
    out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["['Model']", "False"]


def test_model_preferred_and_triton_model_new_is_not_a_reference():
    assert names((LAYOUTS / "model_and_triton_model_new.py").read_text()) == ["Model"]


def test_triton_row_torch_helper_function():
    refs = refs_of((FIXTURES / "L1_25_swish" / "para_triton_with_torch_helper.py").read_text())
    assert [(r.name, r.kind) for r in refs] == [("swish_torch", "function")]
    assert refs[0].inputs is not None and refs[0].inputs.__name__ == "get_inputs"
    refs = refs_of((FIXTURES / "L1_23_softmax" / "para_triton_reference_fn.py").read_text())
    assert [r.name for r in refs] == ["torch_reference"]


def test_triton_row_second_class_reached_through_a_helper():
    """FastScale launches through ``launch_scale``; TorchScale is the reference; inputs from ``make_inputs``."""
    refs = refs_of((LAYOUTS / "triton_second_class.py").read_text())
    assert [r.name for r in refs] == ["TorchScale"]
    assert refs[0].inputs.__name__ == "make_inputs"


def test_inline_extension_model_new_is_not_a_reference():
    assert names((LAYOUTS / "cuda_inline_model_new.py").read_text()) == ["reference_neg"]


def test_kernels_only_raise_no_torch_reference():
    with pytest.raises(discover.DiscoveryError) as err:
        refs_of((LAYOUTS / "kernels_only.py").read_text())
    assert err.value.code == "no_torch_reference"


@pytest.mark.parametrize("where", ["top", "middle", "bottom"])
def test_one_model_among_utilities(where):
    filler = (LAYOUTS / "utility_filler.py").read_text()
    model = ("\n\nclass Head(nn.Module):\n    def __init__(self, n_in, n_out):\n        super().__init__()\n"
             "        self.fc = nn.Linear(n_in, n_out)\n\n    def forward(self, x):\n"
             "        return torch.tanh(self.fc(x))\n\n\n")
    lines = filler.splitlines(keepends=True)
    if where == "top":
        at = max(i for i, line in enumerate(lines) if line.startswith(("import ", "from "))) + 1
    elif where == "middle":
        at = next(i for i, line in enumerate(lines) if "# --- MODEL ---" in line)
    else:
        at = len(lines)
    code = "".join(lines[:at]) + model + "".join(lines[at:])
    refs = refs_of(code)
    assert [r.name for r in refs] == ["Head"]
    module = refs[0].obj(*refs[0].init_calls[0][0], **refs[0].init_calls[0][1])
    assert tuple(module(*refs[0].inputs()).shape) == (4, 6)


def test_several_modules_all_returned_inner_one_not():
    assert names((LAYOUTS / "several_modules.py").read_text()) == ["Tower", "Gate"]


def test_model_buried_in_the_middle_comes_before_the_unused_gate():
    assert names((FIXTURES / "L2_1_conv_relu_bias" / "para_buried_middle.py").read_text()) == ["Stage", "Squeeze"]


def test_init_from_module_constants_by_name():
    refs = refs_of((LAYOUTS / "init_from_constants.py").read_text())
    assert refs[0].init_calls[0] == ((), {"in_features": 12, "out_features": 7})
    module = discover.instantiate(refs[0])
    assert tuple(module(*refs[0].inputs()).shape) == (3, 7)


def test_kernelbook_args_kwargs_form_first():
    refs = refs_of((LAYOUTS / "kernelbook_args_kwargs.py").read_text())
    assert refs[0].init_calls[0] == ((4,), {"factor": 0.5})
    assert discover.instantiate(refs[0]).factor == 0.5


def test_defaults_and_no_inputs():
    refs = refs_of((LAYOUTS / "init_defaults_no_inputs.py").read_text())
    assert [r.name for r in refs] == ["Clamp"] and refs[0].inputs is None
    assert refs[0].init_calls == [((), {})]


def test_reason_codes_for_broken_code():
    for code, reason in (("", "empty_code"), ("def f(:\n", "syntax_error"),
                         ((LAYOUTS / "broken_at_import.py").read_text(), "exec_failed")):
        with pytest.raises(discover.DiscoveryError) as err:
            refs_of(code)
        assert err.value.code == reason and reason in discover.REASON_CODES


def test_init_failed_names_every_attempt():
    code = ("import torch\nclass Model(torch.nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
            "        raise ValueError('bad n')\n    def forward(self, x):\n        return x\n"
            "def get_init_inputs():\n    return [3]\n")
    refs = refs_of(code)
    with pytest.raises(discover.DiscoveryError) as err:
        discover.instantiate(refs[0])
    assert err.value.code == "init_failed" and "bad n" in err.value.message


def test_kernelbench_levels_1_to_3_give_model_first(shared_data):
    rows = [json.loads(line) for line in (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").open()]
    rows = [r for r in rows if r["level"] <= 3]
    assert len(rows) == 250
    firsts, missing_packages = [], 0
    for i, r in enumerate(rows):
        try:
            firsts.append(refs_of(r["code"], f"kv_kb_{i}")[0].name)
        except discover.DiscoveryError as err:        # einops (Mamba rows) is not installed here
            assert err.code == "exec_failed" and "No module named" in err.message, err
            missing_packages += 1
    assert missing_packages <= 5 and firsts == ["Model"] * len(firsts)
