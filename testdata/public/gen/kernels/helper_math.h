// Forwarding header (ours): the cuda-samples sources include <helper_math.h> from
// their Common/ folder; -I points at this folder, so forward to the fetched copy.
#include "../../src/cuda-samples/Common/helper_math.h"
