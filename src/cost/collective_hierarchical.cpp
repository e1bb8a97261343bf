// The hierarchical part of the collective model (group_shape, nic_crowding, level_traffic) is
// defined inline in cost/collective_levels.h, with its sources; this file only checks that the
// header stands alone.
#include "cost/collective_levels.h"
