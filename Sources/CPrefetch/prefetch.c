// Everything is in the header, inlined where Swift calls it; SwiftPM needs a C file to make a target.
#include "prefetch.h"
