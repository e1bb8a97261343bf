#include "core/utc_date.h"

#include <ctime>

namespace gpuplan {

std::string utc_date_today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace gpuplan
