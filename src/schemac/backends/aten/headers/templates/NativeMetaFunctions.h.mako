#pragma once

${banner}

#include <ATen/core/Tensor.h>
#include <ATen/core/IListRef.h>
#include <ATen/TensorMeta.h>
#include <ATen/TensorIterator.h>

% for path in view.includes:
#include <${path}>
% endfor
