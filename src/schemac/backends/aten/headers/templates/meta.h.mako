#pragma once

${banner}

<%include file="native_includes.mako"/>
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <tuple>
#include <vector>

namespace at {
namespace meta {
% for c in view.classes:

struct TORCH_API ${c.class_name} : public ${c.base_class} {
%   if c.setters:
    template <${c.template_parameters}>
    struct TORCH_API precompute_out {
%     for s in c.setters:
        ${s.returns} set_${s.name}(${s.type} value) {
            static_assert(${s.flag} == false, "${s.name} already set");
            ${s.returns} ret;
%       for a in s.assignments:
            ${a}
%       endfor
            return ret;
        }
%     endfor
%     for f in c.fields:
        ${f}
%     endfor
    };
    using ${c.return_alias} = ${c.all_set};
%   endif
    ${c.meta_decl};
};
% endfor

} // namespace meta
} // namespace at
