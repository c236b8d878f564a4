${banner}
% if view.for_dispatcher:
// The shims of the operators the release's fallback_ops.py lists in
// aten_shimified_ops: they call through the dispatcher.
% else:
// The ${view.key} shims of the release's AOTInductor fallback operators: each
// calls its operator's ${view.key} (or composite) kernel directly.
% endif

#include <${view.header}>
#include <torch/csrc/inductor/aoti_torch/utils.h>

#ifndef AT_PER_OPERATOR_HEADERS
% for header in view.monolithic_headers:
#include <${header}>
% endfor
#else
% for header in view.operator_headers:
#include <${header}>
% endfor
#endif // AT_PER_OPERATOR_HEADERS
% for header in view.extra_headers:
#include <${header}>
% endfor

using namespace torch::aot_inductor;
% for function in view.functions:

${function.definition()}\
% endfor
