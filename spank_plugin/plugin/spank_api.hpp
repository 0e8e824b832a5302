// <slurm/spank.h> for C++: Slurm 22.05's header declares the slurm_spank_*
// hooks without C linkage, so it is included inside extern "C" here and
// only through this file.
#pragma once

extern "C" {
#include <slurm/spank.h>
}
