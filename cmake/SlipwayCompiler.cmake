# Compiler settings shared by every slipway target: warnings (errors in CI)
# and ccache when present.
find_program(SLIPWAY_CCACHE ccache)
if(SLIPWAY_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${SLIPWAY_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${SLIPWAY_CCACHE}")
endif()

add_library(slipway_warnings INTERFACE)
add_library(slipway::warnings ALIAS slipway_warnings)
target_compile_options(slipway_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wunused -Wimplicit-fallthrough
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual>)
if(SLIPWAY_WERROR)
  target_compile_options(slipway_warnings INTERFACE -Werror)
endif()

# slipway_target_defaults(TARGET): every slipway-owned target calls this.
function(slipway_target_defaults target)
  target_link_libraries(${target} PRIVATE slipway::warnings)
endfunction()
