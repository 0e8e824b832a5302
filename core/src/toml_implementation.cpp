// TOML++'s implementation, compiled once into slipway_core (its documented
// TOML_IMPLEMENTATION mode) instead of linking libtomlplusplus.so: one shared
// library fewer to load at every start of slipway and slipway-exec.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
