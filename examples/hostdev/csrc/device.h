// hostdev: a PrivateUse1 device whose memory is ordinary host memory.
// What the kernels need from the device runtime (device.cpp).
#pragma once

#include <c10/core/Allocator.h>

namespace hostdev {

// The allocator of every hostdev tensor; registered for PrivateUse1.
c10::Allocator* allocator();

} // namespace hostdev
