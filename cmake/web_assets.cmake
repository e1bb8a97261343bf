# The front-end assets (web/ → scripts/build-web.sh → cmake/embed_web.cmake → a generated
# .cpp in gpuplan_lib). Node.js and npm are needed at build time only. Without them (or with
# GPUPLAN_WEB=OFF) the build still succeeds: the assets are empty, `--html` and `gpuplan serve`
# exit 2 naming what to install, and the tests that need the assets skip saying why.
option(GPUPLAN_WEB "Build the HTML report and web UI assets from web/ (needs Node.js and npm at build time)" ON)
set(GPUPLAN_WEB_CPP "${CMAKE_BINARY_DIR}/web_assets.cpp")
set(GPUPLAN_WEB_BUILT OFF)
if(GPUPLAN_WEB)
  find_program(GPUPLAN_NODE node)
  find_program(GPUPLAN_NPM npm)
  if(GPUPLAN_NODE AND GPUPLAN_NPM)
    set(GPUPLAN_WEB_BUILT ON)
  else()
    message(WARNING "gpuplan: Node.js or npm not found: building without the HTML report and web UI assets "
                    "(--html and `gpuplan serve` will say so); install them with scripts/install-deps.sh and reconfigure")
  endif()
endif()
if(GPUPLAN_WEB_BUILT)
  set(_web_out "${CMAKE_BINARY_DIR}/web")
  file(GLOB _web_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/web/src/*")
  set(_web_files "${_web_out}/report.js" "${_web_out}/app.js" "${_web_out}/style.css" "${_web_out}/index.html")
  add_custom_command(
    OUTPUT ${_web_files}
    COMMAND "${PROJECT_SOURCE_DIR}/scripts/build-web.sh" "${_web_out}"
    DEPENDS ${_web_sources} "${PROJECT_SOURCE_DIR}/web/package.json" "${PROJECT_SOURCE_DIR}/web/package-lock.json"
            "${PROJECT_SOURCE_DIR}/web/build.mjs" "${PROJECT_SOURCE_DIR}/scripts/build-web.sh"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}/web"
    COMMENT "Building the front-end assets (web/, scripts/build-web.sh)")
  add_custom_command(
    OUTPUT "${GPUPLAN_WEB_CPP}"
    COMMAND ${CMAKE_COMMAND} -DDIR=${_web_out} -DOUT=${GPUPLAN_WEB_CPP} -P ${PROJECT_SOURCE_DIR}/cmake/embed_web.cmake
    DEPENDS ${_web_files} ${PROJECT_SOURCE_DIR}/cmake/embed_web.cmake
    COMMENT "Embedding the front-end assets")
else()
  execute_process(COMMAND ${CMAKE_COMMAND} -DDIR= -DOUT=${GPUPLAN_WEB_CPP} -P ${PROJECT_SOURCE_DIR}/cmake/embed_web.cmake)
endif()
