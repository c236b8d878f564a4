#pragma once

${banner}

// The declarations live in ${view.key}Functions_inl.h.  The split exists for
// static-dispatch builds, where TensorBody.h includes the _inl header after
// Tensor is complete; everyone else includes this file, which makes sure
// Tensor is defined first.
#include <ATen/core/TensorBody.h>

#include <ATen/${view.key}Functions_inl.h>
