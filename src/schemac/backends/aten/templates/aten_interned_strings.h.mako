#pragma once

${banner}

// Depending on this header makes a file depend on the whole operator library:
// it is rebuilt whenever any operator changes.  Files that only need the
// c10::Symbol class should include <ATen/core/symbol.h> instead, and files
// that promise not to depend on operators say so with these macros.
#if defined(TORCH_ASSERT_NO_OPERATORS) || defined(TORCH_ASSERT_ONLY_METHOD_OPERATORS)
#error "aten_interned_strings.h depends on every operator; include <ATen/core/symbol.h> instead"
#endif

// _(aten, name) for every operator base name of the library.
#define FORALL_ATEN_BASE_SYMBOLS(_) ${'\\'}
${view.operator_lines}

// _(attr, name) for every argument name of every operator.
#define FORALL_ATTR_BASE_SYMBOLS(_) ${'\\'}
${view.attribute_lines}
