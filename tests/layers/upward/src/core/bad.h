// A fixture for tests/CMakeLists.txt: core may not include from cli.
#pragma once
#include "cli/commands.h"
