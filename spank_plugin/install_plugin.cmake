# spank_plugin/install_plugin.cmake: run by `cmake --install` (install(SCRIPT)
# in spank_plugin/CMakeLists.txt, which sets the SLIPWAY_* variables below):
# installs slipway.so and its plugstack.conf.d snippet slipway.conf.
#
# Into the configured prefix (docs/admin.md) they go where Slurm reads them,
# SLIPWAY_SPANK_PLUGIN_DIR and SLIPWAY_PLUGSTACK_DIR. With `--prefix DIR`
# elsewhere nothing is written outside DIR (issue 27): a directory under the
# configured prefix moves with it into DIR, one outside both prefixes is
# replaced by DIR/lib/slurm and DIR/etc/slurm/plugstack.conf.d. The snippet is
# written here, so that it names the plugin and slipway where they land.
#
# In: SLIPWAY_CONFIGURED_PREFIX, SLIPWAY_SPANK_PLUGIN_DIR, SLIPWAY_PLUGSTACK_DIR
# (absolute, or relative to the prefix), SLIPWAY_PLUGIN_FILE (the built
# slipway.so), SLIPWAY_PLUGSTACK_TEMPLATE (plugstack.conf.in),
# SLIPWAY_INSTALL_BINDIR (relative), SLIPWAY_STAGING_DIR (a build directory),
# SLIPWAY_STRIP (the strip program, for `cmake --install --strip`).

# slipway_install_dir(OUT DIR FALLBACK): where DIR lands for this install.
function(slipway_install_dir out dir fallback)
  if(NOT IS_ABSOLUTE "${dir}")
    set(dir "${CMAKE_INSTALL_PREFIX}/${dir}")
  elseif(NOT CMAKE_INSTALL_PREFIX STREQUAL SLIPWAY_CONFIGURED_PREFIX)
    string(FIND "${dir}/" "${CMAKE_INSTALL_PREFIX}/" under_install)
    string(FIND "${dir}/" "${SLIPWAY_CONFIGURED_PREFIX}/" under_configured)
    string(LENGTH "${SLIPWAY_CONFIGURED_PREFIX}" length)
    if(under_install EQUAL 0)
      # Already inside DIR: kept.
    elseif(under_configured EQUAL 0)
      string(SUBSTRING "${dir}" ${length} -1 rest)
      set(dir "${CMAKE_INSTALL_PREFIX}${rest}")
    else()
      set(dir "${CMAKE_INSTALL_PREFIX}/${fallback}")
    endif()
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

slipway_install_dir(plugin_dir "${SLIPWAY_SPANK_PLUGIN_DIR}" "lib/slurm")
slipway_install_dir(plugstack_dir "${SLIPWAY_PLUGSTACK_DIR}" "etc/slurm/plugstack.conf.d")
# Absolute destinations outside the prefix, as install(FILES) reports them
# (CPack refuses them where CMAKE_ERROR_ON_ABSOLUTE_INSTALL_DESTINATION).
foreach(file IN ITEMS "${plugin_dir}/slipway.so" "${plugstack_dir}/slipway.conf")
  string(FIND "${file}" "${CMAKE_INSTALL_PREFIX}/" under)
  if(NOT under EQUAL 0)
    list(APPEND CMAKE_ABSOLUTE_DESTINATION_FILES "${file}")
    if(CMAKE_ERROR_ON_ABSOLUTE_INSTALL_DESTINATION)
      message(FATAL_ERROR "ABSOLUTE path INSTALL DESTINATION forbidden (by caller): ${file}")
    endif()
  endif()
endforeach()

file(INSTALL DESTINATION "${plugin_dir}" TYPE MODULE FILES "${SLIPWAY_PLUGIN_FILE}")
if(CMAKE_INSTALL_DO_STRIP AND SLIPWAY_STRIP)
  execute_process(COMMAND "${SLIPWAY_STRIP}" "$ENV{DESTDIR}${plugin_dir}/slipway.so")
endif()

# The snippet's @VARIABLES@.
set(SLIPWAY_SPANK_PLUGIN_DIR "${plugin_dir}")
set(SLIPWAY_INSTALLED_BIN "${CMAKE_INSTALL_PREFIX}/${SLIPWAY_INSTALL_BINDIR}/slipway")
# (One staging file per destination: installs side by side do not mix.)
string(MD5 staging "$ENV{DESTDIR}${plugstack_dir}")
configure_file("${SLIPWAY_PLUGSTACK_TEMPLATE}" "${SLIPWAY_STAGING_DIR}/${staging}/slipway.conf" @ONLY)
file(INSTALL DESTINATION "${plugstack_dir}" TYPE FILE FILES "${SLIPWAY_STAGING_DIR}/${staging}/slipway.conf")
file(REMOVE_RECURSE "${SLIPWAY_STAGING_DIR}/${staging}")

set(configured_plugstack_dir "${SLIPWAY_PLUGSTACK_DIR}")
if(NOT IS_ABSOLUTE "${configured_plugstack_dir}")
  set(configured_plugstack_dir "${SLIPWAY_CONFIGURED_PREFIX}/${configured_plugstack_dir}")
endif()
if(NOT plugstack_dir STREQUAL configured_plugstack_dir)
  message(STATUS "Note: ${plugstack_dir}/slipway.conf is under the prefix ${CMAKE_INSTALL_PREFIX}, "
                 "not in SLIPWAY_PLUGSTACK_DIR (${SLIPWAY_PLUGSTACK_DIR}): Slurm loads slipway.so only "
                 "once plugstack.conf includes that file or its line (docs/admin.md)")
endif()
