from kvdata.audit.normalize import guess_language, normalize_code, strip_comments, tokens


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
    import json

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
