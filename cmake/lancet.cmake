# lancet_layer(NAME DEPS...): a layer library built from every .cc in src/NAME.
function(lancet_layer name)
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  if(NOT srcs)
    # A layer with no sources yet is header-only.
    add_library(lancet_${name} INTERFACE)
    target_include_directories(lancet_${name} INTERFACE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(lancet_${name} INTERFACE ${ARGN})
    return()
  endif()
  add_library(lancet_${name} STATIC ${srcs})
  target_include_directories(lancet_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(lancet_${name} PRIVATE ${LANCET_WARNINGS})
  target_link_libraries(lancet_${name} PUBLIC ${ARGN})
endfunction()

# lancet_tests(DIR LIBS...): one gtest binary per tests/DIR/*_test.cc, labelled DIR.
function(lancet_tests dir)
  file(GLOB tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${dir}/*_test.cc)
  file(GLOB helpers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${dir}/*_util.cc)
  foreach(t ${tests})
    get_filename_component(n ${t} NAME_WE)
    add_executable(${n} ${t} ${helpers})
    target_compile_options(${n} PRIVATE ${LANCET_WARNINGS})
    target_include_directories(${n} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
    target_link_libraries(${n} PRIVATE ${ARGN} GTest::gtest GTest::gtest_main)
    target_compile_definitions(${n} PRIVATE LANCET_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    gtest_discover_tests(${n} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${dir}
      ENVIRONMENT "LANCET_CORPUS_DIR=${CMAKE_BINARY_DIR}/corpus"
      FIXTURES_REQUIRED corpus)
  endforeach()
endfunction()
