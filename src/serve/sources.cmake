# Sources of src/serve (paths relative to src/): `gpuplan serve`, above report, below cli.
# server.cpp is the only file that includes cpp-httplib; it is built in gpuplan_serve
# (src/CMakeLists.txt), so libgpuplan itself never links it.
list(APPEND GPUPLAN_SERVE_SOURCES serve/api.cpp serve/server.cpp)
