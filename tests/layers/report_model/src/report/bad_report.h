// Fixture for scripts/check-report-includes.sh: a report that counts parameters itself.
#pragma once
#include "workload/params.h"
#include "plan/train_request.h"
