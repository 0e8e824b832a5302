# CTest wiring of the real Slurm test cluster (tests/cluster/cluster.sh).
# include() this file from any tests/system/<part>/CMakeLists.txt, then
#
#   slipway_add_system_test(NAME name [TIMEOUT seconds] [CLUSTER preempt|limits]
#                           COMMAND cmd args...)
#
# adds the ctest `system:<name>` (label `system`) that requires the fixture
# `slurm-cluster`: ctest starts the cluster once before the first such test
# (system:cluster:up) and tears it down after the last (system:cluster:down).
# With CLUSTER preempt the test runs on a cluster of its own kind instead
# (fixture `slurm-cluster-preempt`, system:cluster:up_preempt and
# down_preempt, directory SLIPWAY_CLUSTER_PREEMPT_DIR): three cpu hosts,
# no GPU hosts, and partitions low and high where high preempts low by
# requeue (cluster.sh, SLIPWAY_CLUSTER_PREEMPT=requeue), so every other
# system test keeps the usual cluster. With CLUSTER limits: three cpu hosts
# whose Slurm lets a job start at most 4 steps (MaxStepCount=4,
# SLIPWAY_CLUSTER_MAX_STEPS), directory SLIPWAY_CLUSTER_LIMITS_DIR.
# The command runs through run-system-test.sh, with SLURM_CONF exported, in a
# scratch directory every cluster host sees, under `timeout`. System tests
# hold the resource lock `slurm-cluster`, so they run one at a time.
# Where the cluster cannot run (not root, no network namespaces) the fixture
# and every test report SKIPPED (return code 77), never a silent pass.
include_guard(GLOBAL)

set(SLIPWAY_CLUSTER_HARNESS "${PROJECT_SOURCE_DIR}/tests/cluster")
set(SLIPWAY_CLUSTER_DIR "${PROJECT_BINARY_DIR}/tests/system/cluster" CACHE PATH
    "Private directory of the Slurm test cluster started by ctest")
set(SLIPWAY_CLUSTER_PREEMPT_DIR "${PROJECT_BINARY_DIR}/tests/system/cluster-preempt" CACHE PATH
    "Private directory of the Slurm test cluster with preemption started by ctest")
set(SLIPWAY_CLUSTER_LIMITS_DIR "${PROJECT_BINARY_DIR}/tests/system/cluster-limits" CACHE PATH
    "Private directory of the Slurm test cluster with a small MaxStepCount started by ctest")

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
# Kept for the preemption cluster, whose fixture is made by the first test
# that asks for it, from whichever directory that is.
set_property(GLOBAL PROPERTY SLIPWAY_CLUSTER_ENV "${_cluster_env}")

# _slipway_cluster_fixture(FIXTURE SUFFIX DIR ENV...): the tests that start
# and stop one test cluster (system:cluster:up<SUFFIX>, down<SUFFIX>).
function(_slipway_cluster_fixture fixture suffix dir)
  add_test(NAME system:cluster:up${suffix}
    COMMAND "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cluster.sh" up "${dir}")
  set_tests_properties(system:cluster:up${suffix} PROPERTIES
    LABELS system
    FIXTURES_SETUP ${fixture}
    RESOURCE_LOCK slurm-cluster
    SKIP_RETURN_CODE 77
    TIMEOUT 180
    ENVIRONMENT "${ARGN}")
  add_test(NAME system:cluster:down${suffix}
    COMMAND "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cluster.sh" down "${dir}")
  set_tests_properties(system:cluster:down${suffix} PROPERTIES
    LABELS system
    FIXTURES_CLEANUP ${fixture}
    RESOURCE_LOCK slurm-cluster
    TIMEOUT 120)
endfunction()

_slipway_cluster_fixture(slurm-cluster "" "${SLIPWAY_CLUSTER_DIR}" ${_cluster_env})

# _slipway_cluster_kind(KIND DIR ENV...): the fixture slurm-cluster-KIND
# (system:cluster:up_KIND, down_KIND), made once, by the first test of it.
function(_slipway_cluster_kind kind dir)
  get_property(_defined GLOBAL PROPERTY SLIPWAY_CLUSTER_${kind}_FIXTURE)
  if(NOT _defined)
    set_property(GLOBAL PROPERTY SLIPWAY_CLUSTER_${kind}_FIXTURE TRUE)
    get_property(_env GLOBAL PROPERTY SLIPWAY_CLUSTER_ENV)
    _slipway_cluster_fixture(slurm-cluster-${kind} _${kind} "${dir}" ${_env} ${ARGN})
  endif()
endfunction()

function(slipway_add_system_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT;CLUSTER" "COMMAND" ${ARGN})
  if(NOT T_NAME OR NOT T_COMMAND)
    message(FATAL_ERROR "slipway_add_system_test: NAME and COMMAND are required")
  endif()
  if(NOT T_CLUSTER)
    set(_fixture slurm-cluster)
    set(_dir "${SLIPWAY_CLUSTER_DIR}")
  elseif(T_CLUSTER STREQUAL "preempt")
    set(_fixture slurm-cluster-preempt)
    set(_dir "${SLIPWAY_CLUSTER_PREEMPT_DIR}")
    _slipway_cluster_kind(preempt "${_dir}" SLIPWAY_CLUSTER_PREEMPT=requeue SLIPWAY_CLUSTER_GPU_NODES=0)
  elseif(T_CLUSTER STREQUAL "limits")
    set(_fixture slurm-cluster-limits)
    set(_dir "${SLIPWAY_CLUSTER_LIMITS_DIR}")
    _slipway_cluster_kind(limits "${_dir}" SLIPWAY_CLUSTER_MAX_STEPS=4 SLIPWAY_CLUSTER_GPU_NODES=0)
  else()
    message(FATAL_ERROR "slipway_add_system_test: CLUSTER is 'preempt', 'limits' or absent, not '${T_CLUSTER}'")
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
            "${_dir}" "${T_TIMEOUT}" ${T_COMMAND})
  set_tests_properties(${_test} PROPERTIES
    LABELS system
    FIXTURES_REQUIRED ${_fixture}
    RESOURCE_LOCK slurm-cluster
    SKIP_RETURN_CODE 77
    TIMEOUT ${_ctest_timeout})
endfunction()
