// Parser for `kind = "row_readings"` files (data/validation/). Schema: docs/data-format.md.
#include <fmt/format.h>

#include "catalog/parsers.h"
#include "catalog/row_reading.h"

namespace gpuplan {

RowReadings parse_row_readings(Fields& top) {
  RowReadings r;
  r.id = top.str("id");
  r.file = top.str("file");
  r.provenance = top.file_provenance();
  for (Fields& row : top.table_array("row")) {
    RowReading reading;
    reading.row_id = row.str("id");
    reading.column = row.str("column");
    reading.stated = row.str("stated");
    reading.value = row.str("value");
    reading.why = row.str("why");
    if (reading.value == reading.stated) {
      row.fail("value", fmt::format("'{}' is what the row states; a reading must change the cell", reading.value));
    }
    row.finish();
    r.readings.push_back(std::move(reading));
  }
  return r;
}

}  // namespace gpuplan
