#pragma once

${banner}

#ifdef TORCH_ASSERT_NO_OPERATORS
#error This file depends on native_functions.yaml: every operator change \
  recompiles whatever includes it. Include ATen/core/TensorBase.h if you do \
  not need operator methods (see NOTE: [Tensor vs. TensorBase]).
#endif

#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/QScheme.h>
#include <c10/core/Stream.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/ScalarTypeToTypeMeta.h>
#include <c10/core/Storage.h>
#include <c10/core/SymInt.h>
#include <c10/core/TensorImpl.h>
#include <c10/core/UndefinedTensorImpl.h>
#include <c10/core/WrapDimMinimal.h>
#include <c10/macros/Export.h>
#include <c10/macros/Macros.h>
#include <c10/util/Deprecated.h>
#include <c10/util/Exception.h>
#include <c10/util/ExclusivelyOwned.h>
#include <c10/util/MaybeOwned.h>
#include <c10/util/OptionalArrayRef.h>
#include <c10/util/intrusive_ptr.h>
#include <optional>
#include <ATen/core/CheckMemoryFormat.h>
#include <ATen/core/DeprecatedTypeProperties.h>
#include <ATen/core/DeprecatedTypePropertiesRegistry.h>
#include <ATen/core/QuantizerBase.h>
#include <ATen/core/TensorAccessor.h>
#include <ATen/core/TensorBase.h>

// The at::_ops structs of every method, declared against forward-declared types.
#include <ATen/MethodOperators.h>

namespace c10 {
template <class T> class List;
template <class T> class IListRef;
} // namespace c10

namespace torch::autograd {
struct Node;
} // namespace torch::autograd

namespace at {
struct Generator;
struct Type;
class DeprecatedTypeProperties;
class OptionalTensorRef;
class TensorRef;
class Tensor;
namespace indexing {
struct TensorIndex;
} // namespace indexing

using TensorList = ArrayRef<Tensor>;
using ITensorList = c10::IListRef<Tensor>;
using Stream = c10::Stream;

// A Tensor is a reference-counted handle to a TensorImpl (see TensorBase):
// copying a Tensor shares the data, it never copies it.  A default-constructed
// Tensor refers to nothing (defined() is false).  What Tensor adds to
// TensorBase is the operator API: one method per operator of
// native_functions.yaml declared with `variants: method`, generated below.
class TORCH_API Tensor : public TensorBase {
 protected:
  // A borrowed handle: shares rhs's TensorImpl without taking a reference.
  // Only MaybeOwned and the Tensor reference wrappers create these.
  explicit Tensor(unsafe_borrow_t, const TensorBase& rhs) : TensorBase(unsafe_borrow_t{}, rhs) {}
  friend MaybeOwnedTraits<Tensor>;
  friend OptionalTensorRef;
  friend TensorRef;

 public:
  Tensor() = default;
  Tensor(const Tensor& other) = default;
  Tensor(Tensor&& other) = default;
  // For generated code and TensorImpl factories, not for users.
  explicit Tensor(c10::intrusive_ptr<TensorImpl, UndefinedTensorImpl> tensor_impl)
      : TensorBase(std::move(tensor_impl)) {}
  // Copying from a TensorBase costs a reference count, so it is explicit;
  // moving is free, so it is implicit.
  explicit Tensor(const TensorBase& base) : TensorBase(base) {}
  /*implicit*/ Tensor(TensorBase&& base) : TensorBase(std::move(base)) {}

  // Wraps a TensorImpl after checking its invariants.
  static Tensor wrap_tensor_impl(c10::intrusive_ptr<TensorImpl, UndefinedTensorImpl> tensor_impl) {
    return TensorBase::wrap_tensor_impl(std::move(tensor_impl));
  }

  using TensorBase::size;
  using TensorBase::stride;
  using TensorBase::sym_size;

  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const {
    return TensorBase::contiguous(memory_format);
  }

  // The conjugate: a lazy view for strided tensors, a physical conjugation
  // for sparse layouts, which have no conjugate bit.
  Tensor conj() const {
    if (!is_complex()) {
      return *this;
    }
    const auto lay = layout();
    if (lay == at::kSparse || lay == at::kSparseCsr || lay == at::kSparseCsc ||
        lay == at::kSparseBsr || lay == at::kSparseBsc) {
      return conj_physical();
    }
    return _conj();
  }

  // *this borrowed when it already has the requested memory format, a
  // contiguous copy owned by the result otherwise.  Borrowing from a
  // temporary would dangle, hence the deleted rvalue overload.
  c10::MaybeOwned<Tensor> expect_contiguous(
      MemoryFormat memory_format = MemoryFormat::Contiguous) const&;
  c10::MaybeOwned<Tensor> expect_contiguous(
      MemoryFormat memory_format = MemoryFormat::Contiguous) && = delete;

  // Assignment has two meanings, told apart by ref-qualifiers.  Assigning to
  // a named Tensor (an lvalue) rebinds the handle: `Tensor y = x; y = z;`.
  // Assigning to a temporary, as in `x[0] = 3` or `x.select(0, 1) = y`,
  // writes into the data the temporary views.  (The lvalue forms are spelled
  // out rather than defaulted because MSVC rejects several defaulted
  // versions of one special member.)
  Tensor& operator=(const TensorBase& other) & noexcept {
    impl_ = other.getIntrusivePtr();
    return *this;
  }
  Tensor& operator=(TensorBase&& other) & noexcept {
    impl_ = other.unsafeReleaseIntrusivePtr();
    return *this;
  }
  Tensor& operator=(const Tensor& other) & noexcept {
    return *this = static_cast<const TensorBase&>(other);
  }
  Tensor& operator=(Tensor&& other) & noexcept {
    return *this = static_cast<TensorBase&&>(other);
  }
  Tensor& operator=(const Scalar& value) && {
    return fill_(value);
  }
  Tensor& operator=(const Tensor& source) && {
    return copy_(source);
  }
  Tensor& operator=(Tensor&& source) && {
    return copy_(source);
  }

  C10_DEPRECATED_MESSAGE("Tensor.type() is deprecated. Use Tensor.options() (dtype, device, layout) or the accessors scalar_type() and device() instead.")
  DeprecatedTypeProperties& type() const {
    return globalDeprecatedTypePropertiesRegistry().getDeprecatedTypeProperties(
        dispatchKeyToBackend(legacyExtractDispatchKey(key_set())), scalar_type());
  }

% if view.declares_is_variable:
  C10_DEPRECATED_MESSAGE("Tensor.is_variable() is deprecated: every Tensor is a variable. Use at::impl::variable_excluded_from_dispatch() to check autograd state.")
  bool is_variable() const noexcept {
    return !at::impl::variable_excluded_from_dispatch();
  }
% endif

  // -- conversions ----------------------------------------------------------
  Tensor toType(ScalarType t) const {
    return to(options().dtype(t), /*non_blocking=*/false, /*copy=*/false);
  }
  Tensor toBackend(Backend b) const {
    return to(options().device(backendToDeviceType(b)).layout(layout_from_backend(b)),
              /*non_blocking=*/false, /*copy=*/false);
  }
  Tensor cpu() const { return to_device_type(c10::DeviceType::CPU); }
  Tensor cuda() const { return to_device_type(c10::DeviceType::CUDA); }
  Tensor hip() const { return to_device_type(c10::DeviceType::HIP); }
  Tensor ve() const { return to_device_type(c10::DeviceType::VE); }
  Tensor vulkan() const { return to_device_type(c10::DeviceType::Vulkan); }
  Tensor metal() const { return to_device_type(c10::DeviceType::Metal); }
  Tensor meta() const { return to_device_type(c10::DeviceType::Meta); }

  // -- element access -----------------------------------------------------------
  template <typename T>
  C10_DEPRECATED_MESSAGE("Tensor.data<T>() is deprecated. Use Tensor.data_ptr<T>() instead.")
  T* data() const {
    return data_ptr<T>();
  }

  // The value of a one-element tensor; specialised per dtype in the library.
  template <typename T>
  T item() const;

  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
  C10_DEPRECATED_MESSAGE("packed_accessor is deprecated, use packed_accessor32 or packed_accessor64 instead")
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const& {
    return generic_packed_accessor<T, N, PtrTraits, index_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
  C10_DEPRECATED_MESSAGE("packed_accessor is deprecated, use packed_accessor32 or packed_accessor64 instead")
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() && = delete;

  // -- arithmetic operators -------------------------------------------------------
  Tensor operator~() const { return bitwise_not(); }
  Tensor operator-() const { return neg(); }
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor& operator+=(const Scalar& other) { return add_(other); }
  Tensor& operator-=(const Tensor& other) { return sub_(other); }
  Tensor& operator-=(const Scalar& other) { return sub_(other); }
  Tensor& operator*=(const Tensor& other) { return mul_(other); }
  Tensor& operator*=(const Scalar& other) { return mul_(other); }
  Tensor& operator/=(const Tensor& other) { return div_(other); }
  Tensor& operator/=(const Scalar& other) { return div_(other); }
  Tensor& operator&=(const Tensor& other) { return bitwise_and_(other); }
  Tensor& operator|=(const Tensor& other) { return bitwise_or_(other); }
  Tensor& operator^=(const Tensor& other) { return bitwise_xor_(other); }

  // -- indexing -------------------------------------------------------------------
  // x[i] selects along the first dimension; i may be an integer, an integral
  // Scalar or a zero-dimensional integral Tensor.
  Tensor operator[](int64_t index) const {
    return select(0, index);
  }
  Tensor operator[](const Scalar& index) const {
    TORCH_CHECK_INDEX(index.isIntegral(false), "Can only index tensors with integral scalars");
    return (*this)[index.toLong()];
  }
  Tensor operator[](const Tensor& index) const {
    TORCH_CHECK_INDEX(index.defined(), "Can only index with tensors that are defined");
    TORCH_CHECK_INDEX(index.dim() == 0, "Can only index with tensors that are scalars (zero-dim)");
    return (*this)[index.item()];
  }
  // Python-style indexing (slices, None, Ellipsis, tensors); see ATen/TensorIndexing.h.
  Tensor index(ArrayRef<at::indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<at::indexing::TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<at::indexing::TensorIndex> indices, Tensor const& rhs);
  Tensor& index_put_(ArrayRef<at::indexing::TensorIndex> indices, const Scalar& v);
  Tensor& index_put_(std::initializer_list<at::indexing::TensorIndex> indices, Tensor const& rhs);
  Tensor& index_put_(std::initializer_list<at::indexing::TensorIndex> indices, const Scalar& v);

  // -- autograd -----------------------------------------------------------------------
  // Computes the gradient of this tensor with respect to the graph leaves
  // (or to `inputs`, which must then not be empty).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, std::optional<TensorList> inputs = std::nullopt) const {
    if (inputs.has_value()) {
      TORCH_CHECK(!inputs->empty(), "'inputs' argument to backward cannot be empty")
    }
    _backward(inputs.value_or(TensorList{}), gradient, retain_graph, create_graph);
  }

  const Tensor& set_requires_grad(bool requires_grad) const {
    TensorBase::set_requires_grad(requires_grad);
    return *this;
  }
  const Tensor& requires_grad_(bool _requires_grad = true) const {
    TensorBase::requires_grad_(_requires_grad);
    return *this;
  }

  Tensor& mutable_grad() const {
    return impl_->mutable_grad();
  }

  // The accumulated gradient.  Only leaves, and tensors that called
  // retain_grad(), accumulate one; reading an empty .grad elsewhere is
  // almost always a mistake, so it warns.
  const Tensor& grad() const {
    const Tensor& g = impl_->grad();
    if (!g.defined() && !is_leaf() && !retains_grad()) {
      TORCH_WARN(
          "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
          "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
          "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
          "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
          "instead. See github.com/pytorch/pytorch/pull/30531 for more information.");
    }
    return g;
  }

  // Forward-mode gradient at a dual level.
  const Tensor& _fw_grad(uint64_t level) const {
    return impl_->_fw_grad(level, *this);
  }
  void _set_fw_grad(const TensorBase& new_grad, uint64_t level, bool is_inplace_op) const {
    impl_->_set_fw_grad(new_grad, *this, level, is_inplace_op);
  }

  // Hooks run on the gradient during backward: a hook returning void only
  // observes it, a hook returning a Tensor replaces it.  Defined in
  // ATen/core/Tensor.h.
% if view.sfinae_register_hook:
  template <typename T>
  using hook_return_void_t =
      std::enable_if_t<std::is_void_v<typename std::invoke_result_t<T&, Tensor>>, unsigned>;
  template <typename T>
  using hook_return_var_t =
      std::enable_if_t<std::is_same_v<typename std::invoke_result_t<T&, Tensor>, Tensor>, unsigned>;
  template <typename T>
  hook_return_void_t<T> register_hook(T&& hook) const;
  template <typename T>
  hook_return_var_t<T> register_hook(T&& hook) const;
% else:
  template <typename T>
  unsigned register_hook(T&& hook) const;
% endif

  Tensor data() const {
    return TensorBase::data();
  }
  at::Tensor tensor_data() const {
    return TensorBase::tensor_data();
  }
  at::Tensor variable_data() const {
    return TensorBase::variable_data();
  }

  void _backward(TensorList inputs, const std::optional<Tensor>& gradient, std::optional<bool> keep_graph, bool create_graph) const;

  // -- the operator methods (generated) --------------------------------------------
<%include file="tensor_method_declarations.mako"/>

  // A plain int dimension would otherwise be ambiguous between overloads.
  Tensor var(int dim) const {
    return var(IntArrayRef{dim});
  }
  Tensor std(int dim) const {
    return std(IntArrayRef{dim});
  }

  // Conversions spelled with a TypeMeta rather than a ScalarType.
  inline Tensor to(caffe2::TypeMeta type_meta, bool non_blocking = false, bool copy = false) const {
    return to(typeMetaToScalarType(type_meta), non_blocking, copy);
  }
  inline Tensor to(Device device, caffe2::TypeMeta type_meta, bool non_blocking = false,
                   bool copy = false) const {
    return to(device, typeMetaToScalarType(type_meta), non_blocking, copy);
  }

  // Method-call syntax for free functions: t.m(at::relu) is at::relu(t).
  template <typename F, typename... Args>
  decltype(auto) m(F func, Args&&... params) const {
    return func(*this, std::forward<Args>(params)...);
  }

 private:
  Tensor to_device_type(c10::DeviceType type) const {
    return to(options().device(type), /*non_blocking=*/false, /*copy=*/false);
  }
};

namespace detail {
// Allocates a T (a TensorImpl subclass) and wraps it.
template <typename T, typename... Args>
Tensor make_tensor(Args&&... args) {
  return Tensor(c10::make_intrusive<T>(std::forward<Args>(args)...));
}
} // namespace detail

} // namespace at

namespace at {
<%include file="tensor_method_definitions.mako"/>
} // namespace at

namespace c10 {

// How MaybeOwned<Tensor> borrows: a +0 handle that must never be released.
template <>
struct MaybeOwnedTraits<at::Tensor> {
  using owned_type = at::Tensor;
  using borrow_type = at::Tensor;

  static borrow_type createBorrow(const owned_type& from) {
    return borrow_type(borrow_type::unsafe_borrow_t{}, from);
  }
  static void assignBorrow(borrow_type& lhs, const borrow_type& rhs) {
    lhs.unsafeReleaseTensorImpl();
    lhs = borrow_type(borrow_type::unsafe_borrow_t{}, rhs);
  }
  static void destroyBorrow(borrow_type& borrowed) {
    // Never decrement: a borrow holds no reference.
    borrowed.unsafeReleaseTensorImpl();
  }
  static const owned_type& referenceFromBorrow(const borrow_type& borrowed) {
    return borrowed;
  }
  static const owned_type* pointerFromBorrow(const borrow_type& borrowed) {
    return &borrowed;
  }
  static bool debugBorrowIsValid(const borrow_type& /*borrowed*/) {
    return true;
  }
};

// ExclusivelyOwned<Tensor> stores the Tensor itself.
template <>
struct ExclusivelyOwnedTraits<at::Tensor> {
  using repr_type = at::Tensor;
  using pointer_type = at::Tensor*;
  using const_pointer_type = const at::Tensor*;

  static repr_type nullRepr() {
    return at::Tensor();
  }
  template <class... Args>
  static repr_type createInPlace(Args&&... args) {
    return at::Tensor(std::forward<Args>(args)...);
  }
  static repr_type moveToRepr(at::Tensor&& x) {
    return std::move(x);
  }
  static void destroyOwned(at::Tensor& x) {
    return ExclusivelyOwnedTraits<at::TensorBase>::destroyOwned(x);
  }
  static at::Tensor take(at::Tensor& x) {
    return std::move(x);
  }
  static pointer_type getImpl(repr_type& x) {
    return &x;
  }
  static const_pointer_type getImpl(const repr_type& x) {
    return &x;
  }
};

} // namespace c10

namespace at {

// Borrows the tensor in `opt`, or owns an undefined one when it is empty.
inline c10::MaybeOwned<Tensor> borrow_from_optional_tensor(const std::optional<Tensor>& opt) {
  if (opt.has_value()) {
    return c10::MaybeOwned<Tensor>::borrowed(*opt);
  }
  return c10::MaybeOwned<Tensor>::owned(std::in_place);
}

inline c10::MaybeOwned<Tensor> Tensor::expect_contiguous(MemoryFormat memory_format) const& {
  if (is_contiguous(memory_format)) {
    return c10::MaybeOwned<Tensor>::borrowed(*this);
  }
  return c10::MaybeOwned<Tensor>::owned(__dispatch_contiguous(memory_format));
}

} // namespace at
