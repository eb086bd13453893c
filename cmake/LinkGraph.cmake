# ls_write_link_graph(<file>)
# Writes every target defined in this build, with its direct link dependencies, for the
# layering test (tests/layering/tst_link_layering.cpp). Called once, at the end of the
# top-level CMakeLists.txt, when every target exists. One line per fact, fields separated
# by one space:
#   target <name> <TYPE> <source dir relative to the repository>
#   link <name> <dependency>        LINK_LIBRARIES: what <name> itself compiles and links with
#   usage <name> <dependency>       INTERFACE_LINK_LIBRARIES: what <name> passes on to its users
#   link-only <name> <dependency>   INTERFACE_LINK_LIBRARIES as $<LINK_ONLY:...>: passed on
#                                   to the final link line only (a static library's PRIVATE
#                                   dependencies), never to a user's compilation
# Aliases (loopscape::ir) are resolved to the real target (loopscape_ir); generator
# expressions other than LINK_ONLY are written as they are.

function(ls_collect_targets dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    ls_collect_targets("${sub}" sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(ls_link_graph_name item out)
  if(TARGET "${item}")
    get_target_property(aliased "${item}" ALIASED_TARGET)
    if(aliased)
      set(item "${aliased}")
    endif()
  endif()
  set(${out} "${item}" PARENT_SCOPE)
endfunction()

function(ls_write_link_graph file)
  ls_collect_targets("${PROJECT_SOURCE_DIR}" targets)
  set(graph "")
  set(properties LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
  set(kinds link usage)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(source_dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH source_dir "${PROJECT_SOURCE_DIR}" "${source_dir}")
    string(APPEND graph "target ${target} ${type} ${source_dir}\n")
    foreach(property kind IN ZIP_LISTS properties kinds)
      get_target_property(deps ${target} ${property})
      if(NOT deps)
        continue()
      endif()
      foreach(dep IN LISTS deps)
        # target_link_libraries() called from another directory brackets its items with
        # ::@(directory-id) markers.
        if(dep MATCHES "^::@")
          continue()
        endif()
        set(dep_kind ${kind})
        if(dep MATCHES "^\\$<LINK_ONLY:(.*)>$")
          set(dep "${CMAKE_MATCH_1}")
          set(dep_kind link-only)
        endif()
        ls_link_graph_name("${dep}" dep)
        string(REPLACE " " "_" dep "${dep}")
        string(APPEND graph "${dep_kind} ${target} ${dep}\n")
      endforeach()
    endforeach()
  endforeach()
  file(CONFIGURE OUTPUT "${file}" CONTENT "@graph@" @ONLY)
endfunction()
