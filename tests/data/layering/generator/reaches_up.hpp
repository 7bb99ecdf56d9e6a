// A fixture for the layering test: the generator must not include the runtime, so this file has to fail.
#pragma once
#include "generator/variant.hpp"
#include "runtime/device_info.hpp"
