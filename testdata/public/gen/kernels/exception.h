// Forwarding header (ours): the cuda-samples sources include <exception.h> from
// their Common/ folder; -I points at this folder, so forward to the fetched copy.
#include "../../src/cuda-samples/Common/exception.h"
