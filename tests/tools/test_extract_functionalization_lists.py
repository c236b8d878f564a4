"""tools/extract_profile.py: the functionalization and vmap lists, on small stand-in sources.

The real releases are covered by test_extract_profile.py (each committed
profile must be reproduced); these check what each reader accepts.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "extract_profile.py"


def _load_tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("extract_profile_functionalization", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


extract_profile = _load_tool()

FUNCTIONALIZATION = """
CUMULATIVE_OUT_OPS_PRESERVING_OUT_DTYPE = {
    OperatorName.parse("cumsum.out"),
}

class ViewMetaSpecialization:
    @property
    def is_as_strided(self) -> bool:
        return str(self.f.func.name) == "as_strided"

def gen_functionalization_registration(selector, g, index):
    if str(g.view.func.name) == "lift_fresh":
        return []
    if str(f.func.name.name) != "set_":
        raise AssertionError()
    if str(f.func.name) == "resize_":
        return []
    if str(f.func.name) in SOME_LIST:
        return []
"""

VMAP = """
def gen_vmap_plumbing(native_function):
    return_symint_overrides = ["_attention_a", "_attention_b"]
"""

INVERSES = """struct FunctionalInverses {
static at::Tensor chunk_inverse(const at::Tensor & base, const at::Tensor & mutated_view, InverseReturnMode inverse_return_mode, int64_t mutated_view_idx, int chunks, int dim);
};
"""  # noqa: E501


def test_functionalization_lists(tmp_path: Path) -> None:
    for relative, text in (
        (extract_profile.FUNCTIONALIZATION, FUNCTIONALIZATION),
        (extract_profile.VMAP, VMAP),
        (extract_profile.INVERSES_TEMPLATE, INVERSES),
    ):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    lists = extract_profile.functionalization_lists(extract_profile.ReleaseFiles(tmp_path))
    assert lists == {
        # only `str(<x>.func.name) == "..."`: not `.name.name != ...`, not `in LIST`
        "functionalization_hand_written": ["lift_fresh", "resize_"],
        "functionalization_as_strided_views": ["as_strided"],
        "vmap_non_tensor_return_ops": ["_attention_a", "_attention_b"],
        "functionalization_hand_declared_inverses": [
            "chunk_inverse(int64_t mutated_view_idx, int chunks, int dim)"
        ],
    }
    literals = extract_profile.module_literals(FUNCTIONALIZATION)
    assert literals["CUMULATIVE_OUT_OPS_PRESERVING_OUT_DTYPE"] == {"cumsum.out"}


def test_a_release_without_the_files_has_no_lists(tmp_path: Path) -> None:
    assert extract_profile.functionalization_lists(extract_profile.ReleaseFiles(tmp_path)) == {}
