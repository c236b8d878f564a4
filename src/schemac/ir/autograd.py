"""What the derivative-matching pass learns about each differentiable operator.

derivatives.yaml says, per schema, how to compute input gradients from output
gradients (backward formulas) and output tangents from input tangents (forward
formulas).  The autograd backend needs much more than the text: which inputs
and outputs the backward node must save, under which name and which *property*
of them (the whole tensor, or only ``self.sym_sizes()``), which arguments get
a gradient, which outputs are differentiable, and the name of the C++ node
class (``AddBackward0``).  The matching pass computes all of that once and
stores it here, so the backend only prints.

Types are schema IR types (:mod:`schemac.ir.types`); choosing the C++ type a
saved variable is stored as is the backend's job, decided from the IR type and
the :class:`SavedProperty`.
"""

from __future__ import annotations

import enum
import functools
from typing import ClassVar

import attrs

from schemac.diagnostics import NO_SPAN, Span
from schemac.ir.names import OperatorName
from schemac.ir.slots import SourceKeyed
from schemac.ir.types import Type

_SPAN = attrs.field(default=NO_SPAN, eq=False, hash=False, repr=False)

#: The autograd key of a derivatives.yaml entry without a ``dispatch:`` table.
DEFAULT_AUTOGRAD_KEY = "Default"


class SavedProperty(enum.Enum):
    """What a backward node keeps of an input or output.

    A formula that only uses ``self.sym_sizes()`` does not need ``self``: the
    node saves the sizes at construction time.  The value is the suffix the
    saved variable's name gets (``self`` + ``_sym_sizes``); ``sym_argsize``
    also carries the dimension (``self_sym_argsize_minus_1``).
    """

    value = ""
    sym_sizes = "_sym_sizes"
    sym_sizes_opt = "_sym_sizes_opt"
    sym_blocksize_opt = "_self_sym_blocksize_opt"
    options = "_options"
    info = "_info"
    sym_argsize = "_sym_argsize_"
    numel = "_numel"
    sym_numel = "_sym_numel"
    args_sizes = "_args_sizes"
    args_sizes_symint = "_args_sizes_symint"
    args_scalartypes = "_args_scalartypes"
    geometry = "_geometry"
    scalar_type = "_scalar_type"
    dim = "_dim"
    sym_strides = "_sym_strides"
    layout = "_layout"
    conjugate = "_conjugate"


@attrs.frozen
class SavedAttribute:
    """One variable a backward node stores.

    ``name`` is the member name (``self_sym_sizes``); ``source`` the argument or
    return it is computed from (``self``); ``source_type`` that variable's
    schema type, or None for the packed TensorOptions argument (``options``);
    ``expr`` the C++ expression evaluated when the node is built.
    """

    name: str
    source: str
    source_type: Type | None
    prop: SavedProperty
    expr: str
    #: For ``sym_argsize``: the dimension as written (``-1``, ``dim``).
    prop_arg: str | None = None

    #: Every compared field (set below): a formula's saved values are also its
    #: info's (``all_saved_inputs``), so a backend fingerprinting them
    #: (Note [File reuse]) digests each once per run.
    reuse_fields: ClassVar[tuple[str, ...]]


@attrs.frozen
class Derivative:
    """One backward formula: gradients for ``var_names`` from output gradients."""

    var_names: tuple[str, ...]
    #: The formula with saved properties substituted (``self_sym_sizes``).
    formula: str
    #: The formula as written in derivatives.yaml.
    original_formula: str
    saved_inputs: tuple[SavedAttribute, ...] = ()
    saved_outputs: tuple[SavedAttribute, ...] = ()
    #: ``grad_<return name>`` gradients the formula uses, sorted.
    named_gradients: tuple[str, ...] = ()
    span: Span = _SPAN


@attrs.frozen
class ForwardDerivative(SourceKeyed):
    """One forward-mode formula: tangents of ``var_names`` from input tangents.

    Keyed by its info's source key when the matching pass made it with one
    (Note [Infos keyed by their source]).
    """

    var_names: tuple[str, ...]
    var_types: tuple[Type, ...]
    #: Final formula text; ``auto_element_wise``/``auto_linear`` already expanded.
    formula: str
    required_inputs_fw_grad: tuple[str, ...] | None = None
    required_inputs_primal: tuple[str, ...] | None = None
    required_original_self_value: bool = False
    #: True when an in-place operator borrows its functional twin's formula.
    is_reusing_outplace_formula: bool = False
    span: Span = _SPAN

    #: Every compared field (set below): a function's forward formulas are
    #: most often its info's own objects, so a run digests them once.
    reuse_fields: ClassVar[tuple[str, ...]]


@attrs.frozen
class DifferentiableArgument:
    """An argument that gets a gradient; ``type`` None means packed TensorOptions."""

    name: str
    type: Type | None


@attrs.frozen
class DifferentiabilityInfo(SourceKeyed):
    """One derivatives.yaml entry under one autograd dispatch key.

    Note [Infos keyed by their source]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    The autograd pieces' keys (Note [Autograd pieces] in
    ``backends/autograd/kernel_texts.py``) read every info, and walking an
    info (its formulas, saved values and their types, forward formulas) was
    the largest part of them after an edit (~35 ms of torch's 808 infos, in
    the ``-j 2`` child).  But the matching pass makes an entry's info from
    few values: the entry's *canonical* function, and the entry's own words
    (its base name, the autograd key, the backward and forward formulas as
    written, ``output_differentiability``) plus the node name handed out in
    file order.  The formula scope only decides diagnostics, and a run with
    any keeps no state.  So when the canonical function has a source key
    (Note [Functions keyed by their source] in :mod:`schemac.ir.native`), the
    pass derives the info's from it and a digest of those words
    (:func:`~schemac.ir.slots.derive_source_key`), and each of the info's
    forward formulas gets one derived from the info's (the info determines
    them); a view's ``_copy`` twin's info is derived from the view's with the
    three fields it changes.  Fingerprints then encode such an info as its
    key.  Infos made another way (a foreach operator's, synthesised from its
    reference) and forward formulas rewritten for an in-place variant have
    none and are walked, as before.  The price: an edit of the canonical
    function that leaves its infos as they were (a default value) changes
    their keys, so their nodes' buckets are printed again (a few nodes).
    """

    #: The entry's base name as written (``add``, ``add_``); names the node class.
    name: str
    #: The operator whose schema the formulas were resolved against.
    operator: OperatorName
    dispatch_key: str
    #: Backward node class name (``AddBackward0``); None if nothing is differentiable.
    node: str | None
    derivatives: tuple[Derivative, ...] = ()
    forward_derivatives: tuple[ForwardDerivative, ...] = ()
    all_saved_inputs: tuple[SavedAttribute, ...] = ()
    all_saved_outputs: tuple[SavedAttribute, ...] = ()
    #: ``grad_<name>`` for every differentiable named tensor return, in return order.
    available_named_gradients: tuple[str, ...] = ()
    used_named_gradients: tuple[str, ...] = ()
    #: In C++ argument order (out arguments first, TensorOptions packed).
    args_with_derivatives: tuple[DifferentiableArgument, ...] = ()
    non_differentiable_arg_names: tuple[str, ...] = ()
    output_differentiability: tuple[bool, ...] | None = None
    #: C++ conditions, when output_differentiability was written as strings.
    output_differentiability_conditions: tuple[str, ...] | None = None
    span: Span = _SPAN

    #: Every compared field (set below): an info is shared by the variants
    #: that borrow it (``add_.Tensor`` and ``add.out`` use ``add.Tensor``'s)
    #: and by its node, so a run digests it once however many pieces read it.
    reuse_fields: ClassVar[tuple[str, ...]]

    @property
    def has_derivatives(self) -> bool:
        return bool(self.args_with_derivatives)


# Remembered by the fingerprints of a run (Note [File reuse] in
# schemac.backends.reuse): every field ``==`` compares, spans excluded.
SavedAttribute.reuse_fields = tuple(f.name for f in attrs.fields(SavedAttribute) if f.eq)
ForwardDerivative.reuse_fields = tuple(f.name for f in attrs.fields(ForwardDerivative) if f.eq)
DifferentiabilityInfo.reuse_fields = tuple(
    f.name for f in attrs.fields(DifferentiabilityInfo) if f.eq
)


@attrs.frozen
class FunctionAutograd:
    """The derivative information one native function ends up with.

    ``infos`` has one entry per autograd key, ``Default`` first as written.
    ``exact_match`` is False when the function borrows another entry's infos
    (an in-place or out= variant using its functional formula, a foreach op
    using its per-tensor op's).  ``forward_derivatives`` are the per-key forward
    formulas as this function must use them (rewritten for in-place variants).
    """

    function: OperatorName
    infos: tuple[DifferentiabilityInfo, ...]
    exact_match: bool
    forward_derivatives: tuple[tuple[str, tuple[ForwardDerivative, ...]], ...] = ()

    def info_for(self, key: str) -> DifferentiabilityInfo | None:
        for info in self.infos:
            if info.dispatch_key == key:
                return info
        return None

    @property
    def nodes(self) -> tuple[tuple[str, str | None], ...]:
        """(autograd key, backward node name) pairs."""
        return tuple((info.dispatch_key, info.node) for info in self.infos)


@attrs.frozen(slots=False)
class AutogradTable:
    """The derivative-matching pass's result for a whole module."""

    functions: tuple[FunctionAutograd, ...] = ()
    #: Every autograd key some derivatives.yaml entry uses (``Default`` included).
    used_dispatch_keys: tuple[str, ...] = ()

    # A plain attribute, not a field (hence no slots), so printers walking
    # the fields do not print it; built on first use (backends that only
    # walk ``functions`` never need it).
    @functools.cached_property
    def _by_name(self) -> dict[OperatorName, FunctionAutograd]:
        return {e.function: e for e in self.functions}

    def for_function(self, name: OperatorName) -> FunctionAutograd | None:
        return self._by_name.get(name)
