#pragma once

${banner}
// One ViewMeta specialisation per view functionalization replays.
#include <ATen/FunctionalStorageImpl.h>

namespace at {
namespace functionalization {

% for declaration in view.declarations:
${declaration}

% endfor
} // namespace functionalization
} // namespace at
