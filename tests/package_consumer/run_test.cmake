# CTest driver: install the build into a fresh prefix, build the consumer project against it with
# find_package(jitsparse), run it. Every step's exit code is checked; any failure fails the test.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DMATRIX=... -DCXX=... -P run_test.cmake
foreach(var BUILD_DIR WORK_DIR CONSUMER_DIR MATRIX CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_test.cmake: -D${var}=... is required")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f lib/cmake/jitsparse/jitsparseConfig.cmake lib/cmake/jitsparse/jitsparseConfigVersion.cmake
          lib/cmake/jitsparse/jitsparseTargets.cmake lib/libjitsparse.a bin/jitsparse
          include/jitsparse/runtime/context.hpp include/jitsparse/io/matrix_market.hpp
          include/jitsparse/templates/jitsparse/params.cuh share/jitsparse/entries/quaternion.json)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install is missing ${f}")
  endif()
endforeach()
# The installed command runs from the prefix (no source or build tree needed).
execute_process(COMMAND ${prefix}/bin/jitsparse info RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "entry types:.*quaternion")
  message(FATAL_ERROR "installed 'jitsparse info' failed (exit ${rc}):\n${out}\n${err}")
endif()

# Only the prefix is searched: no package registry, no build tree.
run("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${consumer_build} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build})

# Without a GPU the example must stop with the library's clean message; with one it must multiply.
execute_process(COMMAND ${consumer_build}/spmv_example ${MATRIX} real RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(rc EQUAL 0 AND out MATCHES "\\|\\|A\\*1\\|\\| = [0-9]")
  message(STATUS "consumer ran on the GPU:\n${out}")
elseif(rc EQUAL 1 AND err MATCHES "^spmv_example: no GPU")
  message(STATUS "consumer built and stopped cleanly without a GPU: ${err}")
else()
  message(FATAL_ERROR "the consumer failed (exit ${rc}):\n${out}\n${err}")
endif()
