import json

import numpy as np
import pytest

from kvdata.audit.lexical import token_hashes
from kvdata.audit.normalize import (KEPT_NAMES, PLACEHOLDER, guess_language, normalize_code, placeholder_identifiers,
                                    renamed_tokens, strip_comments, tokens)
from kvdata.shingles import hash_tokens, tokenise


def test_python_comments_and_docstrings_go_strings_stay():
    code = '"""module doc"""\nimport torch\n\ndef f(x):  # add one\n    """doc"""\n    s = "# kept"\n    return x // 2\n'
    out = normalize_code(code)
    assert "module doc" not in out and "add one" not in out and '"""doc"""' not in out
    assert '"# kept"' in out and "x // 2" in out


def test_c_comments_go_preprocessor_stays():
    code = '#include <hip/hip_runtime.h>\n// note\n__global__ void k(float* x /* p */) {\n  x[0] = 1; // one\n}\n'
    assert guess_language(code) == "c"
    out = normalize_code(code)
    assert "#include <hip/hip_runtime.h>" in out and "note" not in out and "/*" not in out and "one" not in out


def test_whitespace_and_comment_only_changes_normalise_equal():
    a = "def f(x):\n    return x+1\n"
    b = "def f(x):   # comment\n\n\n        return x+1   \n"
    assert normalize_code(a) == normalize_code(b)


def test_identifier_renaming_is_consistent_and_keeps_api_names():
    a = "def forward(self, x):\n    y = torch.relu(x)\n    return F.softmax(y, dim=1)\n"
    b = "def forward(self, inp):\n    out = torch.relu(inp)\n    return F.softmax(out, dim=1)\n"
    na, nb = normalize_code(a, rename_identifiers=True), normalize_code(b, rename_identifiers=True)
    assert na == nb
    assert "relu" in na and "softmax" in na and "x" not in tokens(na)


def test_tokens_split_words_and_punctuation():
    assert tokens("a_1+=b.c(2)") == ["a_1", "+", "=", "b", ".", "c", "(", "2", ")"]


def test_strip_comments_has_the_tokens_of_normalize_code(shared_data):
    texts = [json.loads(line)["code"] for line in
             (shared_data / "kernelbench" / "kernelbench_v0.1.jsonl").read_text().splitlines()]
    texts += ['"""first-line docstring"""\nx = 1', "def f():\r\n    '''doc'''\r\n    return 1  # c\r\n",
              "s = 'unterminated\n# real comment\nt = \"a # b\"", "x = '''a'''\n  '''b'''\ny",
              '#include <a.h>\nint a/* c */b; // d\nchar* s = "// kept"; /* unclosed', "a \x0b\x0c b\n\x1c c"]
    for t in texts:
        assert tokens(strip_comments(t)) == tokens(normalize_code(t))
    assert "first-line" not in strip_comments(texts[-6]) and "real comment" not in strip_comments(texts[-4])
    assert '"a # b"' in strip_comments(texts[-4]) and '"// kept"' in strip_comments(texts[-2])
    assert "/* unclosed" in strip_comments(texts[-2]) and "int a b;" in strip_comments(texts[-2])


def test_whitespace_is_ascii_whitespace_like_token_boundaries():
    # \x1c is no whitespace to a token, so normalisation keeps it (str.split would drop it); \xa0 is a word char
    assert normalize_code("a \x1c  b\n\n   c\t\x0b d") == "a \x1c b\nc d"
    assert normalize_code("x\n\xa0y  ") == "x\n\xa0y"


# ----------------------------------------------------------------- identifier renaming (one rule, two views)
RULE_EXAMPLES = [
    ("x = torch.nn.functional.relu(y)", "_v = torch . nn . functional . relu ( _v )"),
    ("self.weight.data = self.w.t()", "self . _v . _v = self . _v . _v ( )"),      # attributes of self: user names
    ("nn.self.w", "nn . self . _v"),                          # self ends a chain even inside one
    ("_v.attr + __x__.y", "_v . attr + __x__ . y"),           # a literal placeholder and a dunder start a chain
    ("torch..relu(a) . b", "torch . . relu ( _v ) . _v"),     # only dots between: linked; ")" breaks the chain
    (". x", ". _v"),
    ("é.relu(q) + nn.été", "é . _v ( _v ) + nn . été"),       # non-ASCII: no identifier, never renamed
    ("tl.load(p + offs, mask=m)", "tl . load ( _v + _v , _v = _v )"),
    ("def f(self):\n    return len(self.items)", "def _v ( self ) : return len ( self . _v )"),
    ("__global__ void k(float* x) { x[threadIdx.x] = 0; }",
     "__global__ void _v ( float * _v ) { _v [ threadIdx . x ] = 0 ; }"),
    ("a1 = 1a + _ + __", "_v = 1a + _v + __"),
    ("", ""),
]


@pytest.mark.parametrize("text,renamed", RULE_EXAMPLES)
def test_renaming_rule(text, renamed):
    assert normalize_code(text, rename_identifiers=True) == renamed


def test_kept_names_are_kept_and_others_renamed():
    kept = " ".join(sorted(KEPT_NAMES))
    assert placeholder_identifiers(kept) == kept                       # every name of the one list, hash table too
    assert placeholder_identifiers(" ".join(n + "_x" for n in sorted(KEPT_NAMES) if n.isidentifier()
                                            and not n.startswith("__"))).split() == [PLACEHOLDER] * len(
        [n for n in KEPT_NAMES if n.isidentifier() and not n.startswith("__")])


def _real_code(shared_data):
    kb = [json.loads(line)["code"] for v in ("v0", "v0.1")
          for line in (shared_data / "kernelbench" / f"kernelbench_{v}.jsonl").read_text().splitlines()]
    tb = [r["output"] for r in json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())]
    return kb, tb


def test_text_and_hash_renaming_agree_token_by_token(shared_data):
    """The renamed text (normalize_code) and the scan's renaming on token hashes give the same token sequence on
    real KernelBench and TritonBench-G code: same number of tokens, and each token's hash equal."""
    kb, tb = _real_code(shared_data)
    assert len(kb) > 500 and len(tb) > 150
    for texts in (kb, tb, [t for t, _ in RULE_EXAMPLES]):
        from_text = token_hashes([normalize_code(t, rename_identifiers=True) for t in texts])
        in_scan = token_hashes([strip_comments(t) for t in texts], rename_identifiers=True)
        assert np.array_equal(from_text.offsets, in_scan.offsets)
        assert np.array_equal(from_text.values, in_scan.values)
        plain = token_hashes([strip_comments(t) for t in texts])
        placeholder = token_hashes([PLACEHOLDER]).values[0]
        renamed = in_scan.values != plain.values
        assert (in_scan.values[renamed] == placeholder).all() and 0.2 < renamed.mean() < 0.6


def test_renaming_does_not_depend_on_the_batch(shared_data):
    """One text renamed alone or among others (TritonBench-G files), at any seed, renames the same tokens."""
    _, tb = _real_code(shared_data)
    texts = [strip_comments(t) for t in tb[:40]]
    spans = tokenise(texts)
    for seed in (1, 7):
        together = renamed_tokens(spans, hash_tokens(spans, seed), seed)
        alone = []
        for i, t in enumerate(texts):
            one = tokenise([t])
            alone += (renamed_tokens(one, hash_tokens(one, seed), seed) + spans.offsets[i]).tolist()
        assert together.tolist() == alone
