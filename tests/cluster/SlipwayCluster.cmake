# CTest wiring of the real Slurm test cluster (tests/cluster/cluster.sh).
# include() this file from any tests/system/<part>/CMakeLists.txt, then
#
#   slipway_add_system_test(NAME name [TIMEOUT seconds] COMMAND cmd args...)
#
# adds the ctest `system:<name>` (label `system`) that requires the fixture
# `slurm-cluster`: ctest starts the cluster once before the first such test
# (system:cluster:up) and tears it down after the last (system:cluster:down).
# The command runs through run-system-test.sh, with SLURM_CONF exported, in a
# scratch directory every cluster host sees, under `timeout`. System tests
# hold the resource lock `slurm-cluster`, so they run one at a time.
# Where the cluster cannot run (not root, no network namespaces) the fixture
# and every test report SKIPPED (return code 77), never a silent pass.
include_guard(GLOBAL)

set(SLIPWAY_CLUSTER_HARNESS "${PROJECT_SOURCE_DIR}/tests/cluster")
set(SLIPWAY_CLUSTER_DIR "${PROJECT_BINARY_DIR}/tests/system/cluster" CACHE PATH
    "Private directory of the Slurm test cluster started by ctest")

# The cluster loads the freshly built SPANK plugin, pointed at this build's
# slipway binary, when both targets exist.
set(_cluster_env
  "SLIPWAY_CLUSTER_TIMEOUT=90")
if(TARGET slipway_spank)
  list(APPEND _cluster_env "SLIPWAY_SPANK_PLUGIN=$<TARGET_FILE:slipway_spank>")
  if(TARGET slipway)
    list(APPEND _cluster_env "SLIPWAY_SPANK_PLUGIN_ARGS=slipway_bin=$<TARGET_FILE:slipway>")
  endif()
endif()

add_test(NAME system:cluster:up
  COMMAND "${SLIPWAY_CLUSTER_HARNESS}/cluster.sh" up "${SLIPWAY_CLUSTER_DIR}")
set_tests_properties(system:cluster:up PROPERTIES
  LABELS system
  FIXTURES_SETUP slurm-cluster
  RESOURCE_LOCK slurm-cluster
  SKIP_RETURN_CODE 77
  TIMEOUT 180
  ENVIRONMENT "${_cluster_env}")

add_test(NAME system:cluster:down
  COMMAND "${SLIPWAY_CLUSTER_HARNESS}/cluster.sh" down "${SLIPWAY_CLUSTER_DIR}")
set_tests_properties(system:cluster:down PROPERTIES
  LABELS system
  FIXTURES_CLEANUP slurm-cluster
  RESOURCE_LOCK slurm-cluster
  TIMEOUT 120)

function(slipway_add_system_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND" ${ARGN})
  if(NOT T_NAME OR NOT T_COMMAND)
    message(FATAL_ERROR "slipway_add_system_test: NAME and COMMAND are required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  math(EXPR _ctest_timeout "${T_TIMEOUT} + 30")
  # system:FOLDER:case (tests/CMakeLists.txt): NAME without the folder's
  # old prefix ("launch-", "slurm-", ...), dashes as underscores.
  get_filename_component(_folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  string(REGEX REPLACE "^(launch|slurm|spank|sbatch)-" "" _case "${T_NAME}")
  string(REPLACE "-" "_" _case "${_case}")
  set(_test system:${_folder}:${_case})
  add_test(NAME ${_test}
    COMMAND "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/run-system-test.sh"
            "${SLIPWAY_CLUSTER_DIR}" "${T_TIMEOUT}" ${T_COMMAND})
  set_tests_properties(${_test} PROPERTIES
    LABELS system
    FIXTURES_REQUIRED slurm-cluster
    RESOURCE_LOCK slurm-cluster
    SKIP_RETURN_CODE 77
    TIMEOUT ${_ctest_timeout})
endfunction()
