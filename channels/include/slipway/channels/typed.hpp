// Typed helpers over courier's byte methods: a Codec<T> turns values into
// message bytes and back, so services and callers exchange typed values.
//
// Codecs provided: Bytes (as is), std::string (its bytes), any trivially
// copyable T (its object representation: both sides must agree on the
// layout, e.g. fixed-width integers and plain structs on one architecture),
// and std::vector<T> of trivially copyable T. Specialise Codec<T> for
// anything else (e.g. a serialiser of your own).
//
// Contract: decode() throws ChannelError(Errc::protocol) when the bytes
// cannot be a T (wrong size); a handler's decode failure reaches its caller
// as Errc::remote_error naming the method.
#pragma once

#include <cstring>
#include <future>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "slipway/channels/endpoint.hpp"

namespace slipway::channels {

template <typename T, typename Enable = void>
struct Codec;

template <>
struct Codec<Bytes> {
  static Bytes encode(Bytes value) { return value; }
  static Bytes decode(ByteView bytes) { return to_bytes(bytes); }
};

template <>
struct Codec<std::string> {
  static Bytes encode(const std::string& value) { return to_bytes(value); }
  static std::string decode(ByteView bytes) { return to_string(bytes); }
};

template <typename T>
struct Codec<T, std::enable_if_t<std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>>> {
  static Bytes encode(const T& value) {
    Bytes out(sizeof(T));
    std::memcpy(out.data(), &value, sizeof(T));
    return out;
  }
  static T decode(ByteView bytes) {
    if (bytes.size() != sizeof(T)) {
      throw ChannelError(Errc::protocol, "expected " + std::to_string(sizeof(T)) +
                                             " bytes for a " + typeid(T).name() + ", got " +
                                             std::to_string(bytes.size()));
    }
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
  }
};

template <typename T>
struct Codec<std::vector<T>, std::enable_if_t<std::is_trivially_copyable_v<T>>> {
  static Bytes encode(const std::vector<T>& values) {
    Bytes out(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  static std::vector<T> decode(ByteView bytes) {
    if (bytes.size() % sizeof(T) != 0) {
      throw ChannelError(Errc::protocol, std::to_string(bytes.size()) +
                                             " bytes are not a whole number of " +
                                             typeid(T).name() + " (" +
                                             std::to_string(sizeof(T)) + " bytes each)");
    }
    std::vector<T> values(bytes.size() / sizeof(T));
    if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
};

// A future of a typed reply: decodes when get() is called.
template <typename T>
class TypedFuture {
 public:
  explicit TypedFuture(std::future<Bytes> inner) : inner_(std::move(inner)) {}
  T get() { return Codec<T>::decode(inner_.get()); }
  template <typename Rep, typename Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& d) const {
    return inner_.wait_for(d);
  }
  void wait() const { inner_.wait(); }
  bool valid() const noexcept { return inner_.valid(); }

 private:
  std::future<Bytes> inner_;
};

// Registers `fn` (Response(const Request&)) as `method`.
template <typename Response, typename Request, typename Fn>
void define(Endpoint& endpoint, const std::string& method, Fn fn) {
  endpoint.register_method(method, [fn = std::move(fn), method](ByteView request) -> Bytes {
    Request value = [&] {
      try {
        return Codec<Request>::decode(request);
      } catch (const ChannelError& e) {
        throw ChannelError(Errc::protocol, "method '" + method + "': bad request: " + e.what());
      }
    }();
    return Codec<Response>::encode(fn(value));
  });
}

template <typename Response, typename Request>
Response call(const Handle& handle, const std::string& method, const Request& request,
              Timeout timeout = {}) {
  return Codec<Response>::decode(handle.call(method, Codec<Request>::encode(request), timeout));
}

template <typename Response, typename Request>
TypedFuture<Response> call_async(const Handle& handle, const std::string& method,
                                 const Request& request, Timeout timeout = {}) {
  return TypedFuture<Response>(
      handle.call_async(method, Codec<Request>::encode(request), timeout));
}

template <typename Request>
std::future<void> send(const Handle& handle, const std::string& method, const Request& request,
                       Timeout timeout = {}) {
  return handle.send(method, Codec<Request>::encode(request), timeout);
}

}  // namespace slipway::channels
