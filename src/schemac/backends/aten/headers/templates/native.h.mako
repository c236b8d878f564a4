#pragma once

${banner}

<%include file="native_includes.mako"/>
#include <ATen/core/Tensor.h>
#include <tuple>
#include <vector>
% if view.includes_meta:

#include <ATen/ops/${view.root}_meta.h>
% endif
% for ns in view.namespaces:

namespace ${ns.namespace} {
%   for d in ns.declarations:
%     if d.structured:
struct ${d.export} ${d.class_name} : public ${d.base_class} {
    ${d.impl};
};
%     else:
${d.decl}
%     endif
%   endfor
} // namespace ${ns.namespace}
% endfor
