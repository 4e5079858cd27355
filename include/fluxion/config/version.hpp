#pragma once
// The library's version, also exported by Meson to pkg-config and CMake.

#define FLUXION_VERSION_MAJOR 0
#define FLUXION_VERSION_MINOR 1
#define FLUXION_VERSION_PATCH 0
#define FLUXION_VERSION_STRING "0.1.0"

namespace fluxion {
inline constexpr int version_major = FLUXION_VERSION_MAJOR;
inline constexpr int version_minor = FLUXION_VERSION_MINOR;
inline constexpr int version_patch = FLUXION_VERSION_PATCH;
inline constexpr const char* version_string = FLUXION_VERSION_STRING;
}  // namespace fluxion
