// make_selector, and the logic errors selectors share.
#include <stdexcept>
#include <string>

#include "selectors.hpp"

namespace slipway::replay {

namespace detail {
void missing_key(Key key) {
  throw std::logic_error("selector: key " + std::to_string(key) + " is not present");
}
void duplicate_key(Key key) {
  throw std::logic_error("selector: key " + std::to_string(key) + " is already present");
}
}  // namespace detail

std::unique_ptr<Selector> make_selector(const SelectorSpec& spec) {
  switch (spec.kind) {
    case SelectorKind::uniform: return std::make_unique<detail::UniformSelector>();
    case SelectorKind::fifo: return std::make_unique<detail::OrderSelector>(false);
    case SelectorKind::lifo: return std::make_unique<detail::OrderSelector>(true);
    case SelectorKind::max_heap: return std::make_unique<detail::HeapSelector>(true);
    case SelectorKind::min_heap: return std::make_unique<detail::HeapSelector>(false);
    case SelectorKind::prioritized: return std::make_unique<detail::PrioritizedSelector>(spec.exponent);
  }
  throw std::invalid_argument("unknown selector kind");
}

}  // namespace slipway::replay
