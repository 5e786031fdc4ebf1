# Debian packages from a build tree: `cpack -G DEB` (or plain `cpack`) in the build dir,
# after the installed targets are built. Two packages, so that the CLI's users do not pull
# in a compiler's worth of -dev packages:
#   lancet      the CLI, the media plugins and the Python package (component groups below);
#   lancet-dev  the archives, headers, CMake package and lancet.pc (component dev).
# Installed under /usr, where Debian's interpreter finds the Python package
# (lib/python3.X/dist-packages is on its path) and the CLI its plugins (lib/lancet/plugins).
set(CPACK_PACKAGE_NAME lancet)
set(CPACK_PACKAGE_VENDOR "Lancet")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(LANCET_PACKAGE_MAINTAINER "Lancet maintainers <maintainers@users.noreply.a-seed-54da5b98.example>"
    CACHE STRING "Maintainer field of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${LANCET_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://lancedb.github.io/lance/")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put that one line above both
# packages' descriptions, whose own first lines are their summaries.

# The binaries' shared libraries (libprotobuf, libcurl, FFmpeg, poppler, ...) become
# Depends through dpkg-shlibdeps, so they follow whatever the build linked.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME lancet)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "Lance columnar format: CLI, media plugins and Python module
Lancet reads and writes Lance datasets (the columnar file and table format for
multimodal AI data) without a Rust toolchain. This package has the lancet
command, the video, audio and image plugins and the Python package lancet.")
if(LANCET_PYTHON)
  # _lancet is built for one interpreter's ABI; numpy is imported by the package itself.
  set(py "${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}")
  math(EXPR py_next "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS
      "python3 (>= ${py}), python3 (<< ${Python3_VERSION_MAJOR}.${py_next}), python3-numpy")
endif()

# Archives have no shared-library dependencies to find: a static link needs the -dev
# packages of every library the archives use (those LancetConfig.cmake and lancet.pc name).
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME lancet-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "libprotobuf-dev, libzstd-dev, liblz4-dev, libsnappy-dev, zlib1g-dev, libroaring-dev, libcurl4-openssl-dev | libcurl-dev, libssl-dev, libcpp-httplib-dev, pkg-config")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "Lance columnar format: C++ static libraries and headers
The Lancet layers as static libraries with their public headers, a CMake
package (find_package(Lancet) gives Lancet::lancet) and lancet.pc.")

include(CPack)
cpack_add_component_group(runtime)
cpack_add_component_group(development)
get_cmake_property(lancet_components COMPONENTS)
foreach(c ${lancet_components})
  if(c STREQUAL "dev")
    cpack_add_component(${c} GROUP development)
  else()
    cpack_add_component(${c} GROUP runtime)
  endif()
endforeach()
