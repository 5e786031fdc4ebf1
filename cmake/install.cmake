# What `cmake --install` puts in place for C++ users (component `dev`): the layer archives,
# the public headers, a CMake package (find_package(Lancet) gives Lancet::lancet and one
# Lancet::<layer> per layer) and lancet.pc. The CLI (`cli`), the plugins (`plugin_*`) and
# the Python package (`python`) install from their own directories.
include(CMakePackageConfigHelpers)

get_property(lancet_layers GLOBAL PROPERTY LANCET_LAYERS)

# The umbrella target: every layer, for users who want "Lancet" rather than a pick of
# layers. Its own name is taken by the CLI executable, hence lancet_lib exported as lancet.
add_library(lancet_lib INTERFACE)
target_link_libraries(lancet_lib INTERFACE ${lancet_layers})
set_target_properties(lancet_lib PROPERTIES EXPORT_NAME lancet)
add_library(Lancet::lancet ALIAS lancet_lib)

foreach(layer ${lancet_layers} lancet_proto)
  string(REGEX REPLACE "^lancet_" "" short ${layer})
  set_target_properties(${layer} PROPERTIES EXPORT_NAME ${short})
endforeach()

set(LANCET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Lancet)
install(TARGETS lancet_lib ${lancet_layers} lancet_proto EXPORT LancetTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/lancet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT LancetTargets NAMESPACE Lancet:: DESTINATION ${LANCET_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/LancetConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/cmake/LancetConfig.cmake INSTALL_DESTINATION ${LANCET_CMAKE_DIR})
# Before 1.0 a minor version may break the API, so only the same major.minor matches.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/LancetConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/LancetConfig.cmake ${CMAKE_BINARY_DIR}/cmake/LancetConfigVersion.cmake
        DESTINATION ${LANCET_CMAKE_DIR} COMPONENT dev)

# lancet.pc. The archives must be linked dependents first; each layer is added after the
# layers it uses, so the reverse of that order is one, with the protobuf messages last.
set(LANCET_PC_LIBS)
foreach(layer ${lancet_layers})
  get_target_property(type ${layer} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    list(PREPEND LANCET_PC_LIBS -l${layer})
  endif()
endforeach()
list(APPEND LANCET_PC_LIBS -llancet_proto)
list(JOIN LANCET_PC_LIBS " " LANCET_PC_LIBS)
set(LANCET_PC_DL_LIBS)
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND LANCET_PC_DL_LIBS " -l${lib}")
endforeach()
# The prefix is found from the .pc file's own place, so that `cmake --install --prefix P`
# and a DESTDIR or .deb install give a file that is right where it lands.
file(RELATIVE_PATH LANCET_PC_PREFIX_REL "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" LANCET_PC_PREFIX_REL "${LANCET_PC_PREFIX_REL}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/lancet.pc.in ${CMAKE_BINARY_DIR}/lancet.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/lancet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
