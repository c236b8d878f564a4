"""Hypothesis strategies for schema strings.

Two families:

* :func:`valid_schemas` builds well-formed schemas from their parts, choosing
  each part so the rules torchgen's ``FunctionSchema.__post_init__`` enforces
  hold by construction (in-place operators return ``self``, out arguments are
  returned in order, no mix of mutable and fresh returns, ...).  Every string it
  draws must be accepted by both parsers; the tests check that.
* :func:`mutated_schemas` damages a valid schema the way people do: a character
  or token deleted, inserted, replaced or duplicated, separators respelled,
  tokens swapped.  Most results are invalid; some are still valid, which is
  fine: the differential test decides, never the strategy.

Everything here draws from the schema language as torchgen canonicalises it,
so a string either parser accepts is also its own canonical form.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

BASE_TYPES = (
    "Generator",
    "ScalarType",
    "Tensor",
    "int",
    "DimVector",
    "float",
    "str",
    "bool",
    "Layout",
    "Device",
    "DeviceIndex",
    "Scalar",
    "MemoryFormat",
    "QScheme",
    "Storage",
    "Stream",
    "SymInt",
    "SymBool",
    "GraphModule",
)

# Names that mean something to the schema rules; the valid generator only
# uses them where it means to.
_RESERVED_NAMES = frozenset({"self", "dtype", "layout", "device", "pin_memory"})

# Small pools draw much faster than regexes and shrink to readable names; the
# tricky spellings (keywords, type names, trailing underscores) are included.
_IDENTIFIERS = (
    "a",
    "b",
    "x",
    "y",
    "x1",
    "a_b",
    "other",
    "out",
    "input",
    "weight",
    "bias",
    "values",
    "indices",
    "dim",
    "keepdim",
    "alpha",
    "p",
    "n",
    "result",
    "grad",
    "int",
    "float",
    "bool",
    "str",
    "tensor",
    "def",
    "return",
    "true",
    "none",
    "functional",
    "out0",
    "a__b",
    "q_",
    "z9",
)
_identifier = st.sampled_from(_IDENTIFIERS)
argument_names = _identifier.filter(
    lambda n: n not in _RESERVED_NAMES and not n.startswith("_scratch_")
)
_upper_identifier = st.one_of(
    _identifier,
    st.sampled_from(("_foo", "Foo", "_", "__", "x_", "_x_", "A1", "aten", "prims", "_c10d")),
)


# -- types -------------------------------------------------------------------
def _custom_class() -> st.SearchStrategy[str]:
    parts = st.sampled_from(("ns", "Foo", "_x", "9", "quantized", "Conv2dPackedParamsBase"))
    return st.lists(parts, min_size=1, max_size=3).map(
        lambda names: "__torch__.torch.classes." + ".".join(names)
    )


_element_types = st.one_of(st.sampled_from(BASE_TYPES), _custom_class())
_suffix = st.one_of(
    st.just("?"),
    st.just("[]"),
    st.integers(min_value=1, max_value=12).map(lambda n: f"[{n}]"),
)
types = st.builds(
    lambda base, suffixes: base + "".join(suffixes),
    _element_types,
    st.lists(_suffix, max_size=3),
)

# Types that may carry an alias annotation, written without one.
ANNOTATABLE = ("Tensor", "Tensor?", "Tensor[]")


def annotated(ty: str, annotation: str) -> str:
    return ty.replace("Tensor", f"Tensor({annotation})", 1)


_alias = st.sampled_from("abcdefghijklmnopqrstuvwxyz")


@st.composite
def read_annotations(draw: st.DrawFn) -> str:
    """A non-mutable annotation: ``a``, ``a|b``, ``a -> *``, ``a|b -> c``..."""
    before = draw(st.lists(_alias, min_size=1, max_size=2))
    text = "|".join(before)
    if draw(st.booleans()):
        if len(before) > 1:
            after = [draw(_alias)]
        else:
            after = draw(st.lists(_alias, min_size=1, max_size=3))
        text += " -> " + ("*" if draw(st.booleans()) else "|".join(after))
    return text


_READ_ANNOTATIONS = read_annotations()


@st.composite
def write_annotations(draw: st.DrawFn, alias: str) -> str:
    """A mutable annotation on ``alias``: ``a!`` or ``a! -> *`` and friends."""
    text = f"{alias}!"
    if draw(st.integers(0, 5)) == 0:
        after = draw(st.lists(_alias, min_size=1, max_size=3))
        text += " -> " + ("*" if draw(st.booleans()) else "|".join(after))
    return text


# -- defaults ------------------------------------------------------------------
_numbers = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.from_regex(
        r"-?([0-9]{1,3}(\.[0-9]{0,3})?|\.[0-9]{1,3})([eE][-+]?[0-9]{1,2})?", fullmatch=True
    ),
)
_string_body = st.lists(
    st.one_of(
        st.sampled_from(list("abcXYZ019 _-.:/()[]{}")),
        st.sampled_from(["\\'", '\\"', "\\\\", "\\n", "\\t", ",a"]),
    ),
    max_size=6,
).map("".join)
_strings = st.one_of(
    _string_body.filter(lambda b: "'" not in b.replace("\\'", "")).map(lambda b: f"'{b}'"),
    _string_body.filter(lambda b: '"' not in b.replace('\\"', "")).map(lambda b: f'"{b}"'),
)
_list_items = st.one_of(st.integers(-5, 64).map(str), _identifier, st.just("1.5"))
_lists = st.lists(_list_items, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]")
defaults = st.one_of(
    _numbers,
    st.sampled_from(["True", "False", "None"]),
    _strings,
    _lists,
    _upper_identifier,
)


# -- arguments and returns -----------------------------------------------------
@st.composite
def plain_arguments(draw: st.DrawFn, *, allow_read_annotation: bool = True) -> str:
    """An argument without a mutable annotation, maybe with a default."""
    ty = draw(types)
    if allow_read_annotation and draw(st.integers(0, 3)) == 0:
        ty = annotated(draw(st.sampled_from(ANNOTATABLE)), draw(_READ_ANNOTATIONS))
    text = f"{ty} {draw(argument_names)}"
    if draw(st.booleans()):
        text += "=" + draw(defaults)
    return text


_PLAIN_ARGUMENTS = plain_arguments()
_PLAIN_UNANNOTATED = plain_arguments(allow_read_annotation=False)


@st.composite
def fresh_returns(draw: st.DrawFn) -> list[str]:
    """Returns that alias nothing mutable: (), one, a tuple, maybe named."""
    count = draw(st.sampled_from([0, 1, 1, 2, 3]))
    named = count > 0 and draw(st.booleans())
    out = []
    for _ in range(count):
        ty = draw(types)
        if draw(st.integers(0, 3)) == 0:
            ty = annotated(draw(st.sampled_from(ANNOTATABLE)), draw(_alias))
        out.append(f"{ty} {draw(argument_names)}" if named else ty)
    return out


_FRESH_RETURNS = fresh_returns()


def _returns_text(returns: list[str]) -> str:
    if len(returns) == 1:
        return returns[0]
    return "(" + ", ".join(returns) + ")"


# -- names ---------------------------------------------------------------------
_namespaces = st.one_of(st.just(""), _upper_identifier.map(lambda ns: f"{ns}::"))
_overloads = st.one_of(
    st.just(""),
    st.sampled_from(
        ("out", "Tensor", "Scalar", "int", "0", "dim_IntList", "_x", "a1", "grad_input")
    ).map(lambda o: f".{o}"),
)
_DUNDERS = ("add", "sub", "mul", "and", "or", "xor", "lshift", "rshift", "eq", "neg")


def _plain_base_name(name: str) -> bool:
    return (
        not name.endswith("_")
        and not name.endswith("_out")
        and not name.endswith("_functional")
        and re.fullmatch(r"__[^_]+__", name) is None
    )


_functional_base = st.one_of(
    _upper_identifier.filter(_plain_base_name),
    st.sampled_from(_DUNDERS).map(lambda d: f"__{d}__"),
    _identifier.filter(_plain_base_name).map(lambda n: f"{n}_functional"),
)


# -- schemas -------------------------------------------------------------------
def _schema(name: str, positional: list[str], kwarg_only: list[str], returns: list[str]) -> str:
    items = list(positional)
    if kwarg_only:
        items.append("*")
        items.extend(kwarg_only)
    return f"{name}({', '.join(items)}) -> {_returns_text(returns)}"


@st.composite
def functional_schemas(draw: st.DrawFn) -> str:
    """No mutation visible in the returns; maybe a self and TensorOptions."""
    name = draw(_namespaces) + draw(_functional_base) + draw(_overloads)
    positional = draw(st.lists(_PLAIN_ARGUMENTS, max_size=4))
    if draw(st.booleans()):
        positional.insert(draw(st.integers(0, len(positional))), "Tensor self")
    # A mutable positional argument after self is allowed if it is not returned;
    # 'z' is never used by fresh returns' annotations below... unless drawn, so
    # give it a letter returns cannot draw.
    kwarg_only = draw(st.lists(_PLAIN_ARGUMENTS, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        quartet = [
            "ScalarType? dtype=None",
            "Layout? layout=None",
            "Device? device=None",
            "bool? pin_memory=None",
        ]
        kwarg_only[len(kwarg_only) // 2 : len(kwarg_only) // 2] = quartet
    returns = draw(_FRESH_RETURNS)
    return _schema(name, positional, kwarg_only, returns)


@st.composite
def inplace_schemas(draw: st.DrawFn) -> str:
    """``foo_`` / ``__iadd__``: a mutable self, returned (if it is a Tensor)."""
    base = draw(
        st.one_of(
            _identifier.filter(_plain_base_name).map(lambda n: f"{n}_"),
            st.sampled_from(["add", "sub", "mul", "and", "or", "xor", "lshift"]).map(
                lambda d: f"__i{d}__"
            ),
        )
    )
    name = draw(_namespaces) + base + draw(_overloads)
    self_type = draw(st.sampled_from(["Tensor", "Tensor", "Tensor[]", "Tensor?"]))
    self_arg = f"{annotated(self_type, 'a!')} self"
    positional = [self_arg, *draw(st.lists(_PLAIN_ARGUMENTS, max_size=3))]
    kwarg_only = draw(st.lists(_PLAIN_ARGUMENTS, max_size=2))
    returns = ["Tensor(a!)"] if self_type == "Tensor" else []
    return _schema(name, positional, kwarg_only, returns)


@st.composite
def out_schemas(draw: st.DrawFn) -> str:
    """``foo.out``: trailing mutable keyword-only arguments, returned in order."""
    name = draw(_namespaces) + draw(_identifier.filter(_plain_base_name)) + draw(_overloads)
    positional = draw(st.lists(_PLAIN_ARGUMENTS, max_size=3))
    kwarg_only = draw(st.lists(_PLAIN_ARGUMENTS, max_size=2))
    count = draw(st.integers(1, 3))
    letters = "abc"[:count]
    if draw(st.integers(0, 4)) == 0:
        outs = [f"Tensor({letters[0]}!)[] {draw(argument_names)}"]
        returns: list[str] = []
    else:
        names = draw(st.lists(argument_names, min_size=count, max_size=count))
        outs = [f"Tensor({letter}!) {n}" for letter, n in zip(letters, names, strict=False)]
        named = draw(st.booleans())
        returns = [
            f"Tensor({letter}!) {n}" if named else f"Tensor({letter}!)"
            for letter, n in zip(letters, names, strict=False)
        ]
        if draw(st.integers(0, 4)) == 0:
            # Scratch tensors for memory planning: out arguments never returned.
            outs.append("Tensor(s!) _scratch_" + draw(argument_names))
    return _schema(name, positional, kwarg_only + outs, returns)


@st.composite
def mutable_schemas(draw: st.DrawFn) -> str:
    """Mutable positional arguments after self, not returned."""
    name = draw(_namespaces) + draw(_identifier.filter(_plain_base_name)) + draw(_overloads)
    positional = ["Tensor self"] if draw(st.booleans()) else []
    positional += [
        f"{annotated(draw(st.sampled_from(ANNOTATABLE)), draw(write_annotations('z')))} "
        f"{draw(argument_names)}"
    ]
    positional += draw(st.lists(_PLAIN_UNANNOTATED, max_size=2))
    returns = draw(st.lists(types, max_size=2))
    return _schema(name, positional, [], returns)


def valid_schemas() -> st.SearchStrategy[str]:
    return st.one_of(functional_schemas(), inplace_schemas(), out_schemas(), mutable_schemas())


# -- loose schemas ---------------------------------------------------------------
@st.composite
def any_annotations(draw: st.DrawFn) -> str:
    """Every annotation the grammar can spell, sensible or not."""
    text = "|".join(draw(st.lists(_alias, min_size=1, max_size=3)))
    if draw(st.booleans()):
        text += "!"
    if draw(st.booleans()):
        after = "|".join(draw(st.lists(_alias, min_size=1, max_size=3)))
        text += " -> " + ("*" if draw(st.booleans()) else after)
    return text


_ANY_ANNOTATIONS = any_annotations()


_TYPES_OR_ANNOTATABLE = st.one_of(types, st.sampled_from(ANNOTATABLE))


@st.composite
def _loose_type(draw: st.DrawFn) -> str:
    ty = draw(_TYPES_OR_ANNOTATABLE)
    if draw(st.booleans()):
        if "Tensor" in ty:
            ty = annotated(ty, draw(_ANY_ANNOTATIONS))
        else:
            base = re.match(r"[A-Za-z_.]+", ty)
            assert base is not None
            ty = f"{base.group()}({draw(_ANY_ANNOTATIONS)}){ty[base.end() :]}"
    return ty


_LOOSE_TYPE = _loose_type()


_QUARTET = [
    "ScalarType? dtype=None",
    "Layout? layout=None",
    "Device? device=None",
    "bool? pin_memory=None",
]


@st.composite
def _loose_item(draw: st.DrawFn) -> list[str]:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return ["*"]
    if kind == 1:
        return list(_QUARTET)
    name = draw(st.one_of(argument_names, st.sampled_from(sorted(_RESERVED_NAMES))))
    text = f"{draw(_LOOSE_TYPE)} {name}"
    if draw(st.integers(0, 3)) == 0:
        text += "=" + draw(defaults)
    return [text]


_LOOSE_ITEM = _loose_item()


@st.composite
def loose_schemas(draw: st.DrawFn) -> str:
    """Grammatical schemas that ignore the semantic rules.

    Any annotation on any type, '*' anywhere and any number of times, several
    TensorOptions groups, unnamed returns with '->' annotations, names ending
    in '_out' or '_functional': the parsers must agree on all of them.
    """
    suffix = draw(st.sampled_from(["", "", "_", "_out", "_functional", "_functional_"]))
    base = draw(st.one_of(_identifier, st.sampled_from(_DUNDERS), st.just("iadd"), st.just("ifoo")))
    if draw(st.integers(0, 4)) == 0:
        base = f"__{base}__"
    else:
        base += suffix
    name = draw(_namespaces) + base + draw(st.one_of(_overloads, st.just(".functional")))
    items = [item for group in draw(st.lists(_LOOSE_ITEM, max_size=6)) for item in group]
    count = draw(st.sampled_from([0, 1, 1, 2, 3]))
    named = draw(st.booleans())
    returns = []
    for _ in range(count):
        ty = draw(_LOOSE_TYPE)
        returns.append(f"{ty} {draw(argument_names)}" if named else ty)
    return f"{name}({', '.join(items)}) -> {_returns_text(returns)}"


# -- mutations -------------------------------------------------------------------
_NOISE = [
    *list(" ,()[]!?=-><*|.:'\"\\\n\tax1_"),
    ", ",
    " -> ",
    "->",
    "Tensor",
    "(a!)",
    "(a)",
    "?",
    "[]",
    "*, ",
    "=None",
    "::",
    "é",
    "\u0661",  # ARABIC-INDIC DIGIT ONE: a digit of another script
    "|b",
    "|c",
    " -> *",
    "!",
    "*",
]
_TOKEN = re.compile(r" -> |, |[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d*)?|'[^']*'|\"[^\"]*\"|.", re.S)
_RESPELLINGS = [
    (", ", ","),
    (", ", " ,"),
    (", ", " "),
    (" -> ", "->"),
    (" -> ", " ->"),
    (" -> ", " => "),
    (" ", "  "),
    ("!", ""),
    ("(a!)", "(a)!"),
    ("(a!)", "(!a)"),
    ("(a!)", "(a !)"),
    ("Tensor(a!)?", "Tensor?(a!)"),
    ("Tensor(a)", "Tensor (a)"),
    ("?", "[]"),
    ("[]", "?"),
    ("int", "Int"),
    ("Tensor", "tensor"),
    ("Tensor", "Tensors"),
    ("float", "double"),
    ("bool", "boolean"),
    ("=", " = "),
    ("*, ", ""),
    (
        "(",
        "[",
    ),
    (")", "]"),
    ("True", "true"),
    ("None", "none"),
    (".", "::"),
    ("\\n", "\n"),  # an escaped newline in a string default made raw
]


@st.composite
def _mutate(draw: st.DrawFn, text: str) -> str:
    op = draw(st.integers(0, 10))
    if op == 0 and text:  # delete a character
        i = draw(st.integers(0, len(text) - 1))
        return text[:i] + text[i + 1 :]
    if op == 1:  # insert noise
        i = draw(st.integers(0, len(text)))
        return text[:i] + draw(st.sampled_from(_NOISE)) + text[i:]
    if op == 2 and text:  # replace a character
        i = draw(st.integers(0, len(text) - 1))
        return text[:i] + draw(st.sampled_from(_NOISE)) + text[i + 1 :]
    if op == 6:  # respell a separator or a common word
        old, new = draw(st.sampled_from(_RESPELLINGS))
        if old in text:
            starts = [m.start() for m in re.finditer(re.escape(old), text)]
            i = draw(st.sampled_from(starts))
            return text[:i] + new + text[i + len(old) :]
    if op in (7, 8, 9):  # delete, duplicate or move whole ", "-separated items
        items = text.split(", ")
        if len(items) > 1:
            i = draw(st.integers(0, len(items) - 1))
            j = draw(st.integers(i, min(i + 4, len(items))))
            if op == 7:
                del items[i:j]
            elif op == 8:
                items[j:j] = items[i:j]
            else:
                k = draw(st.integers(0, len(items) - 1))
                items.insert(k, items.pop(i))
            return ", ".join(items)
    tokens = _TOKEN.findall(text)
    if op == 3 and tokens:  # delete a token
        i = draw(st.integers(0, len(tokens) - 1))
        return "".join(tokens[:i] + tokens[i + 1 :])
    if op == 4 and len(tokens) > 1:  # swap two tokens
        i = draw(st.integers(0, len(tokens) - 1))
        j = draw(st.integers(0, len(tokens) - 1))
        tokens[i], tokens[j] = tokens[j], tokens[i]
        return "".join(tokens)
    if op == 5 and tokens:  # duplicate a token
        i = draw(st.integers(0, len(tokens) - 1))
        return "".join(tokens[: i + 1] + tokens[i:])
    if tokens:  # replace a token by a plausible one
        i = draw(st.integers(0, len(tokens) - 1))
        tokens[i] = draw(st.one_of(st.sampled_from(_NOISE), st.sampled_from(BASE_TYPES), defaults))
        return "".join(tokens)
    return text


_MUTATION_SEEDS = st.one_of(valid_schemas(), loose_schemas())


@st.composite
def mutated_schemas(draw: st.DrawFn) -> str:
    """A valid schema with one to three mutations applied."""
    text = draw(_MUTATION_SEEDS)
    for _ in range(draw(st.integers(1, 3))):
        text = draw(_mutate(text))
    return text


def schema_like_text() -> st.SearchStrategy[str]:
    """Every family at once: valid, damaged, and arbitrary text."""
    return st.one_of(
        valid_schemas(),
        loose_schemas(),
        loose_schemas(),
        mutated_schemas(),
        mutated_schemas(),
        st.text(max_size=60),
        st.text(alphabet=st.sampled_from(list("f(Tensor a!)->, *=?[]1.:'\"")), max_size=40),
    )
