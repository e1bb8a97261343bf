# Sources of src/serve (paths relative to src/): `gpuplan serve`, above report, below cli.
# server.cpp is the only file that includes cpp-httplib; it is built into the plugin
# gpuplan-serve.so (src/CMakeLists.txt), so neither libgpuplan nor the binary links it. The
# binary holds the API and server_plugin.cpp, which loads the plugin.
list(APPEND GPUPLAN_SERVE_SOURCES serve/server_plugin.cpp)  # serve/api.cpp: gpuplan_serve_api
