# lancet_layer(NAME DEPS...): a layer library built from every .cc in src/NAME.
function(lancet_layer name)
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  if(NOT srcs)
    # A layer with no sources yet is header-only.
    add_library(lancet_${name} INTERFACE)
    target_include_directories(lancet_${name} INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                               $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_compile_features(lancet_${name} INTERFACE cxx_std_20)
    target_link_libraries(lancet_${name} INTERFACE ${ARGN})
    set_property(GLOBAL APPEND PROPERTY LANCET_LAYERS lancet_${name})
    return()
  endif()
  add_library(lancet_${name} STATIC ${srcs})
  # src/ (the layers' private headers) is for the layers and tests in this tree only; an
  # installed package offers include/ alone.
  target_include_directories(lancet_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                             $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # The public headers use C++20 (std::span, ...), so every consumer compiles as C++20.
  target_compile_features(lancet_${name} PUBLIC cxx_std_20)
  target_compile_options(lancet_${name} PRIVATE ${LANCET_WARNINGS})
  target_link_libraries(lancet_${name} PUBLIC ${ARGN})
  # Listed for cmake/install.cmake, which installs and exports every layer.
  set_property(GLOBAL APPEND PROPERTY LANCET_LAYERS lancet_${name})
endfunction()

# lancet_tests(DIR LIBS...): one gtest binary per tests/DIR/*_test.cc, labelled DIR (or
# LANCET_TEST_LABEL when the caller sets it).
function(lancet_tests dir)
  file(GLOB tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${dir}/*_test.cc)
  file(GLOB helpers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${dir}/*_util.cc)
  # The helpers compile once per directory, not once per test binary.
  set(helper_lib)
  if(helpers)
    set(helper_lib ${dir}_test_helpers)
    add_library(${helper_lib} STATIC ${helpers})
    target_compile_options(${helper_lib} PRIVATE ${LANCET_WARNINGS})
    target_include_directories(${helper_lib} PUBLIC ${PROJECT_SOURCE_DIR}/tests)
    target_compile_definitions(${helper_lib} PRIVATE LANCET_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_link_libraries(${helper_lib} PUBLIC ${ARGN} GTest::gtest)
  endif()
  set(label ${dir})
  if(LANCET_TEST_LABEL)
    set(label ${LANCET_TEST_LABEL})
  endif()
  foreach(t ${tests})
    get_filename_component(n ${t} NAME_WE)
    add_executable(${n} ${t})
    target_compile_options(${n} PRIVATE ${LANCET_WARNINGS})
    target_include_directories(${n} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
    target_link_libraries(${n} PRIVATE ${helper_lib} ${ARGN} GTest::gtest GTest::gtest_main)
    target_compile_definitions(${n} PRIVATE LANCET_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    gtest_discover_tests(${n} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${label}
      ENVIRONMENT "LANCET_CORPUS_DIR=${CMAKE_BINARY_DIR}/corpus"
      FIXTURES_REQUIRED corpus)
  endforeach()
endfunction()
