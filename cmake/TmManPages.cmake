# Man pages: apps/man/NAME.SECTION.scd, turned into roff by scdoc at build time (part of ALL) in
# ${PROJECT_BINARY_DIR}/man/, installed into ${CMAKE_INSTALL_MANDIR}/manSECTION (and so in the
# Debian package of `cpack -G DEB`). tests/apps/man_pages_test.sh checks them.
include(GNUInstallDirs)

find_program(SCDOC_EXECUTABLE scdoc)
if(NOT SCDOC_EXECUTABLE)
  message(FATAL_ERROR "scdoc not found: the man pages are built with it (Debian package scdoc: "
                      "apt-get install scdoc)")
endif()

set(TM_MAN_PAGES
    treematch.1 treematch-map.1 treematch-eval.1 treematch-convert.1 treematch-generate.1
    treematch-batch.1 treematch-bind.1 treematch.3 treematch-formats.5 treematch-launch.7)
set(TM_MAN_DIR ${PROJECT_BINARY_DIR}/man)
file(MAKE_DIRECTORY ${TM_MAN_DIR})

set(tm_man_outputs "")
foreach(page IN LISTS TM_MAN_PAGES)
  set(source ${PROJECT_SOURCE_DIR}/apps/man/${page}.scd)
  set(output ${TM_MAN_DIR}/${page})
  # Written under a temporary name and renamed: a failed scdoc leaves no page behind.
  add_custom_command(
    OUTPUT ${output}
    COMMAND sh -c "\"$0\" < \"$1\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" ${SCDOC_EXECUTABLE}
            ${source} ${output}
    DEPENDS ${source}
    COMMENT "scdoc ${page}"
    VERBATIM)
  list(APPEND tm_man_outputs ${output})
  string(REGEX MATCH "[0-9]$" section ${page})
  install(FILES ${output} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(man_pages ALL DEPENDS ${tm_man_outputs})
