from wrapper.core import safe


def test_terminal_removes_escapes_and_shows_other_controls():
    assert safe.terminal("a\x1b[31mred\x1b[0m \x1b]0;title\x07b") == "ared b"
    assert safe.terminal("x\x9b2Jy\x9dz\x07\x08\x7f") == "x\\x9b2Jy\\x9dz\\x07\\x08\\x7f"
    assert safe.terminal("line\n\ttab") == "line\n\ttab"
    assert safe.one_line("a\nb\tc\rd") == "a b c\\x0dd"


def test_path_component_is_never_a_path():
    assert safe.path_component("../../esc") == "_._.._esc"
    assert "/" not in safe.path_component("a/b") and safe.path_component("..") == "_."
    assert safe.path_component("node/7") == "node_7"
    assert safe.path_component("") == "_"
    assert safe.path_component(".hidden") == "_hidden"
    assert safe.path_component("gpu-node01.cluster") == "gpu-node01.cluster"
    assert len(safe.path_component("x" * 500)) == safe.PATH_COMPONENT_CHARS


def test_csv_cell_neutralises_formulas_but_not_numbers():
    assert safe.csv_cell('=HYPERLINK("http://e.invalid")') == '\'=HYPERLINK("http://e.invalid")'
    assert safe.csv_cell("@SUM(1)") == "'@SUM(1)"
    assert safe.csv_cell("\tx") == "'\tx"
    assert safe.csv_cell("-1.5") == "-1.5"
    assert safe.csv_cell("-x") == "'-x"
    assert safe.csv_cell("plain") == "plain"
