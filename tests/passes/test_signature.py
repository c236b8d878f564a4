"""The normalised signature that groups variants, and the frozen mapping of the IR."""

from __future__ import annotations

import pytest

from schemac.frontend.schema_parser import parse_schema
from schemac.ir.frozen import FrozenMap
from schemac.ir.module import Module
from schemac.ir.signature import signature, signature_key, view_signature


def sig(text: str, **options: bool) -> str:
    return str(signature(parse_schema(text), **options))


def test_variants_share_one_signature() -> None:
    functional = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    inplace = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
    out = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    expected = "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert sig(functional) == sig(inplace) == sig(out) == expected
    assert signature_key(parse_schema(inplace)) == signature_key(parse_schema(out))


def test_mutated_inputs_become_returns_and_options_drop() -> None:
    mutable = "bn(Tensor input, Tensor(a!) mean, float eps) -> (Tensor out, Tensor)"
    assert sig(mutable) == "bn(Tensor input, Tensor mean, float eps) -> (Tensor, Tensor, Tensor)"
    assert sig(mutable, keep_return_names=True) == (
        "bn(Tensor input, Tensor mean, float eps) -> (Tensor out, Tensor, Tensor mean_out)"
    )
    factory = (
        "ones(int[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor"
    )
    assert sig(factory) == "ones(int[] size) -> Tensor"
    assert sig("f(Tensor self, int k=1) -> Tensor", strip_default=True) == (
        "f(Tensor self, int k) -> Tensor"
    )


def test_view_copy_and_scatter_names() -> None:
    assert str(view_signature(parse_schema("t_copy.int(Tensor self, int d) -> Tensor"))) == (
        "t(Tensor self, int d) -> Tensor"
    )
    assert str(view_signature(parse_schema("slice_scatter(Tensor self) -> Tensor"))) == (
        "slice_inverse(Tensor self) -> Tensor"
    )


def test_bernoulli_p_gets_its_siblings_default() -> None:
    # Note [bernoulli.p signature]
    assert sig("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor") == (
        sig(
            "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None)"
            " -> Tensor(a!)"
        )
    )


def test_frozen_map() -> None:
    table = FrozenMap((("CPU", 1), ("CUDA", 2)))
    assert list(table) == ["CPU", "CUDA"] and table["CUDA"] == 2 and "CPU" in table
    assert table == FrozenMap.of({"CPU": 1, "CUDA": 2})
    assert hash(table) == hash(FrozenMap.of({"CPU": 1, "CUDA": 2}))
    assert table != FrozenMap((("CUDA", 2), ("CPU", 1)))  # order is part of the value
    with pytest.raises(ValueError, match="duplicate"):
        FrozenMap((("CPU", 1), ("CPU", 2)))


def test_signature_keys_agree_with_signature_key_on_torch(real_module: Module) -> None:
    """The three keys computed at once group functions as the three computed one by one."""
    from schemac.passes.derivatives_signature import signature_key as derivative_key
    from schemac.passes.derivatives_signature import signature_keys

    options = {
        "plain": {},
        "no_defaults": {"strip_default": True},
        "view_copy": {"strip_view_copy_name": True},
    }
    for field, kwargs in options.items():
        ours: dict[object, list[str]] = {}
        reference: dict[object, list[str]] = {}
        for f in real_module.functions:
            ours.setdefault(getattr(signature_keys(f.func), field), []).append(str(f.name))
            reference.setdefault(derivative_key(f.func, **kwargs), []).append(str(f.name))
        assert list(ours.values()) == list(reference.values()), field
    bernoulli = parse_schema(
        "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor"
    )
    assert any(n == "p" and d == "0.5" for n, _, d in signature_keys(bernoulli).no_defaults[2])


def test_types_are_equal_exactly_when_they_print_alike(real_module: Module) -> None:
    """What lets signature keys hold types instead of their spelling."""
    types = {a.type for f in real_module.functions for a in f.func.arguments.flat_all}
    types |= {r.type for f in real_module.functions for r in f.func.returns}
    by_text: dict[str, object] = {}
    for ty in types:
        assert by_text.setdefault(str(ty), ty) == ty
    assert len(by_text) == len(types) > 50


def test_family_key_partitions_like_signature_key(real_module: Module) -> None:
    """Bucketing by the cheap key groups exactly as bucketing by the IR signature."""
    from schemac.ir.signature import family_key
    from schemac.passes.derivatives_signature import signature_key as spelled_key

    by_family: dict[object, list[str]] = {}
    by_signature: dict[object, list[str]] = {}
    for f in real_module.functions:
        by_family.setdefault(family_key(f.func), []).append(str(f.name))
        by_signature.setdefault(signature_key(f.func), []).append(str(f.name))
        assert f.func.family_key == family_key(f.func)
        # The same tuple as the derivative matcher's spelled key, built by other code.
        assert family_key(f.func) == spelled_key(f.func), str(f.func)
    assert list(by_family.values()) == list(by_signature.values())
    assert any(len(names) > 2 for names in by_family.values())
    p = parse_schema("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")
    p_ = parse_schema(
        "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)"
    )
    assert family_key(p) == family_key(p_)


def test_view_copy_key_of_the_family_key_partitions_like_the_view_signature(
    real_module: Module,
) -> None:
    """group-views buckets by it: a view pairs with the copy twin its IR view signature names."""
    from schemac.ir.signature import view_signature_key
    from schemac.passes.derivatives_signature import view_copy_key

    cheap: dict[object, list[str]] = {}
    reference: dict[object, list[str]] = {}
    for f in real_module.functions:
        cheap.setdefault(view_copy_key(f.func.family_key), []).append(str(f.name))  # type: ignore[arg-type]
        reference.setdefault(view_signature_key(f.func), []).append(str(f.name))
    assert list(cheap.values()) == list(reference.values())
    assert any(any(n.split(".")[0].endswith("_copy") for n in names) for names in cheap.values())
    assert any(len(names) > 1 for names in cheap.values() if any("_copy" in n for n in names))
