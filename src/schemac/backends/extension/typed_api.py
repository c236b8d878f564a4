"""``OUT/<ns>/ops/<root>.h``: the typed C++ API, header-only.

``<ns>::_ops::<op>`` looks the operator up in the dispatcher once (a
function-local static, one per shared library) and calls it through the
typed handle; ``<ns>::<op>(...)`` are the same overloads ATen's
``at::<op>`` has (plain, faithful ``_outf``, ``_symint``), forwarding to it.
Being header-only, the API works from any shared library that includes it
once the extension's registrations are loaded, without linking to them.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.registrations.translate import shared_call_arguments
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.extension.library import ExtensionLibrary, Family
from schemac.backends.extension.views import ExtensionViews
from schemac.ir.native import NativeFunction


@attrs.frozen
class FamilyApi:
    """What ``ops.h.mako`` lays out for one family."""

    root: str
    namespace: str
    handles: tuple[str, ...]
    functions: tuple[str, ...]


def handle_name(library: ExtensionLibrary, f: NativeFunction) -> str:
    """``<ns>::_ops::scale_out``: the struct holding the typed handle."""
    return f"{library.namespace}::_ops::{unambiguous_name(f.func)}"


def family_api(library: ExtensionLibrary, family: Family, views: ExtensionViews) -> FamilyApi:
    handles = tuple(_handle(library, f, views) for f in family.functions)
    functions = tuple(text for f in family.functions for text in _functions(library, f, views))
    return FamilyApi(family.root, library.namespace, handles, functions)


def _handle(library: ExtensionLibrary, f: NativeFunction, views: ExtensionViews) -> str:
    sig = views.dispatcher(f)
    names = [p.name for p in sig.params]
    qualified = cpp_string_literal(f"{library.namespace}::{f.func.name.name}")
    overload = cpp_string_literal(f.func.name.overload)
    lookup = [
        "static const auto op = c10::Dispatcher::singleton()",
        "    .findSchemaOrThrow(name, overload_name).typed<schema>();",
        "return op;",
    ]
    members = [
        f"using schema = {sig.type()};",
        f"static constexpr const char* name = {qualified};",
        f"static constexpr const char* overload_name = {overload};",
        block("static c10::TypedOperatorHandle<schema> handle()", lookup),
        block(
            "static " + sig.defn("call"),
            [f"return {call('handle().call', names)};"],
        ),
        block(
            "static " + sig.defn("redispatch", redispatch=True),
            [f"return {call('handle().redispatch', ['dispatchKeySet', *names])};"],
        ),
    ]
    return block(f"struct {unambiguous_name(f.func)}", members, tail=";")


def _functions(
    library: ExtensionLibrary, f: NativeFunction, views: ExtensionViews
) -> Iterator[str]:
    target = views.dispatcher(f)
    for sig in views.cpp_group(f).all():
        args = shared_call_arguments(views, sig.params, target.params)
        yield block(
            "inline " + sig.decl(), [f"return {call(handle_name(library, f) + '::call', args)};"]
        )
