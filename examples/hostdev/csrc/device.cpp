// The runtime of the hostdev device: memory, the device guard and the hooks
// PyTorch asks a PrivateUse1 backend for.  Everything registers itself when
// the library is loaded (static initialisers), so loading the shared library
// is all the Python package has to do.
//
// There is one device (index 0), no streams beyond the default one, and
// every operation is synchronous: host memory needs nothing more.

#include "device.h"

#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/Storage.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace hostdev {
namespace {

constexpr c10::DeviceType kDevice = c10::DeviceType::PrivateUse1;
// Alignment the CPU kernels' vectorised loops like; malloc only promises 16.
constexpr std::size_t kAlignment = 64;

void release(void* data) {
  std::free(data);
}

class HostMemory final : public c10::Allocator {
 public:
  c10::DataPtr allocate(std::size_t nbytes) override {
    void* data = nullptr;
    if (nbytes > 0) {
      std::size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
      data = std::aligned_alloc(kAlignment, rounded);
      TORCH_CHECK(data != nullptr, "hostdev: out of memory allocating ", nbytes, " bytes");
    }
    return {data, data, &release, c10::Device(kDevice, 0)};
  }

  c10::DeleterFnPtr raw_deleter() const override {
    return &release;
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

HostMemory memory;

void check_index(c10::DeviceIndex index) {
  TORCH_CHECK(index == -1 || index == 0, "hostdev has one device (index 0), not ", int(index));
}

// Which device is current: there is only one, so setting it is only checked.
class Guard final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override {
    return kDevice;
  }
  c10::Device exchangeDevice(c10::Device device) const override {
    check_index(device.index());
    return c10::Device(kDevice, 0);
  }
  c10::Device getDevice() const override {
    return c10::Device(kDevice, 0);
  }
  void setDevice(c10::Device device) const override {
    check_index(device.index());
  }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device device) const override {
    return c10::Stream(c10::Stream::DEFAULT, device);
  }
  c10::Stream exchangeStream(c10::Stream stream) const override {
    return c10::Stream(c10::Stream::DEFAULT, stream.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    return 1;
  }
  // Work is synchronous, so every event has always happened already.
  void record(void**, const c10::Stream&, const c10::DeviceIndex, const c10::EventFlag)
      const override {}
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override {
    return true;
  }
  void destroyEvent(void*, const c10::DeviceIndex) const noexcept override {}
  bool queryStream(const c10::Stream&) const override {
    return true;
  }
  void synchronizeStream(const c10::Stream&) const override {}
  void synchronizeDevice(const c10::DeviceIndex) const override {}
};

// What the rest of PyTorch asks the backend (autograd's device threads,
// storage resizing from Python, pointer queries).
class Hooks final : public at::PrivateUse1HooksInterface {
 public:
  bool isBuilt() const override {
    return true;
  }
  bool isAvailable() const override {
    return true;
  }
  bool hasPrimaryContext(c10::DeviceIndex) const override {
    return true;
  }
  c10::DeviceIndex deviceCount() const override {
    return 1;
  }
  c10::DeviceIndex getCurrentDevice() const override {
    return 0;
  }
  at::Device getDeviceFromPtr(void*) const override {
    return at::Device(kDevice, 0);
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, std::size_t nbytes) const override {
    c10::StorageImpl* impl = storage.unsafeGetStorageImpl();
    TORCH_CHECK(impl->resizable(), "hostdev: this storage cannot be resized");
    c10::DataPtr fresh = memory.allocate(nbytes);
    std::size_t kept = std::min(nbytes, impl->nbytes());
    if (kept > 0) {
      std::memcpy(fresh.get(), impl->data(), kept);
    }
    impl->set_data_ptr_noswap(std::move(fresh));
    impl->set_nbytes(nbytes);
  }
};

const bool hooks_registered = [] {
  at::RegisterPrivateUse1HooksInterface(new Hooks());
  return true;
}();

} // namespace

c10::Allocator* allocator() {
  return &memory;
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &memory);
C10_REGISTER_GUARD_IMPL(PrivateUse1, Guard);

} // namespace hostdev
