#pragma once
// A move-only `void()` callable for events. Lambdas up to 32 bytes (a `this` and a few ids, the usual
// case) live inline, so scheduling an event allocates nothing; larger ones go to the heap. Cheaper to move
// than std::function (one indirect call, no copy support), which matters at tens of millions of events.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace k3::engine {

class EventCallback {
 public:
  EventCallback() = default;
  EventCallback(std::nullptr_t) {}  // NOLINT: allows `callback = nullptr`
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EventCallback> &&
                                                    std::is_invocable_r_v<void, std::decay_t<F>&>>>
  EventCallback(F&& f) {  // NOLINT: implicit, like std::function
    using Fn = std::decay_t<F>;
    if constexpr (sizeof(Fn) <= kInline && alignof(Fn) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<Fn>) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      ops_ = &inline_ops<Fn>;
    } else {
      ::new (static_cast<void*>(storage_)) Fn*(new Fn(std::forward<F>(f)));
      ops_ = &heap_ops<Fn>;
    }
  }
  EventCallback(EventCallback&& o) noexcept : ops_(o.ops_) {
    if (ops_) ops_->move(storage_, o.storage_);
    o.ops_ = nullptr;
  }
  EventCallback& operator=(EventCallback&& o) noexcept {
    if (this != &o) {
      reset();
      ops_ = o.ops_;
      if (ops_) ops_->move(storage_, o.storage_);
      o.ops_ = nullptr;
    }
    return *this;
  }
  EventCallback(const EventCallback&) = delete;
  EventCallback& operator=(const EventCallback&) = delete;
  ~EventCallback() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->call(storage_); }
  void reset() {
    if (ops_) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  static constexpr std::size_t kInline = 32;
  struct Ops {
    void (*call)(void*);
    void (*move)(void* to, void* from);  // move-constructs into `to` and destroys `from`
    void (*destroy)(void*);
  };
  template <typename Fn>
  static constexpr Ops inline_ops{
      [](void* p) { (*std::launder(static_cast<Fn*>(p)))(); },
      [](void* to, void* from) {
        Fn* src = std::launder(static_cast<Fn*>(from));
        ::new (to) Fn(std::move(*src));
        src->~Fn();
      },
      [](void* p) { std::launder(static_cast<Fn*>(p))->~Fn(); }};
  template <typename Fn>
  static constexpr Ops heap_ops{
      [](void* p) { (**std::launder(static_cast<Fn**>(p)))(); },
      [](void* to, void* from) { ::new (to) Fn*(*std::launder(static_cast<Fn**>(from))); },
      [](void* p) { delete *std::launder(static_cast<Fn**>(p)); }};

  alignas(std::max_align_t) unsigned char storage_[kInline];
  const Ops* ops_ = nullptr;
};

}  // namespace k3::engine
