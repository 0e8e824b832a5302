// slipway.so: the SPANK entry points. Each hook dispatches on the context to
// the file that handles it (client_hooks.cpp: srun/sbatch/salloc,
// remote_hooks.cpp: slurmstepd) and turns any exception into an error
// status: nothing is thrown across this C boundary.
#include "spank_api.hpp"

#include <exception>

#include "plugin_state.hpp"

namespace slipway::spank::plugin {

State& state() {
  static State s;
  return s;
}

void report_error(const char* message) { slurm_error("slipway: %s", message); }

}  // namespace slipway::spank::plugin

namespace plugin = slipway::spank::plugin;

namespace {

template <typename F>
int guarded(const char* hook, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    slurm_error("slipway: internal error in %s: %s", hook, e.what());
  } catch (...) {
    slurm_error("slipway: internal error in %s", hook);
  }
  return -1;
}

}  // namespace

// The only symbols slipway.so exports (see slipway_spank.lds); everything
// else is built with hidden visibility.
#pragma GCC visibility push(default)
extern "C" {

// SPANK_PLUGIN(slipway, 1), spelled out: in C++ a const at namespace scope
// has internal linkage unless declared extern, and the loader must see these.
extern const char plugin_name[] = "slipway";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 1;

int slurm_spank_init(spank_t sp, int ac, char** av) {
  return guarded("slurm_spank_init", [&] {
    switch (spank_context()) {
      case S_CTX_LOCAL:
      case S_CTX_ALLOCATOR:
        return plugin::client_init(sp, ac, av);
      case S_CTX_REMOTE:
        return plugin::remote_init(sp, ac, av);
      default:
        return 0;
    }
  });
}

int slurm_spank_task_init(spank_t sp, int /*ac*/, char** /*av*/) {
  return guarded("slurm_spank_task_init", [&] {
    return spank_context() == S_CTX_REMOTE ? plugin::remote_task_init(sp) : 0;
  });
}

}  // extern "C"
#pragma GCC visibility pop
