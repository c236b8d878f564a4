"""node_getters.py: every getter kind prints a complete, balanced C++ function.

torch's own files exercise only some kinds (the conformance test compares
those with torchgen byte for byte); these checks cover all of them.
"""

from __future__ import annotations

import pytest

from schemac.backends.python.autograd_nodes import Getter, NodeProperty
from schemac.backends.python.node_getters import getters_text


@pytest.mark.parametrize("getter", list(Getter), ids=lambda g: g.value)
def test_each_getter_kind_prints_one_balanced_function(getter: Getter) -> None:
    prop = NodeProperty("other", getter)
    text = getters_text("MulBackward0", (prop,))
    functions = 2 if prop.has_raw else 1
    assert text.count("static PyObject* THPMulBackward0_other_") == functions
    assert text.count("END_HANDLE_TH_ERRORS") == functions
    assert text.count("{") == text.count("}")
    assert text.endswith("}\n\n")
    if getter.value.startswith("optional_"):
        assert "Py_RETURN_NONE;" in text
    if getter in (Getter.saved_variable_list, Getter.scalar_list):
        assert "node->other_released_" in text  # a released list raises instead


def test_getters_of_a_node_follow_property_order() -> None:
    props = (NodeProperty("b", Getter.int64), NodeProperty("a", Getter.saved_variable))
    text = getters_text("AddBackward0", props)
    assert text.index("THPAddBackward0_b_getter") < text.index("THPAddBackward0_a_getter")
    assert "THPAddBackward0_a_raw_getter" in text
    assert "node->a_.unpack(self->cdata)" in text  # SavedVariable members end in '_'
