"""The derivative helpers read from C++ headers, and their names kept in the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.frontend import helper_headers
from schemac.frontend.helper_headers import header_functions, read_helper_names

HEADER = """
// not_a_call(x) in a comment
#define MACRO_CALL(x) (x)
namespace torch::autograd::generated::details {
Tensor handle_r_to_c(ScalarType self_st, Tensor gradient_result);
template <typename T> T not_implemented_list(const char* name);
inline Tensor maybe_multiply(const Tensor& t, const Scalar& s) { return t * s; }
/* block(comment) */ std::vector<Tensor> cat_tensors_backward(Tensor grad);
if (MACRO_CALL(1)) { sizeof(int); }
}
"""


def test_the_stored_names_are_the_scanned_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SCHEMAC_NO_CACHE", raising=False)
    header = tmp_path / "Helpers.h"
    header.write_text(HEADER)
    expected = header_functions(HEADER)
    assert {"handle_r_to_c", "maybe_multiply", "cat_tensors_backward"} <= expected
    assert "not_a_call" not in expected and "MACRO_CALL" not in expected
    assert read_helper_names([header]) == expected  # scanned, then stored
    stored = list((tmp_path / "cache" / "schemac" / "helpers").glob("*.json"))
    assert len(stored) == 1

    def no_scan(text: str) -> frozenset[str]:
        raise AssertionError("scanned again")

    monkeypatch.setattr(helper_headers, "header_functions", no_scan)
    assert read_helper_names([header]) == expected  # from the store
    stored[0].write_text("not json")
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert read_helper_names([header]) == expected  # a damaged entry is scanned afresh


def test_another_text_is_another_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SCHEMAC_NO_CACHE", raising=False)
    header = tmp_path / "Helpers.h"
    header.write_text(HEADER)
    first = read_helper_names([header])
    header.write_text(HEADER + "Tensor added_helper(Tensor x);\n")
    assert read_helper_names([header]) == first | {"added_helper"}


def test_without_a_cache_the_header_is_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHEMAC_NO_CACHE", "1")
    header = tmp_path / "Helpers.h"
    header.write_text(HEADER)
    assert read_helper_names([header]) == header_functions(HEADER)
