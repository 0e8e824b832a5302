# The one way slipway builds and runs a libFuzzer target (include() it from
# tests/fuzz/<part>/CMakeLists.txt):
#
#   slipway_fuzz_available(VAR)   VAR: whether fuzz targets can be built here
#   slipway_fuzz_target(NAME name PREFIX prefix SEEDS seed_target
#                       INCLUDE dir... SOURCES src... [DEPENDS header...]
#                       [WITH_SPDLOG])
#
# libFuzzer needs clang: with a clang build a target is an ordinary
# executable; with gcc (the default) clang++ compiles it in a custom command,
# which rebuilds when a source or one of DEPENDS changes (the sources must
# then need nothing but the standard library, and spdlog WITH_SPDLOG). The
# binary is PREFIX_NAME in the current build folder; the ctest
# fuzz:PREFIX:NAME (label fuzz) writes seeds with SEEDS into seeds/ and runs
# the target for 15 s over them and corpus-NAME/.
include_guard(GLOBAL)

function(slipway_fuzz_available var)
  set(${var} OFF PARENT_SCOPE)
  if(NOT SLIPWAY_FUZZ)
    return()
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    find_program(SLIPWAY_FUZZ_CLANGXX NAMES clang++ clang++-14)
    if(NOT SLIPWAY_FUZZ_CLANGXX)
      message(WARNING "SLIPWAY_FUZZ=ON but clang++ is not installed: no fuzz targets in "
                      "${CMAKE_CURRENT_SOURCE_DIR}")
      return()
    endif()
  endif()
  set(${var} ON PARENT_SCOPE)
endfunction()

function(slipway_fuzz_target)
  cmake_parse_arguments(F "WITH_SPDLOG" "NAME;PREFIX;SEEDS" "INCLUDE;SOURCES;DEPENDS" ${ARGN})
  set(include_flags)
  foreach(dir IN LISTS F_INCLUDE)
    list(APPEND include_flags -I${dir})
  endforeach()
  set(name ${F_NAME})
  set(sanitizers -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
  set(bin ${CMAKE_CURRENT_BINARY_DIR}/${F_PREFIX}_${name})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_executable(${name} ${F_SOURCES})
    target_include_directories(${name} PRIVATE ${F_INCLUDE})
    target_compile_options(${name} PRIVATE ${sanitizers})
    target_link_options(${name} PRIVATE ${sanitizers})
    if(F_WITH_SPDLOG)
      target_link_libraries(${name} PRIVATE spdlog::spdlog)
    endif()
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
                                             OUTPUT_NAME ${F_PREFIX}_${name})
  else()
    set(extra)
    if(F_WITH_SPDLOG)
      set(extra -DSPDLOG_COMPILED_LIB -DSPDLOG_FMT_EXTERNAL -lspdlog -lfmt -pthread)
    endif()
    add_custom_command(
      OUTPUT ${bin}
      COMMAND ${SLIPWAY_FUZZ_CLANGXX} -std=c++20 -O1 -g ${sanitizers}
              ${include_flags} ${F_SOURCES} ${extra} -o ${bin}
      DEPENDS ${F_SOURCES} ${F_DEPENDS}
      COMMENT "Building ${name} with clang (libFuzzer)"
      VERBATIM)
    add_custom_target(${name} ALL DEPENDS ${bin})
  endif()
  add_dependencies(${name} ${F_SEEDS})
  # Seeds in seeds/, new inputs in corpus-NAME/ (both in the build tree).
  add_test(NAME fuzz:${F_PREFIX}:${name}
    COMMAND bash -c
      "mkdir -p seeds corpus-${name} && '$<TARGET_FILE:${F_SEEDS}>' seeds && '${bin}' -max_total_time=15 -max_len=4096 -timeout=10 corpus-${name} seeds"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(fuzz:${F_PREFIX}:${name} PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()
