// ${view.name}: a PrivateUse1 device whose memory is ordinary host memory.
// What the kernels need from the device runtime (device.cpp).
#pragma once

#include <c10/core/Allocator.h>

namespace ${view.name} {

// The allocator of every ${view.name} tensor; registered for PrivateUse1.
c10::Allocator* allocator();

} // namespace ${view.name}
