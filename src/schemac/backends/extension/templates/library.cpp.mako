${banner}
// Defines the ${view.namespace} library; each register/<op>.cpp adds its schemas
// in a TORCH_LIBRARY_FRAGMENT.
#include <torch/library.h>

TORCH_LIBRARY(${view.namespace}, m) {}
