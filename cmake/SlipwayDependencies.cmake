# Finds slipway's dependencies, all from Debian's packages (debian/control's
# Build-Depends).
# Required: TOML++, Asio, CLI11, spdlog, nlohmann-json, Threads.
# Optional (each behind its SLIPWAY_WITH_* option): Slurm, PMIx, UCX, CUDA.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(TOMLPLUSPLUS REQUIRED IMPORTED_TARGET tomlplusplus)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)

find_path(ASIO_INCLUDE_DIR asio.hpp REQUIRED)
add_library(slipway_asio INTERFACE)
add_library(slipway::asio ALIAS slipway_asio)
target_include_directories(slipway_asio SYSTEM INTERFACE "${ASIO_INCLUDE_DIR}")
target_compile_definitions(slipway_asio INTERFACE ASIO_STANDALONE ASIO_NO_DEPRECATED)
target_link_libraries(slipway_asio INTERFACE Threads::Threads)

if(SLIPWAY_WITH_SLURM)
  find_path(SLURM_INCLUDE_DIR slurm/spank.h)
  find_library(SLURM_LIBRARY slurm)
  if(NOT SLURM_INCLUDE_DIR)
    message(WARNING "slurm/spank.h not found (libslurm-dev): building without Slurm support")
    set(SLIPWAY_WITH_SLURM OFF)
  endif()
endif()

if(SLIPWAY_WITH_PMIX)
  pkg_check_modules(PMIX IMPORTED_TARGET pmix)
  if(NOT PMIX_FOUND)
    message(WARNING "pmix not found (libpmix-dev): building without the PMIx server")
    set(SLIPWAY_WITH_PMIX OFF)
  elseif(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/libpmix.so.2")
    # Debian's pmix.pc adds -rpath to its private directory (pmix2/lib), but
    # libpmix2 also links libpmix.so.2 into the multiarch directory, where
    # the loader looks anyway: no RUNPATH in our binaries (lintian's
    # custom-library-search-path).
    get_target_property(_pmix_options PkgConfig::PMIX INTERFACE_LINK_OPTIONS)
    if(_pmix_options)
      list(FILTER _pmix_options EXCLUDE REGEX "^(-Wl,)?(-rpath|--enable-new-dtags|/usr/lib/.*pmix2/lib)$")
      set_target_properties(PkgConfig::PMIX PROPERTIES INTERFACE_LINK_OPTIONS "${_pmix_options}")
    endif()
  endif()
endif()

if(SLIPWAY_WITH_UCX)
  pkg_check_modules(UCX IMPORTED_TARGET ucx)
  if(NOT UCX_FOUND)
    message(WARNING "ucx not found (libucx-dev): building without UCX channels")
    set(SLIPWAY_WITH_UCX OFF)
  endif()
endif()

set(SLIPWAY_HAVE_CUDA OFF)
if(NOT SLIPWAY_WITH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(SLIPWAY_HAVE_CUDA ON)
  elseif(SLIPWAY_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SLIPWAY_WITH_CUDA=ON but no CUDA toolkit was found")
  endif()
endif()
message(STATUS "slipway: slurm=${SLIPWAY_WITH_SLURM} pmix=${SLIPWAY_WITH_PMIX} ucx=${SLIPWAY_WITH_UCX} cuda=${SLIPWAY_HAVE_CUDA}")
