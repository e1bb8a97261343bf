# Sources of src/core (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES core/error.cpp core/strings.cpp core/units.cpp core/precision.cpp)
list(APPEND GPUPLAN_LIB_SOURCES core/csv.cpp core/plugin.cpp)
list(APPEND GPUPLAN_LIB_SOURCES core/json_fields.cpp core/field_spec.cpp core/input_file.cpp)
list(APPEND GPUPLAN_LIB_SOURCES core/table.cpp core/verdict.cpp core/utc_date.cpp)
