namespace at {

// The meta class is declared here, not included from NativeFunctions.h, so
// that this file is not recompiled whenever an operator changes.
namespace meta {
struct TORCH_API ${plan.meta.class_name} : public ${plan.meta.base_class} {
    ${plan.meta.meta.decl()};
};
} // namespace meta

namespace native {
struct TORCH_API ${impl.class_name} : public ${plan.meta.qualified_class_name} {
    ${impl.impl.decl()};
};
