# embed_files(<target-name> <output.cpp> <symbol> <base-dir> GLOB <pattern>...)
# Writes a C++ source holding every matched file (path relative to base-dir, contents) as
# `const jitsparse::EmbeddedFile <symbol>[]` and `<symbol>_count`. Re-run when any file changes.
function(embed_files name output symbol base_dir)
  cmake_parse_arguments(ARG "" "" "GLOB" ${ARGN})
  set(files)
  foreach(pattern ${ARG_GLOB})
    file(GLOB matched CONFIGURE_DEPENDS RELATIVE ${base_dir} ${base_dir}/${pattern})
    list(APPEND files ${matched})
  endforeach()
  list(SORT files)
  set(deps)
  foreach(f ${files})
    list(APPEND deps ${base_dir}/${f})
  endforeach()
  string(REPLACE ";" "|" files_arg "${files}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DSYMBOL=${symbol} -DBASE=${base_dir} "-DFILES=${files_arg}"
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_files_script.cmake
    DEPENDS ${deps} ${CMAKE_SOURCE_DIR}/cmake/embed_files_script.cmake
    COMMENT "Embedding ${symbol}" VERBATIM)
  add_custom_target(${name} DEPENDS ${output})
endfunction()
