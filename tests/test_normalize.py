from kvdata.audit.normalize import guess_language, normalize_code, tokens


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
