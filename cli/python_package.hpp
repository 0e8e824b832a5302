// Where slipway's Python package (python/slipway: courier, replay) and the
// courier library it loads live, for the tasks slipway starts.
//
// Contract: export_python_package() prepends the package's directory to
// PYTHONPATH (unless it is there already) and sets SLIPWAY_COURIER_LIBRARY
// (unless set) in this process's environment, which every task inherits,
// so that `import slipway` works in every task, locally and under Slurm
// (srun passes the environment on). The package is found beside the
// running slipway: PREFIX/lib/slipway/python after `cmake --install`, the
// source tree's python/ in a build tree. Nothing is set when neither exists.
#pragma once

#include <string>

namespace slipway::cli {

// The directory holding the `slipway` package, or "" when none is found.
std::string python_package_dir();
void export_python_package();

}  // namespace slipway::cli
