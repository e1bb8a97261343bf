// Today's date in UTC as YYYY-MM-DD: the `retrieved` of a file gpuplan writes itself (an
// imported system TOML), the same whether the CLI or the Python module wrote it.
#pragma once

#include <string>

namespace gpuplan {

std::string utc_date_today();

}  // namespace gpuplan
