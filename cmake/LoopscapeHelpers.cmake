# One helper per kind of target, so each module's CMakeLists.txt stays a few lines.

# ls_add_module(<name> [PUBLIC <targets...>] [PRIVATE <targets...>])
# A static library `loopscape_<name>` from every .cpp in the calling directory. Include
# paths are rooted at the repository ("core/ir/expr.h").
# PUBLIC: what the module's public headers need (other loopscape modules, fmt); its
# consumers compile against these too. PRIVATE: what only its sources use (isl, LLVM,
# nlohmann_json, dl); only the link line of a final binary sees them (as the static
# library's link-only dependencies), never a consumer's include path. The layering test
# (tests/layering) checks both lists against DESIGN.md's module table.
function(ls_add_module name)
  cmake_parse_arguments(ARG "" "" "PUBLIC;PRIVATE" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ls_add_module(${name}): unexpected arguments '${ARG_UNPARSED_ARGUMENTS}' "
                        "(dependencies go after PUBLIC or PRIVATE)")
  endif()
  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp")
  add_library(loopscape_${name} STATIC ${sources})
  target_include_directories(loopscape_${name} PUBLIC "${PROJECT_SOURCE_DIR}")
  target_link_libraries(loopscape_${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  set_target_properties(loopscape_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(loopscape::${name} ALIAS loopscape_${name})
endfunction()

# ls_test_compile_options(<target>)
# Test code is compiled without optimisation (-O0 after the build type's flags): what a
# test checks runs in the libraries, built as the build type says, and a test program
# compiled in 9.9 s instead of 13.6 (-O2 -g1) or 18.4 (-O2 -g) on a 2-core Zen 1. Debug
# information stays as the build type has it.
function(ls_test_compile_options target)
  target_compile_options(${target} PRIVATE -O0)
endfunction()

# ls_add_test_dir(<module> DEPS <targets...>)
# One QtTest executable per tests/<module>/tst_<unit>.cpp, registered with CTest as
# <module>.<unit>, linked with the directory's *_helpers.cpp (one library). Tests find
# their data through LS_SOURCE_DIR. A test that includes a module's internal headers
# names that module's private libraries in DEPS itself (the poly tests name isl).
function(ls_add_test_dir module)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB tests CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${module}/tst_*.cpp")
  file(GLOB helpers CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${module}/*_helpers.cpp")
  # The directory's shared helpers are compiled once, into tst_<module>_helpers, not once
  # per test program.
  set(helper_library)
  if(helpers)
    set(helper_library tst_${module}_helpers)
    add_library(${helper_library} STATIC ${helpers})
    set_target_properties(${helper_library} PROPERTIES AUTOMOC ON UNITY_BUILD OFF)
    target_link_libraries(${helper_library} PRIVATE Qt6::Test ${ARG_DEPS})
    target_include_directories(${helper_library} PRIVATE "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
    target_compile_definitions(${helper_library} PRIVATE LS_SOURCE_DIR="${PROJECT_SOURCE_DIR}" QT_NO_KEYWORDS)
    ls_test_compile_options(${helper_library})
  endif()
  foreach(test_source IN LISTS tests)
    get_filename_component(unit "${test_source}" NAME_WE)
    string(REGEX REPLACE "^tst_" "" unit "${unit}")
    set(target tst_${module}_${unit})
    add_executable(${target} "${test_source}")
    # One source: no unity batch (GCC would take the test's .cpp for a header and warn
    # about its file-local types, -Wsubobject-linkage).
    set_target_properties(${target} PROPERTIES AUTOMOC ON UNITY_BUILD OFF)
    target_link_libraries(${target} PRIVATE ${helper_library} Qt6::Test ${ARG_DEPS})
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
    target_compile_definitions(${target} PRIVATE LS_SOURCE_DIR="${PROJECT_SOURCE_DIR}" QT_NO_KEYWORDS)
    ls_test_compile_options(${target})
    add_test(NAME ${module}.${unit} COMMAND ${target})
    set_tests_properties(${module}.${unit} PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
  endforeach()
endfunction()

# ls_add_plugin(<name> [SOURCES <files...>] [DEPS <targets...>] [OUTPUT_DIRECTORY <dir>])
# A target plugin: a MODULE library `loopscape-target-<name>` (file
# loopscape-target-<name>.so) from SOURCES (default: every .cpp in the calling directory),
# linked PRIVATE with loopscape::codegen and DEPS, written to ${CMAKE_BINARY_DIR}/plugins
# (where the registry finds it from build/app/cli) and installed into
# lib/loopscape/plugins. With OUTPUT_DIRECTORY (test-only plugins) it is not installed.
function(ls_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_SOURCES)
    file(GLOB ARG_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/plugins")
  endif()
  set(target loopscape-target-${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${target}
                        LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target} PRIVATE loopscape::codegen ${ARG_DEPS})
  if(ARG_OUTPUT_DIRECTORY STREQUAL "${CMAKE_BINARY_DIR}/plugins")
    install(TARGETS ${target} LIBRARY DESTINATION lib/loopscape/plugins)
  endif()
endfunction()
