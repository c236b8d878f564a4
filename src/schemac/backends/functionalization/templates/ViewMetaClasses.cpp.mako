${banner}

#include <ATen/FunctionalInverses.h>
#include <ATen/ViewMetaClasses.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/NativeFunctions.h>
#include <ATen/Operators.h>
#else
% for header in view.headers:
#include <${header}>
% endfor
#endif

namespace at {
namespace functionalization {

% for definition in view.definitions:
${definition}

% endfor
} // namespace functionalization
} // namespace at
